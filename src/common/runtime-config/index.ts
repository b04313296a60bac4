/** AIM runtime configs: pure merge and resolution (the seed's "Resolution Model"); fetching is the caller's job. */
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
export * from './types.ts';
