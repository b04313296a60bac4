// The llamastack.io API (LlamaStackDistribution v1alpha1 and v1alpha2): zod schemas, types, the CRD, the
// defaulting normalisation and the version conversion. See docs/llamastack.md.
export {
  CA_BUNDLE_KEY_PATTERN,
  LLS_API_VERSION_V1ALPHA1,
  LLS_API_VERSION_V1ALPHA2,
  LLS_CATEGORIES,
  LLS_CRD_NAME,
  LLS_GROUP,
  LLS_KIND,
  LLS_PLURAL,
  LLS_V1ALPHA1,
  LLS_V1ALPHA2,
  type LlamaStackPhase,
  PHASES,
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
} from './common.ts';
export { convertLlamaStackDistribution, specToV1Alpha1, specToV1Alpha2, toV1Alpha1, toV1Alpha2 } from './conversion.ts';
export {
  LLAMASTACK_CONVERSION_PATH,
  type LlamaStackDistribution,
  LlamaStackDistributions,
  LlamaStackDistributionsV1Alpha1,
  type LlamaStackDistributionV1Alpha1,
  llamaStackCrd,
} from './crd.ts';
export { needsNormalization, normalizeV1Alpha2Spec } from './normalize.ts';
export {
  type LlamaStackDistributionV1Alpha1Spec,
  type LlamaStackDistributionV1Alpha1Status,
  v1alpha1SpecSchema,
  v1alpha1StatusSchema,
} from './v1alpha1.ts';
export {
  DISABLEABLE_APIS,
  type LlamaStackDistributionSpec,
  type LlamaStackDistributionStatus,
  MAX_PROVIDERS_PER_SECTION,
  type ModelConfig,
  PROVIDER_ID_MAX,
  PROVIDER_SECTIONS,
  type ProviderConfig,
  type ProviderSection,
  providerConfigSchema,
  SECTION_API,
  v1alpha2SpecSchema,
  v1alpha2StatusSchema,
} from './v1alpha2.ts';
