// The pipeline every controller runs: pause check → runtime config → FetchRemoteState → ComposeState →
// PlanResources → decision → apply → (after writes: FetchRemoteState and health again) → conditions and
// status → events. Status is written with server-side apply on the status subresource, only the fields
// this controller owns, and only when they changed. Because status reflects the state after the apply,
// the controller needs no second reconcile for the echo of its own writes (src/kube levelBased).

import { deepEqual, type EventRecorder, isConflict, isNotFound, type KindRef, type KubeClient, type KubeObject, kindRef, type ReconcileContext, type Reconciler, type Result } from '../kube/index.ts';
import { executePlan, type ApplyOutcome } from './apply.ts';
import { ConditionManager } from './conditions.ts';
import { CategorizedError, categorize, invalidSpecError } from './errors.ts';
import type { FetchResult, ObjectReader } from './fetch-result.ts';
import { type Clock, DEFAULT_GRACE_PERIOD_MS, type GraceState, GraceTracker, systemClock } from './grace.ts';
import { type ComponentState, isErrorState, isReadyState, type NormalizedHealth, normalizeHealth } from './health.ts';
import type { LabelPropagator } from './labels.ts';
import { ownedStatus } from './owned-fields.ts';
import type { ObjectRef, PlanResult } from './plan.ts';
import { type EngineLogger, reportObservations } from './report.ts';
import { SettleWindow } from './settle.ts';
import { asComponentState, type Decision, decide, runAutomatic, setParentConditions, sourcedErrors } from './state-engine.ts';
import type { DomainReconciler, EngineStatus, FetchContext, PlanContext, ReadClient, RuntimeConfigSource } from './types.ts';

export interface PipelineOptions<T extends KubeObject, F, O, C, S extends EngineStatus> {
  /** the controller's name, for logs */
  name: string;
  reconciler: DomainReconciler<T, F, O, C, S>;
  /** an annotation (or several spellings of it) that, set to exactly "true", makes the pipeline leave the object alone */
  pauseAnnotation?: string | readonly string[];
  runtimeConfig?: RuntimeConfigSource<T, C>;
  /** applied to every planned object before it is applied */
  labelPropagators?: readonly LabelPropagator<C>[];
  /** status field for the overall state (default `status`, null = none) */
  statusField?: string | null;
  /** the kind's names for states (AIMService: Progressing → Starting, Ready → Running) */
  mapState?: (state: ComponentState) => string;
  /** record metadata.generation as the conditions' observedGeneration (the CRD schema must allow it) */
  observedGeneration?: boolean;
  clock?: Clock;
  gracePeriodMs?: number;
  /**
   * hold back a status that only says "the children this reconcile just wrote are not ready yet" for up
   * to this long (settle.ts); 0 or unset writes every status at once
   */
  settleWindowMs?: number;
}

/** what the pipeline needs from the runtime for one run (src/kube's ReconcileContext provides it) */
export interface RunDeps {
  client: Pick<KubeClient, 'apply' | 'applyStatus' | 'delete' | 'fieldManager'> & ReadClient;
  reader: ObjectReader;
  recorder?: EventRecorder;
  log?: EngineLogger;
  signal?: AbortSignal;
}

export type RunPhase = 'paused' | 'deleting' | 'reconciled';

export interface RunOutcome {
  phase: RunPhase;
  decision?: Decision;
  /** the overall state (automatic mode), before mapState */
  state?: ComponentState;
  apply?: ApplyOutcome;
  /** every categorised error of this run (components, planning, apply, status write) */
  errors: CategorizedError[];
  grace?: GraceState;
  statusWritten: boolean;
  /** the status write lost a race with another writer; the key is requeued */
  statusConflict: boolean;
  /** a changed status was held back inside the settle window; requeueAfterMs says when it ends */
  statusHeld: boolean;
  /** retry with backoff (infrastructure errors) */
  requeueWithBackoff: boolean;
  requeueAfterMs?: number;
}

/** thrown to src/kube's controller so the key is retried with exponential backoff */
export class RequeueError extends Error {
  constructor(readonly errors: readonly CategorizedError[]) {
    super(`retrying after infrastructure errors: ${errors.map((e) => e.message).join('; ')}`);
    this.name = 'RequeueError';
  }
}

/** is `object` annotated with (one of) `annotation` set to exactly "true"? */
export function isPaused(object: KubeObject, annotation: string | readonly string[] | undefined): boolean {
  if (!annotation) return false;
  const names = typeof annotation === 'string' ? [annotation] : annotation;
  return names.some((name) => object.metadata.annotations?.[name] === 'true');
}

const silentLog: EngineLogger = { debug() {}, info() {}, error() {} };

