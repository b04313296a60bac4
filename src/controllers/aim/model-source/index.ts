// AIMClusterModelSource: registry listing, filters, semver constraints, maxModels, append-only models.
export {
  MODEL_SOURCE_CONTROLLER,
  MODEL_SOURCE_FIELD_MANAGER,
  MODEL_SOURCE_RBAC_RULES,
  type ModelSourceControllerOptions,
  modelSourcePipeline,
  registerAimModelSourceController,
} from './controller.ts';
export { evaluateSource, type RegistryListing, type SourceEvaluation } from './evaluate.ts';
export { listRegistry, ModelSourceFetcher, syncIntervalMs } from './fetch.ts';
export { parseFilter } from './filters.ts';
export { clusterModelName, MODEL_SOURCE_LABEL, planModelSource } from './plan.ts';
