// The KubeAIRunway core controller on the reconcile engine: fetch reads the InferenceProviderConfigs and
// CRDs from the cache, compose decides (planCoreStatus: validate, select), the planner creates nothing
// (the core never does) and the manual status hook writes only the fields docs/kubeairunway.md's ownership
// table gives the core, through the engine's one status-write path as `kubeairunway-core`. It has no finalizer
// (providers hold their own). The thin part here adds what is not a condition: the selection metric, an
// event when the provider changes, and one event per skipped CEL rule and generation.

import { CustomResourceDefinitions } from '@modelplane/runtime/client';
import { type Controller, nonStatusChanged } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { objectKeyString } from '@modelplane/runtime/meta';
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
import { type CoreDecision, type CoreJudgement, type CoreStatus, coreStatusFrom, judgeCore } from './plan.ts';

const UNSELECTED_INDEX = 'kubeairunway.ai/unselected';
const SELECTED_INDEX = 'kubeairunway.ai/core-selected-provider';
/** while nothing can be selected, look again this often: provider heartbeats go stale without any event */
const RESELECT_AFTER_MS = 30_000;

export interface CoreControllerOptions {
  heartbeatStaleAfterMs?: number;
  now?: () => number;
}

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
  // a ModelDeployment still waiting for a provider is what a provider or CRD change can unblock
  await mgr.cache.indexField(ModelDeployments, UNSELECTED_INDEX, (o) =>
    (o as { status?: { provider?: { name?: string } } }).status?.provider?.name ? [] : ['true'],
  );
  await mgr.cache.indexField(ModelDeployments, SELECTED_INDEX, (o) => {
    const name = (o as { status?: { provider?: { name?: string } } }).status?.provider?.name;
    return name ? [name] : [];
  });
  const mds = await mgr.cache.informer(ModelDeployments);
  const keysOf = (list: readonly { metadata: { namespace?: string; name?: string } }[]) =>
    list.map((md) => objectKeyString(md.metadata.namespace, md.metadata.name!));
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
  const owned = (provider: string) => keysOf(mds.store.byIndex(SELECTED_INDEX, provider));
  const liveness = new ProviderLiveness({
    now: opts.now ?? Date.now,
    ...(opts.heartbeatStaleAfterMs !== undefined ? { staleAfterMs: opts.heartbeatStaleAfterMs } : {}),
    onChange: (provider) => controller?.enqueueChange(owned(provider), undefined),
  });
  const ipcs = await mgr.cache.informer(InferenceProviderConfigs);
  const observe = (ipc: InferenceProviderConfig) => {
    if (liveness.observe(ipc)) controller?.enqueueChange(owned(ipc.metadata.name ?? ''), ipc);
  };
  ipcs.addHandler({
    add: (o) => observe(o as InferenceProviderConfig),
    update: (_old, o) => observe(o as InferenceProviderConfig),
    delete: (o) => {
      liveness.forget(o.metadata.name ?? '');
      controller?.enqueueChange(owned(o.metadata.name ?? ''), undefined);
    },
  });
  mgr.add({
    name: 'kubeairunway-core-liveness',
    needsLeaderElection: () => false,
    start: async () => {},
    stop: async () => liveness.stop(),
  });

  controller = mgr
    .controller(CORE_FIELD_MANAGER)
    // the decision depends on the object outside its status (spec, the pause annotation, labels, finalizers,
    // deletion) and the core's own status fields: providers' status writes cannot change it, and
    // reconciling on each of them doubled the core's work
    .for(ModelDeployments, { predicates: [nonStatusChanged()] })
    .watches(InferenceProviderConfigs, unselected)
    .watches(CustomResourceDefinitions, unselected)
    .withOptions({ concurrency: 4, levelBased: true })
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
      const decision = (outcome.observation as CoreObservation | undefined)?.decision;
      const chosen = decision?.selection?.provider;
      if (outcome.statusWritten && decision && chosen && chosen !== previous.provider?.name && decision.validation.ok) {
        selections.inc({ provider: chosen, reason: decision.selection!.reason });
        // the first choice is in status (provider.selectedReason, the ProviderSelected condition); a
        // change of provider moves the deployment and is worth an event
        if (previous.provider?.name)
          ctx.recorder.event(
            md,
            'Normal',
            'ProviderSelected',
            `${decision.selection!.message} (was ${previous.provider.name})`,
          );
        // a dead provider that had claimed the deployment but built nothing cannot drop its finalizer: the
        // core does, or deleting the deployment would wait for that provider forever
        const observed = outcome.observation as CoreObservation | undefined;
        if (previous.provider?.name && observed?.judgement.unbuilt)
          await releaseFinalizer(ctx.client, md, providerFinalizer(previous.provider.name), ctx.log);
      }
      for (const s of decision?.skippedRules ?? []) {
        // once per object generation and rule, not on every reconcile
        const key = `${md.metadata.uid}/${md.metadata.generation}/${s.provider}/${s.rule}`;
        if (reported.add(key))
          ctx.recorder.event(
            md,
            'Warning',
            'SelectionRuleSkipped',
            `InferenceProviderConfig ${s.provider}: selection rule "${s.rule}" was skipped: ${s.error}`,
          );
      }
      return toResult(outcome);
    });
  return controller;
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