export class Pipeline<T extends KubeObject, F, O = F, C = unknown, S extends EngineStatus = EngineStatus> {
  readonly grace: GraceTracker;
  readonly settle: SettleWindow | undefined;
  private readonly clock: Clock;
  private readonly statusField: string | null;

  constructor(readonly opts: PipelineOptions<T, F, O, C, S>) {
    this.clock = opts.clock ?? systemClock;
    this.grace = new GraceTracker(this.clock, opts.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS);
    this.settle = opts.settleWindowMs ? new SettleWindow(this.clock, opts.settleWindowMs) : undefined;
    this.statusField = opts.statusField === undefined ? 'status' : opts.statusField;
  }

  /** runs the pipeline for `object` on src/kube's reconcile context; throws RequeueError for infrastructure errors */
  async reconcile(object: T, ctx: ReconcileContext): Promise<Result> {
    const outcome = await this.run(object, { client: ctx.client, reader: ctx.cache, recorder: ctx.recorder, log: ctx.log, signal: ctx.signal });
    return toResult(outcome);
  }

  async run(object: T, deps: RunDeps): Promise<RunOutcome> {
    const base: RunOutcome = { phase: 'reconciled', errors: [], statusWritten: false, statusConflict: false, statusHeld: false, requeueWithBackoff: false };
    if (isPaused(object, this.opts.pauseAnnotation)) return { ...base, phase: 'paused' };
    // finalizers and cleanup belong to the thin controller; children of a deleting owner must not be re-applied
    if (object.metadata.deletionTimestamp) return { ...base, phase: 'deleting' };
    const log = deps.log ?? silentLog;
    const fieldManager = deps.client.fieldManager;
    if (!fieldManager) throw new Error(`pipeline ${this.opts.name}: the client has no field manager (use client.withFieldManager)`);
    const r = this.opts.reconciler;

    const runtimeConfig = this.opts.runtimeConfig ? await this.opts.runtimeConfig.fetch(object, deps.reader) : undefined;
    const planCtx: PlanContext<T, C> = { object, runtimeConfig };
    const fetchCtx: FetchContext<T, C> = { ...planCtx, reader: deps.reader, client: deps.client, log, ...(deps.signal ? { signal: deps.signal } : {}) };
    const observe = async (): Promise<{ obs: O; components: NormalizedHealth[] }> => {
      const fetched = await r.fetchRemoteState(fetchCtx);
      const obs = r.composeState ? r.composeState(planCtx, fetched) : (fetched as unknown as O);
      const components: NormalizedHealth[] = [];
      for (const h of r.getComponentHealth?.(obs, planCtx) ?? []) if (h) components.push(normalizeHealth(h));
      return { obs, components };
    };
    let { obs, components } = await observe();

    const otherErrors: CategorizedError[] = [];
    let plan: PlanResult | undefined;
    try {
      plan = r.planResources(planCtx, obs);
    } catch (err) {
      // a planner that throws met data it cannot turn into objects: a spec problem, not an outage
      otherErrors.push(err instanceof CategorizedError ? err : invalidSpecError('PlanningFailed', `planning failed: ${err instanceof Error ? err.message : String(err)}`, err));
    }
    const decision = decide([...components.flatMap((h) => h.errors), ...otherErrors]);
    let applyOutcome: ApplyOutcome | undefined;
    if (decision.shouldApply && plan) {
      applyOutcome = await executePlan(plan, object, {
        client: deps.client,
        fieldManager,
        live: (ref: ObjectRef) => deps.reader.get(kindRef(ref.apiVersion, ref.kind) as KindRef, ref.metadata.name ?? '', ref.metadata.namespace),
        propagators: this.opts.labelPropagators ?? [],
        runtimeConfig: runtimeConfig?.ok() ? runtimeConfig.value : undefined,
      });
      otherErrors.push(...applyOutcome.errors);
      // status tells what the writes left behind: the cache holds the server's answers to them, so a child
      // created ready, or an existing one updated, is reported as it now is, not as it was before the apply
      if (applyOutcome.applied > 0) ({ obs, components } = await observe());
    }

    const allErrors = [...components.flatMap((h) => h.errors), ...otherErrors];
    const infra = allErrors.some((e) => e.category === 'Infrastructure');
    const objectKey = object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    const grace = this.grace.observe(objectKey, infra);

    const before = ownedStatus(object, fieldManager) as S;
    const status = structuredClone(before);
    const cm = new ConditionManager(before.conditions ?? [], {
      now: () => this.clock.now(),
      ...(this.opts.observedGeneration && object.metadata.generation !== undefined ? { generation: object.metadata.generation } : {}),
    });
    let state: ComponentState | undefined;
    if (r.setStatus) {
      r.setStatus(status, cm, obs, planCtx);
      setParentConditions(cm, sourcedErrors(components, otherErrors), grace, new Set(['DependenciesReachable']));
    } else {
      state = runAutomatic({
        cm,
        components,
        otherErrors,
        grace,
        previousState: asComponentState(this.statusField ? (object.status as Record<string, unknown> | undefined)?.[this.statusField] : undefined),
        decorate: () => r.decorateStatus?.(status, cm, obs, planCtx),
      });
      if (this.statusField) status[this.statusField as keyof S] = (this.opts.mapState ? this.opts.mapState(state) : state) as S[keyof S];
    }
    const conditions = cm.list();
    if (conditions.length > 0 || before.conditions) status.conditions = conditions;

    const outcome: RunOutcome = { ...base, decision, errors: allErrors, grace, requeueWithBackoff: decision.requeueWithBackoff || infra };
    if (state) outcome.state = state;
    if (applyOutcome) outcome.apply = applyOutcome;
    if (plan?.requeueAfterMs !== undefined) outcome.requeueAfterMs = plan.requeueAfterMs;

    let persisted = true;
    if (deepEqual(before, status)) {
      this.settle?.release(objectKey);
    } else {
      const left = this.settle && state && settling(state, components, allErrors) ? this.settle.hold(objectKey, object.metadata.generation, (applyOutcome?.applied ?? 0) > 0) : undefined;
      if (left !== undefined) {
        // nothing is reported either: the reconcile that writes the status reports its transitions
        outcome.statusHeld = true;
        outcome.requeueAfterMs = Math.min(outcome.requeueAfterMs ?? left, left);
        log.debug('status held back while the children just written settle', { state, remainingMs: left });
        return outcome;
      }
      this.settle?.release(objectKey);
      try {
        const { name, namespace, resourceVersion } = object.metadata;
        const metadata = { name, ...(namespace ? { namespace } : {}), ...(resourceVersion ? { resourceVersion } : {}) };
        await deps.client.applyStatus({ apiVersion: object.apiVersion, kind: object.kind, metadata, status }, { fieldManager, force: true });
        outcome.statusWritten = true;
      } catch (err) {
        persisted = false;
        if (isConflict(err)) {
          // someone wrote the object since our read: reconcile again (toResult requeues), from the newer object
          outcome.statusConflict = true;
          log.debug('status write conflicted, waiting for the newer object', { error: err });
        } else if (isNotFound(err)) {
          // deleted since our read: its deletion event ends the work; retrying would only 404 again
          log.debug('object deleted before its status write', { error: err });
        } else {
          const c = categorize(err);
          outcome.errors.push(c);
          outcome.requeueWithBackoff = true;
          log.error('status write failed', { error: err, category: c.category });
        }
      }
    }
    reportObservations(cm.observations(), object, deps.recorder, log, { events: persisted });
    return outcome;
  }
}

