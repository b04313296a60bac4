// AIMModel / AIMClusterModel controllers (issue 7, minimal): runtime-config resolution and image check.
export { type AIMModelStatus, MODEL_FIELD_MANAGER, MODEL_RBAC_RULES, modelPipeline, modelReconciler, registerAimModelControllers } from './controller.ts';
export { INVALID_IMAGE_REFERENCE, modelHealth, modelImageHealth, modelRuntimeConfigHealth } from './health.ts';
