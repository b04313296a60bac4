// The AIMClusterModelSource controller (docs/aim.md, "Model sources"): thin wiring of the fetch step
// (fetch.ts: the cached models, the registry listing once per sync interval), the pure evaluation and
// planner (evaluate.ts, plan.ts) and the engine. It follows its models (a deleted one comes back, as the
// source still offers it) and the runtime configs it resolves for label propagation.

import { type Controller, ignoreOwnStatusWrites, nonStatusChanged } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { ImageRegistry } from '@modelplane/runtime/registry';
import { type Clock, type DomainReconciler, Pipeline, pipelineReconciler, systemClock } from '../../../engine/index.ts';
import { type PolicyRule, READ, rule } from '../../rbac.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { type AIMClusterModelSource, AIMClusterModelSources, AIMClusterModels } from '../shared/kinds.ts';
import { runtimeConfigLabelPropagator } from '../shared/label-propagator.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import { type AimRuntimeConfig, aimRuntimeConfigSource, runtimeConfigHealth } from '../shared/runtime-config-source.ts';
import { evaluateSource, type SourceEvaluation } from './evaluate.ts';
import { type ModelSourceFetch, ModelSourceFetcher } from './fetch.ts';
import {
  decorateModelSourceStatus,
  existingModelsHealth,
  filtersHealth,
  type ModelSourceStatus,
  planModelSource,
} from './plan.ts';

export const MODEL_SOURCE_FIELD_MANAGER = 'aim-model-source-controller';
export const MODEL_SOURCE_CONTROLLER = 'aim-cluster-model-source';

export const MODEL_SOURCE_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimclustermodelsources'], READ),
  rule('aim.eai.amd.com', ['aimclustermodelsources/status'], ['patch']),
  rule('aim.eai.amd.com', ['aimclustermodels'], [...READ, 'create', 'patch']),
];

export interface ModelSourceObservation extends ModelSourceFetch {
  evaluation: SourceEvaluation;
}

export function modelSourceReconciler(
  fetcher: ModelSourceFetcher,
): DomainReconciler<
  AIMClusterModelSource,
  ModelSourceFetch,
  ModelSourceObservation,
  AimRuntimeConfig,
  ModelSourceStatus
> {
  return {
    fetchRemoteState: ({ object, reader }) => fetcher.fetch(object, reader),
    composeState: ({ object }, f) => ({ ...f, evaluation: evaluateSource(object, f.listing, f.existing) }),
    planResources: ({ object }, obs) => planModelSource(object, obs.evaluation, obs.nextSyncInMs),
    getComponentHealth: (obs, { runtimeConfig }) => [
      runtimeConfigHealth(runtimeConfig),
      filtersHealth(obs.evaluation),
      existingModelsHealth(obs.evaluation),
    ],
    decorateStatus: (status, cm, obs) => decorateModelSourceStatus(status, cm, obs.evaluation, obs.syncedAt),
  };
}

export interface ModelSourceControllerOptions {
  operatorNamespace: string;
  /** where repositories and tags are listed; none: every filter fails with a message saying so */
  registry?: ImageRegistry;
  clock?: Clock;
}

export function modelSourcePipeline(opts: ModelSourceControllerOptions, fetcher?: ModelSourceFetcher) {
  const clock = opts.clock ?? systemClock;
  return new Pipeline({
    name: MODEL_SOURCE_CONTROLLER,
    reconciler: modelSourceReconciler(fetcher ?? new ModelSourceFetcher(opts.registry, opts.operatorNamespace, clock)),
    // no runtimeConfigName on a source: the `default` config decides which of its labels reach its models
    runtimeConfig: aimRuntimeConfigSource<AIMClusterModelSource>(opts.operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    labelPropagators: [runtimeConfigLabelPropagator],
    observedGeneration: true,
    clock,
  });
}

export async function registerAimModelSourceController(
  mgr: Manager,
  opts: ModelSourceControllerOptions,
): Promise<Controller> {
  const fetcher = new ModelSourceFetcher(opts.registry, opts.operatorNamespace, opts.clock ?? systemClock);
  const pipeline = modelSourcePipeline(opts, fetcher);
  const builder = mgr
    .controller(MODEL_SOURCE_CONTROLLER)
    .for(AIMClusterModelSources, { predicates: [ignoreOwnStatusWrites(MODEL_SOURCE_FIELD_MANAGER)] })
    // created or deleted models, or edits to them; not their status
    .owns(AIMClusterModels, { predicates: [nonStatusChanged()] })
    .withOptions({ fieldManager: MODEL_SOURCE_FIELD_MANAGER, levelBased: true });
  await watchRuntimeConfigs(mgr, builder, AIMClusterModelSources, opts.operatorNamespace);
  const reconcile = pipelineReconciler(AIMClusterModelSources, pipeline);
  return builder.complete(async (req, ctx) => {
    if (!(await ctx.cache.get(AIMClusterModelSources, req.name))) fetcher.forget(req.name);
    return reconcile(req, ctx);
  });
}