/**
 * A status the settle window may hold back: not ready only because children are coming up (Downstream,
 * not in an error state), with no error but "not there yet".
 */
function settling(state: ComponentState, components: readonly NormalizedHealth[], errors: readonly CategorizedError[]): boolean {
  if (state !== 'Progressing' && state !== 'Starting') return false;
  if (errors.some((e) => e.category !== 'MissingDownstreamDependency')) return false;
  return components.every((h) => isReadyState(h.state) || (h.dependencyType === 'Downstream' && !isErrorState(h.state)));
}

/** src/kube's Result for an outcome; infrastructure errors become a thrown RequeueError (exponential backoff) */
export function toResult(outcome: RunOutcome): Result {
  if (outcome.requeueWithBackoff) throw new RequeueError(outcome.errors);
  // a lost status race is retried rather than left to the watch: the newer object's event may be one the
  // controller filters (its own status write), and a spurious 409 brings no event at all
  if (outcome.statusConflict) return { requeue: true };
  return outcome.requeueAfterMs !== undefined ? { requeueAfter: outcome.requeueAfterMs } : {};
}

/**
 * A src/kube Reconciler running `pipeline` for objects of `kind`, read from the cache. Objects that are
 * gone need nothing (children are garbage-collected through their ownerReferences).
 */
export function pipelineReconciler<T extends KubeObject>(kind: KindRef<T>, pipeline: { reconcile(object: T, ctx: ReconcileContext): Promise<Result> }): Reconciler {
  return async (req, ctx) => {
    const object = await ctx.cache.get(kind, req.name, req.namespace || undefined);
    if (!object) return {};
    return pipeline.reconcile(object, ctx);
  };
}

/** the runtime config (when the kind has one), typed for planners */
export function runtimeConfigValue<C>(ctx: PlanContext<KubeObject, C>): C | undefined {
  const rc: FetchResult<C> | undefined = ctx.runtimeConfig;
  return rc?.ok() ? rc.value : undefined;
}
