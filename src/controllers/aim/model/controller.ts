// The AIMModel (namespaced) and AIMClusterModel (cluster) controllers: one skeleton, run once per scope.
// For now a model resolves its runtime config (cluster-scoped models look namespaced configs up in the
// operator namespace) and checks its image; it creates nothing yet (the template catalogue is a later issue).
import type { ResolvedRuntimeConfigRef } from '../../../common/runtime-config/index.ts';
import { type DomainReconciler, type EngineStatus, Pipeline, PlanResult, pipelineReconciler } from '../../../engine/index.ts';
import { type Controller, ignoreOwnStatusWrites, type KindRef, type Manager } from '../../../kube/index.ts';
import { type PolicyRule, READ, rule } from '../../rbac.ts';
import { watchRuntimeConfigs } from '../shared/config-watches.ts';
import { type AIMClusterModel, AIMClusterModels, type AIMModel, AIMModels } from '../shared/kinds.ts';
import { AIM_PAUSE_ANNOTATIONS } from '../shared/reconcile-paused.ts';
import { type AimRuntimeConfig, aimRuntimeConfigSource, resolvedRuntimeConfigRef } from '../shared/runtime-config-source.ts';
import { modelHealth } from './health.ts';

export const MODEL_FIELD_MANAGER = 'aim-model-controller';

/** what the two controllers read and write (status by server-side apply = PATCH) */
export const MODEL_RBAC_RULES: readonly PolicyRule[] = [
  rule('aim.eai.amd.com', ['aimmodels', 'aimclustermodels', 'aimruntimeconfigs', 'aimclusterruntimeconfigs'], READ),
  rule('aim.eai.amd.com', ['aimmodels/status', 'aimclustermodels/status'], ['patch']),
];

type AnyModel = AIMModel | AIMClusterModel;

/** the status fields this controller owns (status.status is Pending|Progressing|Ready|Degraded|Failed|NotAvailable) */
export interface AIMModelStatus extends EngineStatus {
  status?: string;
  observedGeneration?: number;
  resolvedRuntimeConfig?: ResolvedRuntimeConfigRef;
}
type Fetched = Record<string, never>;

export const modelReconciler: DomainReconciler<AnyModel, Fetched, Fetched, AimRuntimeConfig, AIMModelStatus> = {
  // the runtime config is the only read, and the engine does it through the RuntimeConfigSource
  fetchRemoteState: async () => ({}),
  planResources: () => new PlanResult(),
  getComponentHealth: (_obs, { object, runtimeConfig }) => modelHealth(object, runtimeConfig),
  decorateStatus(status, _cm, _obs, { runtimeConfig }) {
    const ref = resolvedRuntimeConfigRef(runtimeConfig, status.resolvedRuntimeConfig);
    if (ref) status.resolvedRuntimeConfig = ref;
    else delete status.resolvedRuntimeConfig;
  },
};

export function modelPipeline(operatorNamespace: string, name = 'aim-model'): Pipeline<AnyModel, Fetched, Fetched, AimRuntimeConfig, AIMModelStatus> {
  return new Pipeline({
    name,
    reconciler: modelReconciler,
    runtimeConfig: aimRuntimeConfigSource<AnyModel>(operatorNamespace),
    pauseAnnotation: AIM_PAUSE_ANNOTATIONS,
    observedGeneration: true,
  });
}

const VARIANTS: ReadonlyArray<{ kind: KindRef<AnyModel>; controllerName: string }> = [
  { kind: AIMModels, controllerName: 'aim-model' },
  { kind: AIMClusterModels, controllerName: 'aim-cluster-model' },
];

/** Registers the AIMModel and AIMClusterModel controllers; both re-reconcile when a config they resolve changes. */
export async function registerAimModelControllers(mgr: Manager, opts: { operatorNamespace: string }): Promise<Controller[]> {
  const controllers: Controller[] = [];
  for (const v of VARIANTS) {
    const builder = mgr
      .controller(v.controllerName)
      .for(v.kind, { predicates: [ignoreOwnStatusWrites(MODEL_FIELD_MANAGER)] })
      .withOptions({ fieldManager: MODEL_FIELD_MANAGER, levelBased: true });
    await watchRuntimeConfigs(mgr, builder, v.kind, opts.operatorNamespace);
    controllers.push(builder.complete(pipelineReconciler(v.kind, modelPipeline(opts.operatorNamespace, v.controllerName))));
  }
  return controllers;
}
