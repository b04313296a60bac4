// A provider's sync on the reconcile engine (docs/controllers.md): fetch reads the upstream object from the
// cache, compose plans the sync (plan.ts, pure), the planner turns that into a PlanResult (apply the
// upstream object; delete it first when its identity fields changed), and the manual status hook maps the
// outcome to the provider's part of the ModelDeployment status (status.ts). The engine does the rest: the
// apply with the provider's field manager and a blockOwnerDeletion ownerReference, observing again after
// the write, the settle window, the one status write, events.

import { ApiError, isNoKindMatch } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type ModelDeployment, RECONCILE_PAUSED_ANNOTATION } from '../../../apis/kubeairunway/index.ts';
import { PROGRESS_POLL_MS } from '../../../common/model-storage/index.ts';
import {
  type ApplyOutcome,
  CategorizedError,
  type Clock,
  type ComponentState,
  type DomainReconciler,
  type ObjectReader,
  Pipeline,
  PlanResult,
} from '../../../engine/index.ts';
import {
  fetchStorage,
  markStorageConditions,
  planStorage,
  type StorageFetch,
  type StoragePlan,
} from '../storage/index.ts';
import { defaultModelDeployment } from '../validation/index.ts';
import type { MappedStatus, ProviderDefinition } from './definition.ts';
import { ownedBy, refOf } from './desired.ts';
import type { UpstreamView } from './lifecycle.ts';
import { type OptionalView, planOptionalObjects, readOptionalObjects } from './optional-objects.ts';
import { crdMissingMessage, type PreparedSync, planSync, prepareSync, type SyncPlan } from './plan.ts';
import { computeProviderStatus, type ProviderStatus, type StatusOutcome } from './status.ts';

export interface ProviderPipelineOptions {
  def: ProviderDefinition;
  clock?: Clock;
  /** requeue interval while the upstream CRD is missing */
  discoveryRetryMs: number;
  /** requeue interval while an upstream object is going away */
  pollMs: number;
  /** hold back a not-yet-ready status right after the upstream object was written (engine's settle.ts) */
  settleWindowMs: number;
  /** how long a failed model download waits before it is tried again */
  downloadRetryMs: number;
}

export interface ProviderObservation {
  plan: SyncPlan;
  /** the optional objects as fetched (optional-objects.ts) */
  optional?: OptionalView[];
  /** the upstream object's status in the unified phases, when it exists and is ours */
  mapped?: MappedStatus;
  /** the upstream object that serves the deployment (servingObject) */
  serving?: KubeObject;
  /** spec.model.storage planned (only for a deployment that has some, on the apply path) */
  storage?: StoragePlan;
}

/** what the provider reads: its upstream object and, when the deployment has spec.model.storage, its storage */
export interface ProviderFetch {
  upstream: UpstreamView;
  storage?: StorageFetch | undefined;
  /** its optional objects (optional-objects.ts) */
  optional: OptionalView[];
}

/** what the cache holds for `md`'s upstream object; a kind the server does not serve is `crdMissing` */
export async function readUpstream(
  def: ProviderDefinition,
  md: ModelDeployment,
  reader: ObjectReader,
): Promise<UpstreamView> {
  try {
    const object = await reader.get(def.upstream, md.metadata.name ?? '', md.metadata.namespace);
    return object ? { state: 'present', object } : { state: 'absent' };
  } catch (err) {
    if (isNoKindMatch(err)) return { state: 'crdMissing' };
    throw err;
  }
}

/**
 * The upstream object that serves `md` as the plan sees it: the one it applies to, or, for a spec the provider
 * refuses as incompatible, the one built from the last compatible spec (it keeps serving).
 */
function servingObject(plan: SyncPlan, upstream: UpstreamView, md: ModelDeployment): KubeObject | undefined {
  if (plan.kind === 'apply') return plan.live;
  if (plan.kind === 'incompatible' && upstream.state === 'present' && ownedBy(upstream.object, md))
    return upstream.object;
  return undefined;
}

