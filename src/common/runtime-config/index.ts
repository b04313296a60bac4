/** AIM runtime configs: pure merge and resolution (docs/aim.md's "Resolution Model"); fetching is the caller's job. */
export { mergeRuntimeConfig, migrateDeprecatedFields } from './merge.ts';
export {
  DEFAULT_OPERATOR_NAMESPACE,
  operatorNamespaceFromEnv,
  type RuntimeConfigCandidates,
  type RuntimeConfigResolution,
  resolveRuntimeConfig,
  runtimeConfigLookupNamespace,
  runtimeConfigNameFor,
} from './resolve.ts';
export {
  CLUSTER_RUNTIME_CONFIG_KIND,
  DEFAULT_RUNTIME_CONFIG_NAME,
  type GatewayParentRef,
  type LabelPropagationConfig,
  type ResolvedRuntimeConfigRef,
  RUNTIME_CONFIG_KIND,
  type RuntimeConfigObject,
  type RuntimeConfigSpec,
  type RuntimeRoutingConfig,
  type RuntimeStorageConfig,
  type ServiceRuntimeConfig,
} from './types.ts';
