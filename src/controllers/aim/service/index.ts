// The AIMService controller (docs/aim.md): an AIMService becomes a KServe InferenceService and, when routing
// is enabled, a Gateway API HTTPRoute, configured by the resolved runtime config.
export { GATEWAY_API_GROUP, type HTTPRoute, HTTPRoutes, type InferenceService, InferenceServices } from './children.ts';
export {
  type AimServiceControllerOptions,
  modelKeys,
  registerAimServiceController,
  SERVICE_MODEL_INDEX,
  serviceModelIndex,
} from './controller.ts';
export { inspectHTTPRoute, inspectInferenceService, serviceHealth } from './health.ts';
export {
  buildInferenceService,
  type InferenceServiceInput,
  OPERATOR_DEFAULT_SERVING_ENV,
  PREDICTOR_CONTAINER,
  PREDICTOR_PORT,
  servingEnv,
  SHM_SIZE,
} from './inference-service.ts';
export {
  describeModel,
  fetchServiceModel,
  isModelReady,
  MODEL_IMAGE_INDEX,
  modelHealth,
  modelImageIndex,
  modelMissing,
  type ModelMode,
  modelMode,
  type ModelObject,
  type ModelObservation,
  modelReference,
  retainDeletedModel,
  servedImage,
} from './model.ts';
export {
  AIM_SERVICE_CONTROLLER,
  autoModelName,
  COMPONENT_LABEL,
  httpRouteName,
  inferenceServiceName,
  labelValueFor,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MODEL_LABEL,
  PAUSE_ANNOTATION,
  PREDICTOR_SERVICE_PORT,
  PREDICTOR_SUFFIX,
  predictorServiceName,
  SERVICE_LABEL,
  shortHash,
} from './names.ts';
export {
  buildAutoModel,
  describeRuntimeConfig,
  type DesiredService,
  desireService,
  effectiveConfig,
  planService,
  type ServiceFetch,
  type ServiceObservation,
} from './plan.ts';
export {
  aimServicePipeline,
  type AimServicePipelineOptions,
  aimServiceReconciler,
  type AimServiceStatus,
  serviceState,
} from './reconciler.ts';
export {
  AUTOSCALER_CLASS_ANNOTATION,
  kedaHpaName,
  OTEL_INJECT_ANNOTATION,
  PROMETHEUS_PORT_ANNOTATION,
  type ReplicaPlan,
  replicaPlan,
  runtimeStatus,
} from './replicas.ts';
export { buildHTTPRoute, planRouting, type RoutingInput, type RoutingPlan, servedPath } from './routing.ts';