function mapStatus(
  def: ProviderDefinition,
  live: KubeObject | undefined,
  md: ModelDeployment,
): MappedStatus | undefined {
  if (!live) return undefined;
  try {
    return def.mapStatus(live, md);
  } catch (err) {
    return {
      phase: 'Deploying',
      message: `cannot read the ${def.upstream.kind} status: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** the status outcome of a sync plan whose writes succeeded */
export function outcomeOf(plan: SyncPlan, mapped: MappedStatus | undefined, serving?: KubeObject): StatusOutcome {
  switch (plan.kind) {
    case 'invalid':
      return { kind: 'invalid', message: plan.message };
    case 'incompatible':
      return {
        kind: 'incompatible',
        messages: plan.messages,
        ...(serving && mapped ? { serving: { object: serving, mapped } } : {}),
      };
    case 'invalidOverrides':
      return { kind: 'failed', reason: 'InvalidOverrides', message: plan.messages.join('; ') };
    case 'transformFailed':
      return { kind: 'failed', reason: 'TransformFailed', message: plan.message };
    case 'conflict':
      return { kind: 'failed', reason: 'ResourceConflict', message: plan.message };
    case 'crdMissing':
      return { kind: 'pending', reason: 'CRDNotInstalled', message: plan.message };
    case 'waitForDeletion':
      return {
        kind: 'replacing',
        reason: plan.recreating ? 'RecreatingResource' : 'WaitingForDeletion',
        message: plan.message,
      };
    case 'recreate':
      return { kind: 'replacing', reason: 'RecreatingResource', message: plan.message };
    case 'apply':
      // right after the first apply the engine observes again, so `live` is the object as created
      return plan.live
        ? { kind: 'created', object: plan.live, mapped: mapped ?? { phase: 'Pending' } }
        : {
            kind: 'replacing',
            reason: 'WaitingForDeletion',
            message: `creating ${plan.desired.kind} ${refOf(plan.desired)}`,
          };
  }
}

const COMPONENT_STATE: Readonly<Record<MappedStatus['phase'], ComponentState>> = {
  Running: 'Ready',
  Deploying: 'Progressing',
  Pending: 'Progressing',
  Failed: 'Failed',
};

export function providerReconciler(
  opts: ProviderPipelineOptions,
): DomainReconciler<
  ModelDeployment,
  ProviderFetch,
  ProviderObservation,
  unknown,
  ProviderStatus & Record<string, unknown>
> {
  const { def } = opts;
  const clock = opts.clock;
  // the engine observes again after its apply with the very same deployment object (cached objects are
  // frozen, a change is a new object): defaulting, validation and the transform are done once per object
  const prepared = new WeakMap<ModelDeployment, { effective: ModelDeployment; sync: PreparedSync }>();
  const prepare = (object: ModelDeployment) => {
    let p = prepared.get(object);
    if (!p) {
      // the webhook defaults stored objects; this covers deployments admitted while it was bypassed
      const effective = defaultModelDeployment(object);
      p = { effective, sync: prepareSync(def, effective) };
      prepared.set(object, p);
    }
    return p;
  };
  return {
    fetchRemoteState: async ({ object, reader, client }) => ({
      upstream: await readUpstream(def, object, reader),
      storage: def.storage === false ? undefined : await fetchStorage(object, reader, client),
      optional: await readOptionalObjects(def, object, reader),
    }),

    composeState({ object }, { upstream, storage, optional }) {
      const { effective, sync } = prepare(object);
      const plan = planSync(def, effective, upstream, sync);
      const serving = servingObject(plan, upstream, effective);
      const mapped = mapStatus(def, serving, effective);
      const storagePlan =
        plan.kind === 'apply' && storage
          ? planStorage(effective, storage, {
              now: clock?.now() ?? Date.now(),
              retryMs: opts.downloadRetryMs,
              pollMs: PROGRESS_POLL_MS,
            })
          : undefined;
      return {
        plan,
        optional,
        ...(mapped ? { mapped } : {}),
        ...(serving ? { serving } : {}),
        ...(storagePlan ? { storage: storagePlan } : {}),
      };
    },

    planResources: (ctx, observation) => planProviderResources(opts, prepare(ctx.object).effective, observation),
    // drives the settle window: a Deploying/Pending upstream object right after our write may be held back
    getComponentHealth: componentHealth,
    setStatus(status, cm, { plan, mapped, serving, storage }, ctx) {
      // an outage keeps the status as it was (the engine retries with backoff, DependenciesReachable after the
      // grace period); the upstream kind no longer served is no outage: what was built is gone, and says so
      const notServed = upstreamNotServed(def, ctx.apply);
      if (!notServed && ctx.errors.some((e) => e.category === 'Infrastructure')) return;
      if (plan.kind === 'apply') markStorageConditions(cm, storage);
      const rejected = ctx.errors[0];
      const outcome: StatusOutcome = notServed
        ? { kind: 'pending', reason: 'CRDNotInstalled', message: crdMissingMessage(def) }
        : rejected
          ? { kind: 'failed', reason: 'ApplyFailed', message: rejected.message }
          : storage?.block && plan.kind === 'apply'
            ? { kind: 'storage', ...storage.block, created: plan.live !== undefined }
            : outcomeOf(plan, mapped, serving);
      const before = structuredClone(status);
      const { status: next } = computeProviderStatus(
        before,
        outcome,
        { kind: def.upstream.kind, now: clock?.now() ?? Date.now() },
        cm,
      );
      for (const key of Object.keys(status)) delete status[key];
      Object.assign(status, next);
    },
  };
}

/**
 * The upstream object's apply answered 404: a server-side apply creates what is absent, so the kind itself is
 * no longer served (its CRD was deleted since the cache last saw it). Said as the missing CRD, not as a raw
 * "could not find the requested resource".
 */
function upstreamNotServed(def: ProviderDefinition, apply: ApplyOutcome | undefined): boolean {
  // the client refused it itself (discovery no longer lists the kind): kindNotServedError's answer
  if (apply?.errors.some((e) => e.reason === 'KindNotServed' && isOwnKind(def, e.cause))) return true;
  const stopped = apply?.stoppedAt;
  return (
    stopped?.verb === 'apply' &&
    stopped.ref.kind === def.upstream.kind &&
    stopped.ref.apiVersion === def.upstream.apiVersion &&
    (stopped.error.reason === 'NotFound' || stopped.error.reason === 'KindNotServed')
  );
}

/**
 * A write of the provider's own kind refused because the cluster no longer serves it (its CRD was deleted:
 * isOwnKind): the missing CRD in DependenciesReachable's message, not the raw "no matches for kind" or
 * "HTTP 404"; still retried with backoff, so the CRD's return brings the resource back.
 */
export function kindNotServedError(def: ProviderDefinition, err: CategorizedError): CategorizedError {
  const cause = err.cause;
  if (!isOwnKind(def, cause)) return err;
  return new CategorizedError('Infrastructure', 'KindNotServed', `${crdMissingMessage(def)}; retrying with backoff`, {
    cause,
  });
}

/**
 * `err` says the provider's own upstream kind is not served: the client refused it (discovery no longer lists
 * it), or the server answered the apply 404 (a server-side apply creates what is absent, so the resource type
 * itself is gone: the client's discovery was older than the CRD's deletion)
 */
function isOwnKind(def: ProviderDefinition, err: unknown): boolean {
  if (isNoKindMatch(err)) return err.kind === def.upstream.kind && err.apiVersion === def.upstream.apiVersion;
  return (
    err instanceof ApiError &&
    err.code === 404 &&
    err.verb === 'PATCH' &&
    err.path.startsWith(`/apis/${def.upstream.apiVersion}/`) &&
    err.path.split('?')[0]!.split('/').includes(def.upstreamResource)
  );
}

/**
 * The writes a sync plan asks for: the storage's objects first, then (once the storage is ready: the serving
 * resource mounts it) the upstream object with its extra and optional objects; a recreate deletes exactly the
 * old object; waiting plans look again after the poll or discovery interval.
 */
function planProviderResources(
  opts: ProviderPipelineOptions,
  effective: ModelDeployment,
  { plan, storage, optional }: ProviderObservation,
): PlanResult {
  const { def } = opts;
  const out = new PlanResult();
  for (const o of storage?.delete ?? []) out.delete(o);
  for (const o of storage?.apply ?? []) out.apply(o);
  if (storage?.requeueAfterMs !== undefined) out.requeueAfter(storage.requeueAfterMs);
  if (plan.kind === 'apply' && !storage?.block) {
    out.apply(plan.desired);
    for (const extra of def.extraObjects?.(effective) ?? []) out.apply(extra);
    planOptionalObjects(def, effective, optional ?? [], out);
  }
  if (plan.kind === 'recreate') {
    // exactly the object built from the old identity (uid precondition); the next reconcile creates the new one
    const { name, namespace, uid } = plan.object.metadata;
    out.delete({
      apiVersion: def.upstream.apiVersion,
      kind: def.upstream.kind,
      metadata: { name, namespace, ...(uid ? { uid } : {}) },
    });
  }
  if (plan.kind === 'recreate' || plan.kind === 'waitForDeletion') out.requeueAfter(opts.pollMs);
  if (plan.kind === 'crdMissing') out.requeueAfter(opts.discoveryRetryMs);
  return out;
}

/** the storage while it blocks the serving resource, else the upstream object's phase (none off the apply path) */
function componentHealth({ plan, mapped, storage }: ProviderObservation) {
  if (plan.kind !== 'apply') return [];
  if (storage?.block)
    return [
      {
        component: 'Storage',
        dependencyType: 'Downstream' as const,
        state: (storage.block.failed ? 'Failed' : 'Progressing') as ComponentState,
        reason: storage.block.reason,
        message: storage.block.message,
      },
    ];
  return [
    {
      component: 'Resource',
      dependencyType: 'Downstream' as const,
      state: mapped ? COMPONENT_STATE[mapped.phase] : ('Progressing' as ComponentState),
      reason: 'Upstream',
      message: mapped?.message ?? '',
    },
  ];
}

export function providerPipeline(
  opts: ProviderPipelineOptions,
): Pipeline<ModelDeployment, ProviderFetch, ProviderObservation, unknown, ProviderStatus & Record<string, unknown>> {
  return new Pipeline({
    name: `provider-${opts.def.name}`,
    reconciler: providerReconciler(opts),
    // pause and deletion are the thin controller's (deletion first: a paused deployment can still be deleted)
    pauseAnnotation: RECONCILE_PAUSED_ANNOTATION,
    statusField: null,
    observedGeneration: true,
    blockOwnerDeletion: true,
    classifyWriteError: (err) => kindNotServedError(opts.def, err),
    settleWindowMs: opts.settleWindowMs,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
}
