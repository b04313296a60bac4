// Names the Llama Stack controller gives things: its own name (also its field manager), labels,
// annotations, child object names and where the generated config is mounted (docs/llamastack.md).

import type { Deployment, Ingress, PodDisruptionBudget, ReplicaSet } from '@modelplane/apimachinery/builtin';
import type { InformerSpec } from '@modelplane/runtime/cache';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { LLS_GROUP, V1ALPHA1_FIELDS_ANNOTATION } from '../../apis/llamastack/index.ts';

export const LLAMASTACK_CONTROLLER = 'llamastack';
export const PAUSE_ANNOTATION = `${LLS_GROUP}/reconcile-paused`;
/** the operator ConfigMap (in the operator's namespace): `image-overrides` */
export const OPERATOR_CONFIGMAP = 'llama-stack-operator-config';
export const IMAGE_OVERRIDES_KEY = 'image-overrides';

export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
export const GENERATED_CONFIG_LABEL = `${LLS_GROUP}/generated-config`;
/** a referenced ConfigMap labelled `llamastack.io/watch: "true"` is watched: a change is seen at once */
export const WATCH_LABEL = `${LLS_GROUP}/watch`;

// The controller's ConfigMap informers: each holds only what it is filtered to, so no cache of the process
// grows with the cluster's other ConfigMaps (docs/llamastack.md, "What the controller reads"). Secrets have
// no informer at all: they are read by name.
/** the ConfigMaps the controller generates */
export const GENERATED_CONFIGMAPS: InformerSpec = { labelSelector: GENERATED_CONFIG_LABEL };
/** the generated-config label's value on the managed CA bundle (config.yaml ConfigMaps have "true") */
export const CA_BUNDLE_LABEL_VALUE = 'ca-bundle';
/** referenced ConfigMaps (override, CA bundle) their owners chose to have watched */
export const WATCHED_CONFIGMAPS: InformerSpec = { labelSelector: `${WATCH_LABEL}=true` };
/** the operator ConfigMap alone */
export const operatorConfigMapInformer = (namespace: string): InformerSpec => ({
  namespace,
  fieldSelector: `metadata.name=${OPERATOR_CONFIGMAP}`,
});
/** how often referenced Secrets and ConfigMaps are read again when nothing else brings the object back */
export const REFERENCE_RECHECK_MS = 60_000;
export const COMMON_LABELS = {
  'app.kubernetes.io/managed-by': 'llama-stack-operator',
  'app.kubernetes.io/part-of': 'llama-stack',
} as const;
/** pod-template annotations: a change of either rolls the pods */
export const CONFIG_HASH_ANNOTATION = `${LLS_GROUP}/config-hash`;
export const SECRET_HASH_ANNOTATION = `${LLS_GROUP}/secret-hash`;
export const CA_BUNDLE_HASH_ANNOTATION = `${LLS_GROUP}/ca-bundle-hash`;

export const CONTAINER_NAME = 'llama-stack';

/**
 * The server container's name: v1alpha1's `containerSpec.name` (kept through conversion in the
 * `llamastack.io/v1alpha1-fields` annotation), else `llama-stack`.
 */
export function containerNameOf(cr: KubeObject): string {
  const raw = cr.metadata.annotations?.[V1ALPHA1_FIELDS_ANNOTATION];
  if (!raw) return CONTAINER_NAME;
  try {
    const name = (JSON.parse(raw) as { containerName?: unknown }).containerName;
    return typeof name === 'string' && /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name) ? name : CONTAINER_NAME;
  } catch {
    return CONTAINER_NAME;
  }
}
export const CONFIG_DIR = '/etc/llama-stack';
export const CONFIG_PATH = `${CONFIG_DIR}/config.yaml`;
export const DEFAULT_MOUNT_PATH = '/.llama';
export const DEFAULT_STORAGE_SIZE = '10Gi';
export const CA_BUNDLE_DIR = '/etc/ssl/certs/ca-bundle';
/** generated ConfigMaps kept besides the ones the Deployment or its ReplicaSets still use */
export const CONFIGMAPS_KEPT = 2;

export const selectorLabels = (cr: string): Record<string, string> => ({ app: 'llama-stack', [INSTANCE_LABEL]: cr });
export const objectLabels = (cr: string): Record<string, string> => ({ ...COMMON_LABELS, ...selectorLabels(cr) });

export const serviceName = (cr: string) => `${cr}-service`;
export const pvcName = (cr: string) => `${cr}-pvc`;
export const pdbName = (cr: string) => `${cr}-pdb`;
export const hpaName = (cr: string) => `${cr}-hpa`;
export const networkPolicyName = (cr: string) => `${cr}-network-policy`;
export const ingressName = (cr: string) => `${cr}-ingress`;
export const serviceAccountName = (cr: string) => `${cr}-sa`;
export const caBundleConfigMapName = (cr: string) => `${cr}-ca-bundle`;
/** `{cr}-config-{sha256[:8]}` */
export const configMapName = (cr: string, hash: string) => `${cr}-config-${hash.slice(0, 8)}`;

export type { Deployment, Ingress, ReplicaSet };

export const Deployments = kindRef<Deployment>('apps/v1', 'Deployment');
export const ReplicaSets = kindRef<ReplicaSet>('apps/v1', 'ReplicaSet');
export const PodDisruptionBudgets = kindRef<PodDisruptionBudget>('policy/v1', 'PodDisruptionBudget');
export const NetworkPolicies = kindRef<KubeObject>('networking.k8s.io/v1', 'NetworkPolicy');
export const Ingresses = kindRef<Ingress>('networking.k8s.io/v1', 'Ingress');
