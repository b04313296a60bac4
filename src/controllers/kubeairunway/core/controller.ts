// The KubeAIRunway core controller on the reconcile engine: fetch reads the InferenceProviderConfigs and
// CRDs from the cache, compose decides (planCoreStatus: validate, select), the planner creates nothing
// (the core never does) and the manual status hook writes only the fields docs/kubeairunway.md's ownership
// table gives the core, through the engine's one status-write path as `kubeairunway-core`. It has no finalizer
// (providers hold their own). The thin part here adds what is not a condition: the selection metric, an
// event when the provider changes, and one event per skipped CEL rule and generation.

import { CustomResourceDefinitions } from '@modelplane/runtime/client';
import {
  type Controller,
  nonStatusChanged,
  or,
  type Predicate,
  type ReconcileContext,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { deepEqual, objectKeyString } from '@modelplane/runtime/meta';
import { Counter } from 'prom-client';
import {
  CORE_FIELD_MANAGER,
  type InferenceProviderConfig,
  InferenceProviderConfigs,
  type ModelDeployment,
  ModelDeployments,
  providerFinalizer,
  RECONCILE_PAUSED_ANNOTATION,
} from '../../../apis/kubeairunway/index.ts';
import {
  ConditionManager,
  type DomainReconciler,
  ownedStatus,
  Pipeline,
  PlanResult,
  toResult,
} from '../../../engine/index.ts';
import { servedGroupVersions } from '../served-apis.ts';
import { ProviderLiveness, releaseFinalizer } from './liveness.ts';
import { type CoreDecision, type CoreJudgement, type CoreStatus, coreStatusFrom, hasBuilt, judgeCore } from './plan.ts';

const UNSELECTED_INDEX = 'kubeairunway.ai/unselected';
const SELECTED_INDEX = 'kubeairunway.ai/core-selected-provider';
/** while nothing can be selected, look again this often: provider heartbeats go stale without any event */
const RESELECT_AFTER_MS = 30_000;

export interface CoreControllerOptions {
  heartbeatStaleAfterMs?: number;
  now?: () => number;
  /** reconciles in flight at once (default CORE_CONCURRENCY) */
  concurrency?: number;
}

/**
 * The core's reconciles in flight at once. Converging a thousand new deployments keeps the process's one
 * thread busy (bench/modeldeployment.ts: CPU time ≈ wall time), so more workers only reorder the work: 16
 * converged no sooner than 4 and wrote more (5.83 writes per deployment against 5.41). `--core-concurrency`
 * of the bench measures it again.
 */
export const CORE_CONCURRENCY = 4;

interface CoreFetch {
  providers: InferenceProviderConfig[];
  served: Set<string>;
  now: number;
}

type CoreEngineStatus = Partial<CoreStatus> & Record<string, unknown>;

/** the judgement (validation, selection) and the decision from it (the status hook sets its conditions again, on the engine's manager) */
export interface CoreObservation {
  judgement: CoreJudgement;
  decision: CoreDecision;
}

export function coreReconciler(
  opts: CoreControllerOptions = {},
): DomainReconciler<ModelDeployment, CoreFetch, CoreObservation, unknown, CoreEngineStatus> {
  const now = opts.now ?? Date.now;
  const previousOf = (md: ModelDeployment) => ownedStatus(md, CORE_FIELD_MANAGER) as Partial<CoreStatus>;
  const judge = (md: ModelDeployment, f: CoreFetch) =>
    judgeCore(md, {
      providers: f.providers,
      apiServed: (gv) => f.served.has(gv),
      now: f.now,
      previous: {},
      ...(opts.heartbeatStaleAfterMs !== undefined ? { heartbeatStaleAfterMs: opts.heartbeatStaleAfterMs } : {}),
    });
  return {
    async fetchRemoteState({ reader }) {
      const [providers, crds] = await Promise.all([
        reader.list(InferenceProviderConfigs),
        reader.list(CustomResourceDefinitions),
      ]);
      return { providers: providers as InferenceProviderConfig[], served: servedGroupVersions(crds), now: now() };
    },
    // the decision, for the plan and the thin controller's events
    composeState({ object }, fetched) {
      const judgement = judge(object, fetched);
      const cm = new ConditionManager(previousOf(object).conditions ?? [], { now: () => fetched.now });
      return { judgement, decision: coreStatusFrom(judgement, previousOf(object), cm) };
    },
    planResources: (_ctx, { decision }) =>
      decision.retrySelection ? new PlanResult().requeueAfter(RESELECT_AFTER_MS) : new PlanResult(),
    setStatus(status, cm, { judgement }, { object }) {
      // on the engine's ConditionManager, so condition transitions become the engine's events
      const { status: next } = coreStatusFrom(judgement, previousOf(object), cm);
      for (const key of Object.keys(status)) delete status[key];
      Object.assign(status, next);
    },
  };
}

type ModelDeploymentInformer = Awaited<ReturnType<Manager['cache']['informer']>>;

export async function registerKubeairunwayCoreController(
  mgr: Manager,
  opts: CoreControllerOptions = {},
): Promise<Controller> {
  const selections = new Counter({
    name: 'kubeairunway_provider_selection_total',
    help: 'Provider selections by the core controller, by provider and reason',
    labelNames: ['provider', 'reason'],
    registers: [mgr.metrics.registry],
  });
  const mds = await indexModelDeploymentsByProvider(mgr);
  const unselected = () => keysOf(mds.store.byIndex(UNSELECTED_INDEX, 'true'));
  const reported = new BoundedSet(4096);
  const pipeline = new Pipeline({
    name: CORE_FIELD_MANAGER,
    reconciler: coreReconciler(opts),
    pauseAnnotation: RECONCILE_PAUSED_ANNOTATION,
    statusField: null,
    observedGeneration: true,
  });
  // a provider going stale or coming back: the deployments it owns follow (ProviderSelected, re-selection)
  let controller: Controller | undefined;
  await watchProviderLiveness(mgr, opts, (provider, changed) =>
    controller?.enqueueChange(keysOf(mds.store.byIndex(SELECTED_INDEX, provider)), changed),
  );
  controller = mgr
    .controller(CORE_FIELD_MANAGER)
    // the decision depends on the object outside its status (spec, the pause annotation, labels, finalizers,
    // deletion) and the status it reads: providers' other status writes cannot change it, and reconciling
    // on each of them doubled the core's work
    .for(ModelDeployments, { predicates: [or(nonStatusChanged(), coreStatusReadsChanged)] })
    .watches(InferenceProviderConfigs, unselected)
    .watches(CustomResourceDefinitions, unselected)
    .withOptions({ concurrency: opts.concurrency ?? CORE_CONCURRENCY, levelBased: true })
    .complete(async (req, ctx) => {
      const md = await ctx.cache.get(ModelDeployments, req.name, req.namespace);
      if (!md) return {};
      const previous = ownedStatus(md, CORE_FIELD_MANAGER) as Partial<CoreStatus>;
      const outcome = await pipeline.run(md, {
        client: ctx.client,
        reader: ctx.cache,
        recorder: ctx.recorder,
        log: ctx.log,
        signal: ctx.signal,
      });
      const observed = outcome.observation as CoreObservation | undefined;
      if (outcome.statusWritten && observed) await reportSelection(ctx, md, previous, observed, selections);
      reportSkippedRules(ctx, md, observed?.decision.skippedRules ?? [], reported);
      return toResult(outcome);
    });
  return controller;
}

/**
 * What of a deployment's status the core's decision reads: the fields it owns (as its managedFields entry
 * has them, so another writer taking one, e.g. `kubectl patch --subresource=status`, shows) and whether the
 * provider built anything (a dead provider's unbuilt deployment is selected again).
 */
const statusCoreReads = (md: ModelDeployment) => ({ owned: ownedStatus(md, CORE_FIELD_MANAGER), built: hasBuilt(md) });
const coreStatusReadsChanged: Predicate<ModelDeployment> = (ev) =>
  ev.type !== 'update' || !deepEqual(statusCoreReads(ev.old), statusCoreReads(ev.obj));

const keysOf = (list: readonly { metadata: { namespace?: string; name?: string } }[]) =>
  list.map((md) => objectKeyString(md.metadata.namespace, md.metadata.name!));

/**
 * The ModelDeployment informer with two indexes: those still waiting for a provider (what a provider or CRD
 * change can unblock) and those by selected provider (what a provider's liveness change moves).
 */
async function indexModelDeploymentsByProvider(mgr: Manager): Promise<ModelDeploymentInformer> {
  const providerOf = (o: unknown) => (o as { status?: { provider?: { name?: string } } }).status?.provider?.name;
  await mgr.cache.indexField(ModelDeployments, UNSELECTED_INDEX, (o) => (providerOf(o) ? [] : ['true']));
  await mgr.cache.indexField(ModelDeployments, SELECTED_INDEX, (o) => {
    const name = providerOf(o);
    return name ? [name] : [];
  });
  return mgr.cache.informer(ModelDeployments);
}

/**
 * Tracks each InferenceProviderConfig's heartbeat; `onChange` is told when a provider goes stale, comes back
 * or is deleted (with the config that changed, when there is one).
 */
async function watchProviderLiveness(
  mgr: Manager,
  opts: CoreControllerOptions,
  onChange: (provider: string, changed: InferenceProviderConfig | undefined) => void,
): Promise<void> {
  const liveness = new ProviderLiveness({
    now: opts.now ?? Date.now,
    ...(opts.heartbeatStaleAfterMs !== undefined ? { staleAfterMs: opts.heartbeatStaleAfterMs } : {}),
    onChange: (provider) => onChange(provider, undefined),
  });
  const ipcs = await mgr.cache.informer(InferenceProviderConfigs);
  const observe = (ipc: InferenceProviderConfig) => {
    if (liveness.observe(ipc)) onChange(ipc.metadata.name ?? '', ipc);
  };
  ipcs.addHandler({
    add: (o) => observe(o as InferenceProviderConfig),
    update: (_old, o) => observe(o as InferenceProviderConfig),
    delete: (o) => {
      liveness.forget(o.metadata.name ?? '');
      onChange(o.metadata.name ?? '', undefined);
    },
  });
  mgr.add({
    name: 'kubeairunway-core-liveness',
    needsLeaderElection: () => false,
    start: async () => {},
    stop: async () => liveness.stop(),
  });
}

/**
 * A newly chosen provider: counted in the selection metric; a change of provider is also an event, and
 * releases the finalizer of a dead provider that claimed the deployment but built nothing.
 */
async function reportSelection(
  ctx: ReconcileContext,
  md: ModelDeployment,
  previous: Partial<CoreStatus>,
  observed: CoreObservation,
  selections: Counter<'provider' | 'reason'>,
): Promise<void> {
  const { decision } = observed;
  const chosen = decision.selection?.provider;
  if (!chosen || chosen === previous.provider?.name || !decision.validation.ok) return;
  selections.inc({ provider: chosen, reason: decision.selection!.reason });
  // the first choice is in status (provider.selectedReason, the ProviderSelected condition); a change of
  // provider moves the deployment and is worth an event
  const was = previous.provider?.name;
  if (!was) return;
  ctx.recorder.event(md, 'Normal', 'ProviderSelected', `${decision.selection!.message} (was ${was})`);
  // a dead provider that had claimed the deployment but built nothing cannot drop its finalizer: the core
  // does, or deleting the deployment would wait for that provider forever
  if (observed.judgement.unbuilt) await releaseFinalizer(ctx.client, md, providerFinalizer(was), ctx.log);
}

/** one Warning per skipped CEL rule, once per object generation and rule, not on every reconcile */
function reportSkippedRules(
  ctx: ReconcileContext,
  md: ModelDeployment,
  skipped: CoreDecision['skippedRules'],
  reported: BoundedSet,
): void {
  for (const s of skipped) {
    const key = `${md.metadata.uid}/${md.metadata.generation}/${s.provider}/${s.rule}`;
    if (reported.add(key))
      ctx.recorder.event(
        md,
        'Warning',
        'SelectionRuleSkipped',
        `InferenceProviderConfig ${s.provider}: selection rule "${s.rule}" was skipped: ${s.error}`,
      );
  }
}

/** a set that forgets its oldest entries past `limit` */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly limit: number) {}
  /** true when `key` was not there yet */
  add(key: string): boolean {
    if (this.items.has(key)) return false;
    if (this.items.size >= this.limit) this.items.delete(this.items.values().next().value!);
    this.items.add(key);
    return true;
  }
}
