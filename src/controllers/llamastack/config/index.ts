// Config generation for LlamaStackDistribution: distributions and their base configs, the pure generator,
// secret → environment mapping. See docs/llamastack.md.
export { ConfigGenerationError, type ConfigGenerationReason } from './errors.ts';
export {
  CONFIG_KEY,
  CONFIGMAP_MAX_BYTES,
  configVersionOf,
  DEFAULT_PORT,
  type GeneratedConfig,
  type GenerateInput,
  generateConfig,
  hasDeclarativeConfig,
  SUPPORTED_CONFIG_VERSIONS,
} from './generate.ts';
export {
  expandProvider,
  type ProviderEntry,
  providerId,
  providerType,
  type ResolvedEndpoints,
  refOf,
} from './providers.ts';
export {
  type ConfigResolver,
  DISTRIBUTION_NAMES,
  DISTRIBUTIONS,
  EmbeddedConfigResolver,
  embeddedBaseConfig,
  type ImageOverrides,
  type ImageResolution,
  isImageReference,
  parseImageOverrides,
  type ResolvedBase,
  resolveImage,
  unknownDistributionMessage,
} from './registry.ts';
export { envSegment, SecretCollector, type SecretRefUse, secretEnvName } from './secrets.ts';
export { SCHEMA_VERSIONS, serverConfigError } from './server-schema.ts';
export { deterministicYaml, sha256Hex } from './yaml.ts';
