// Names shared by the kubeairunway.ai kinds and every controller that handles them: group/version, the
// well-known labels and annotations, finalizers and field managers. docs/kubeairunway.md spells the prefix
// `kubeairunway.ai/` (upstream later renamed it to airunway.ai); we keep docs/kubeairunway.md's spelling everywhere.

export const KAR_GROUP = 'kubeairunway.ai';
export const KAR_VERSION = 'v1alpha1';
export const KAR_API_VERSION = `${KAR_GROUP}/${KAR_VERSION}`;
export const KAR_CATEGORIES = ['kubeairunway', 'all'];

export const MODEL_DEPLOYMENT_KIND = 'ModelDeployment';
export const MODEL_DEPLOYMENT_PLURAL = 'modeldeployments';
export const INFERENCE_PROVIDER_CONFIG_KIND = 'InferenceProviderConfig';
export const INFERENCE_PROVIDER_CONFIG_PLURAL = 'inferenceproviderconfigs';

/** only labels under this prefix are copied from a ModelDeployment onto its provider resource */
export const LABEL_PREFIX = `${KAR_GROUP}/`;
export const MANAGED_BY_LABEL = `${KAR_GROUP}/managed-by`;
export const MANAGED_BY_VALUE = 'kubeairunway';
/** links pods and provider resources back to their ModelDeployment (value: the MD name) */
export const MODEL_DEPLOYMENT_LABEL = `${KAR_GROUP}/model-deployment`;
export const ENGINE_TYPE_LABEL = `${KAR_GROUP}/engine-type`;
export const MODEL_SOURCE_LABEL = `${KAR_GROUP}/model-source`;
export const MODEL_ID_LABEL = `${KAR_GROUP}/model-id`;

/** `"true"` stops core and provider reconciliation of that ModelDeployment until removed */
export const RECONCILE_PAUSED_ANNOTATION = `${KAR_GROUP}/reconcile-paused`;

export function isReconcilePaused(annotations: Record<string, string> | undefined): boolean {
  return annotations?.[RECONCILE_PAUSED_ANNOTATION] === 'true';
}

/** each provider holds its own finalizer on the ModelDeployment while its resource exists */
export function providerFinalizer(provider: string): string {
  return `${KAR_GROUP}/${provider}-provider`;
}

/** server-side-apply field managers: the status ownership table is enforced through these */
export const CORE_FIELD_MANAGER = 'kubeairunway-core';
export function providerFieldManager(provider: string): string {
  return `${provider}-provider`;
}

/** how long a provider keeps trying to delete its resource before dropping its finalizer (docs/kubeairunway.md: 5 minutes) */
export const FINALIZER_CLEANUP_TIMEOUT_MS = 5 * 60_000;

export const ENGINE_TYPES = ['vllm', 'sglang', 'trtllm', 'llamacpp'] as const;
export type EngineType = (typeof ENGINE_TYPES)[number];
export const SERVING_MODES = ['aggregated', 'disaggregated'] as const;
export type ServingMode = (typeof SERVING_MODES)[number];
export const MODEL_SOURCES = ['huggingface', 'custom'] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

export const STORAGE_PURPOSES = ['modelCache', 'compilationCache', 'custom'] as const;
export const STORAGE_ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteMany', 'ReadOnlyMany', 'ReadWriteOncePod'] as const;

export const DEFAULT_GPU_TYPE = 'nvidia.com/gpu';
export const AMD_GPU_TYPE = 'amd.com/gpu';

/** the providers modelplane ships; others may register an InferenceProviderConfig of their own */
export const BUILTIN_PROVIDERS = ['aim', 'dynamo', 'kaito', 'kuberay', 'llmd'] as const;
export type BuiltinProvider = (typeof BUILTIN_PROVIDERS)[number];

export const PHASES = ['Pending', 'Deploying', 'Running', 'Failed', 'Terminating'] as const;
export type ModelDeploymentPhase = (typeof PHASES)[number];

export const CONDITION_VALIDATED = 'Validated';
export const CONDITION_PROVIDER_SELECTED = 'ProviderSelected';
export const CONDITION_PROVIDER_COMPATIBLE = 'ProviderCompatible';
export const CONDITION_RESOURCE_CREATED = 'ResourceCreated';
export const CONDITION_READY = 'Ready';
/** owned by the gateway controller: the deployment is (or is not) reachable through the shared Gateway */
export const CONDITION_GATEWAY_READY = 'GatewayReady';
/** on a Gateway: route ModelDeployments through this one when the cluster has several */
export { INFERENCE_GATEWAY_LABEL } from '@modelplane/apimachinery/wellknown';
export const GATEWAY_FIELD_MANAGER = 'kubeairunway-gateway';
export const CONDITION_TYPES = [
  CONDITION_VALIDATED,
  CONDITION_PROVIDER_SELECTED,
  CONDITION_PROVIDER_COMPATIBLE,
  CONDITION_RESOURCE_CREATED,
  CONDITION_READY,
] as const;
