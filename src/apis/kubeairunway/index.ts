// The kubeairunway.ai/v1alpha1 API (docs/kubeairunway.md): ModelDeployment and InferenceProviderConfig as zod schemas,
// the TypeScript types inferred from them, well-known names, and the CRDs generated from the schemas.
import type { CustomResourceDefinition } from '../../kube/kinds.ts';
import { modelDeploymentCrd } from './model-deployment.ts';
import { inferenceProviderConfigCrd } from './provider-config.ts';

export { AMD_GPU_TYPE, BUILTIN_PROVIDERS, type BuiltinProvider, CONDITION_PROVIDER_COMPATIBLE, CONDITION_PROVIDER_SELECTED, CONDITION_READY, CONDITION_RESOURCE_CREATED, CONDITION_TYPES, CONDITION_VALIDATED, CORE_FIELD_MANAGER, DEFAULT_GPU_TYPE, ENGINE_TYPE_LABEL, ENGINE_TYPES, type EngineType, FINALIZER_CLEANUP_TIMEOUT_MS, INFERENCE_PROVIDER_CONFIG_KIND, INFERENCE_PROVIDER_CONFIG_PLURAL, isReconcilePaused, KAR_API_VERSION, KAR_CATEGORIES, KAR_GROUP, KAR_VERSION, LABEL_PREFIX, MANAGED_BY_LABEL, MANAGED_BY_VALUE, MODEL_DEPLOYMENT_KIND, MODEL_DEPLOYMENT_LABEL, MODEL_DEPLOYMENT_PLURAL, MODEL_ID_LABEL, MODEL_SOURCE_LABEL, MODEL_SOURCES, type ModelDeploymentPhase, type ModelSource, PHASES, providerFieldManager, providerFinalizer, RECONCILE_PAUSED_ANNOTATION, SERVING_MODES, type ServingMode } from './common.ts';
export { type ComponentScaling, componentScalingSchema, engineSchema, gpuSchema, type GpuSpec, type ModelDeployment, modelDeploymentCrd, ModelDeployments, type ModelDeploymentSpec, modelDeploymentSpecSchema, type ModelDeploymentStatus, modelDeploymentStatusSchema, modelSchema, providerSpecSchema, resourcesSchema, scalingSchema, servingSchema, type Toleration, tolerationSchema } from './model-deployment.ts';
export { type EngineCapability, engineCapabilitySchema, HEARTBEAT_INTERVAL_MS, HEARTBEAT_STALE_AFTER_MS, type InferenceProviderConfig, inferenceProviderConfigCrd, InferenceProviderConfigs, type InferenceProviderConfigSpec, type InferenceProviderConfigStatus, providerConfigSpecSchema, providerConfigStatusSchema, type SelectionRule, selectionRuleSchema } from './provider-config.ts';

/** every CRD of the kubeairunway.ai group, provider configs first (the core needs them to select) */
export function kubeairunwayCrds(): CustomResourceDefinition[] {
  return [inferenceProviderConfigCrd(), modelDeploymentCrd()];
}
