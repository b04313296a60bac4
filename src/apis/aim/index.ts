// The aim.eai.amd.com/v1alpha1 API: zod schemas (types, parsing) and the CRDs generated from them.
import type { CustomResourceDefinition } from '@modelplane/apimachinery/builtin';
import { artifactCrd, templateCacheCrd } from './cache.ts';
import { clusterModelCrd, modelCrd } from './model.ts';
import { clusterModelSourceCrd } from './model-source.ts';
import { clusterRuntimeConfigCrd, runtimeConfigCrd } from './runtime-config.ts';
import { serviceCrd } from './service.ts';
import { clusterTemplateCrd, templateCrd } from './template.ts';

export {
  type AIMArtifactSpec,
  type AIMArtifactStatus,
  type AIMTemplateCacheSpec,
  type AIMTemplateCacheStatus,
  artifactCrd,
  artifactSpecSchema,
  artifactStatusSchema,
  CACHE_MODES,
  type CacheMode,
  cacheArtifactStatusSchema,
  templateCacheCrd,
  templateCacheSpecSchema,
  templateCacheStatusSchema,
} from './cache.ts';
export {
  type AIMHardware,
  type AIMModelSourceSpec,
  type AIMProfile,
  CATALOG_STATUSES,
  type CatalogStatus,
  DEFAULT_GPU_RESOURCE,
  hardwareSchema,
  METRICS,
  MODEL_ID_PATTERN,
  metricSchema,
  modelSourceSchema,
  PRECISIONS,
  precisionSchema,
  profileSchema,
  runtimeParametersShape,
  SOURCE_URI_PATTERN,
  TEMPLATE_TYPES,
  templateTypeSchema,
} from './catalog-shared.ts';
export {
  AIM_API_VERSION,
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  conditionSchema,
  envListSchema,
  envVarSchema,
  localObjectReferenceSchema,
  quantitySchema,
  readyColumn,
  resolvedReferenceSchema,
  resolvedRuntimeConfigSchema,
  resourceRequirementsSchema,
} from './common.ts';
export {
  type AIMClusterModelSpec,
  type AIMCustomTemplate,
  type AIMImageMetadata,
  type AIMModelSpec,
  type AIMModelStatus,
  type AIMRecommendedDeployment,
  clusterModelCrd,
  clusterModelSpecSchema,
  customTemplateSchema,
  imageMetadataSchema,
  MODEL_STATUSES,
  modelCrd,
  modelSpecSchema,
  modelStatusSchema,
  ORIGIN_AUTO_GENERATED,
  ORIGIN_LABEL,
  recommendedDeploymentSchema,
} from './model.ts';
export {
  type AIMClusterModelSourceFilter,
  type AIMClusterModelSourceSpec,
  type AIMClusterModelSourceStatus,
  clusterModelSourceCrd,
  clusterModelSourceSpecSchema,
  clusterModelSourceStatusSchema,
  MODEL_SOURCE_STATUSES,
  modelSourceFilterSchema,
} from './model-source.ts';
export {
  type ClusterRuntimeConfigSpec,
  clusterRuntimeConfigCrd,
  clusterRuntimeConfigSpecSchema,
  gatewayParentRefSchema,
  labelPropagationSchema,
  type NamespaceRuntimeConfigSpec,
  type RuntimeConfigStatus,
  routingConfigSchema,
  runtimeConfigCrd,
  runtimeConfigSpecSchema,
  runtimeConfigStatusSchema,
  serviceRuntimeConfigShape,
  storageConfigSchema,
} from './runtime-config.ts';
export {
  type AIMServiceSpec,
  type AIMServiceStatus,
  type AIMServiceStatusValue,
  customModelSchema,
  MODEL_EXACTLY_ONE_MESSAGE,
  SERVICE_CACHING_MODES,
  SERVICE_STATUSES,
  serviceCrd,
  serviceModelSchema,
  serviceSpecSchema,
  serviceStatusSchema,
} from './service.ts';
export {
  type AIMClusterServiceTemplateSpec,
  type AIMServiceTemplateSpec,
  type AIMServiceTemplateStatus,
  clusterTemplateCrd,
  clusterTemplateSpecSchema,
  templateCrd,
  templateSpecSchema,
  templateStatusSchema,
} from './template.ts';

/** every CRD of the aim.eai.amd.com group, in install order (configs before their consumers) */
export function aimCrds(): CustomResourceDefinition[] {
  return [
    clusterRuntimeConfigCrd(),
    runtimeConfigCrd(),
    clusterModelSourceCrd(),
    clusterModelCrd(),
    modelCrd(),
    clusterTemplateCrd(),
    templateCrd(),
    templateCacheCrd(),
    artifactCrd(),
    serviceCrd(),
  ];
}
