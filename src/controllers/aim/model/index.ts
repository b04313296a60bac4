// AIMModel / AIMClusterModel controllers: runtime config, image metadata, templates, state from the templates.
export {
  type AIMModelStatus,
  MODEL_FIELD_MANAGER,
  MODEL_RBAC_RULES,
  type ModelControllerOptions,
  modelPipeline,
  modelReconciler,
  registerAimModelControllers,
} from './controller.ts';
export { INVALID_IMAGE_REFERENCE, modelHealth, modelImageHealth, modelRuntimeConfigHealth } from './health.ts';
export { fetchImageMetadata, metadataHealth } from './metadata.ts';
export {
  MODEL_LABEL,
  plannedTemplates,
  TEMPLATE_MODEL_INDEX,
  templateModelIndex,
  templatesHealth,
} from './templates.ts';
