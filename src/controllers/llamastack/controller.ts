// The thin LlamaStackDistribution controller: indexes and watches, then the pipeline. An object is
// reconciled when it changes, when a child changes (including the ReplicaSets its Deployment makes, which
// decide which ConfigMaps may go), when a ConfigMap it references and that is labelled to be watched
// changes, when the operator ConfigMap changes (image overrides), when a ModelDeployment or AIMService it
// takes an endpoint from changes, and every REFERENCE_RECHECK_MS while it references Secrets or ConfigMaps.
// The ConfigMap informers are label- or name-filtered and there is no Secret informer, so nothing cached
// grows with the cluster's other Secrets and ConfigMaps (docs/llamastack.md, "What the controller reads").

import type { IndexFunc } from '@modelplane/runtime/cache';
import {
  ConfigMaps,
  HorizontalPodAutoscalers,
  PersistentVolumeClaims,
  ServiceAccounts,
  Services,
} from '@modelplane/runtime/client';
import { type Controller, ignoreOwnStatusWrites } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, keyOf, objectKeyString } from '@modelplane/runtime/meta';
import { ModelDeployments } from '../../apis/kubeairunway/index.ts';
import {
  type LlamaStackDistribution,
  LlamaStackDistributions,
  normalizeV1Alpha2Spec,
} from '../../apis/llamastack/index.ts';
import { pipelineReconciler } from '../../engine/index.ts';
import { AIMServices } from '../aim/shared/kinds.ts';
import {
  Deployments,
  GENERATED_CONFIGMAPS,
  INSTANCE_LABEL,
  Ingresses,
  LLAMASTACK_CONTROLLER,
  NetworkPolicies,
  operatorConfigMapInformer,
  PodDisruptionBudgets,
  ReplicaSets,
  WATCHED_CONFIGMAPS,
} from './names.ts';
import { referencedEndpoints } from './observe.ts';
import type { OciConfigResolver } from './oci-resolver.ts';
import { llamaStackPipeline } from './reconciler.ts';
import { secretRefsOf } from './secret-refs.ts';
import type { ServiceUrl } from './server-health.ts';

/** LlamaStackDistributions by what they reference: `secret:ns/name`, `configmap:ns/name`, `ModelDeployment:ns/name`, `AIMService:ns/name` */
export const REFERENCES_INDEX = 'llamastack.io/references';

export const referencesIndex: IndexFunc = (obj) => {
  const cr = obj as LlamaStackDistribution;
  const ns = cr.metadata.namespace ?? '';
  const spec = normalizeV1Alpha2Spec(cr.spec ?? ({} as LlamaStackDistribution['spec']));
  const keys = new Set<string>();
  for (const r of secretRefsOf(spec)) keys.add(`secret:${ns}/${r.secret}`);
  if (spec.overrideConfig)
    keys.add(`configmap:${spec.overrideConfig.configMapNamespace ?? ns}/${spec.overrideConfig.configMapName}`);
  const ca = spec.networking?.tls?.caBundle;
  if (ca) keys.add(`configmap:${ca.configMapNamespace ?? ns}/${ca.configMapName}`);
  for (const r of referencedEndpoints(cr)) keys.add(`${r.kind}:${ns}/${r.name}`);
  return [...keys];
};

export interface LlamaStackControllerOptions {
  operatorNamespace: string;
  /** how often referenced Secrets and ConfigMaps are read again (default REFERENCE_RECHECK_MS) */
  recheckMs?: number;
  /** where the operator reaches a server's Service to read its health; unset: not read */
  serviceUrl?: ServiceUrl;
  /** reads base configs from image labels; unset: only the built-in base configs are used */
  ociResolver?: OciConfigResolver;
}

export async function registerLlamaStackController(
  mgr: Manager,
  opts: LlamaStackControllerOptions,
): Promise<Controller> {
  await mgr.cache.indexField(LlamaStackDistributions, REFERENCES_INDEX, referencesIndex);
  const all = await mgr.cache.informer(LlamaStackDistributions);
  const users = (prefix: string) => (o: KubeObject) =>
    all.store.byIndex(REFERENCES_INDEX, `${prefix}:${keyOf(o)}`).map(keyOf);
  // the operator ConfigMap concerns every object
  const everyObject = () => all.store.list().map(keyOf);
  const byInstanceLabel = (o: KubeObject) => {
    const instance = o.metadata.labels?.[INSTANCE_LABEL];
    return instance ? [objectKeyString(o.metadata.namespace, instance)] : [];
  };
  return mgr
    .controller(LLAMASTACK_CONTROLLER)
    .for(LlamaStackDistributions, { predicates: [ignoreOwnStatusWrites(LLAMASTACK_CONTROLLER)] })
    .owns(Deployments)
    .owns(Services)
    .owns(ServiceAccounts)
    .owns(ConfigMaps, { spec: GENERATED_CONFIGMAPS })
    .owns(PodDisruptionBudgets)
    .owns(HorizontalPodAutoscalers)
    .owns(NetworkPolicies)
    .owns(Ingresses)
    .watches(PersistentVolumeClaims, byInstanceLabel)
    .watches(ReplicaSets, byInstanceLabel)
    .watches(ConfigMaps, users('configmap'), { spec: WATCHED_CONFIGMAPS })
    .watches(ConfigMaps, everyObject, { spec: operatorConfigMapInformer(opts.operatorNamespace) })
    .watches(ModelDeployments, users('ModelDeployment'))
    .watches(AIMServices, users('AIMService'))
    .withOptions({ concurrency: 4, levelBased: true })
    .complete(
      pipelineReconciler(
        LlamaStackDistributions,
        llamaStackPipeline({
          operatorNamespace: opts.operatorNamespace,
          ...(opts.recheckMs !== undefined ? { recheckMs: opts.recheckMs } : {}),
          ...(opts.serviceUrl ? { serviceUrl: opts.serviceUrl } : {}),
          ...(opts.ociResolver ? { ociResolver: opts.ociResolver } : {}),
        }),
      ),
    );
}
