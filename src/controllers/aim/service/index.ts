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
  SHM_SIZE,
  servingEnv,
} from './inference-service.ts';
export {
  describeModel,
  isModelReady,
  MODEL_IMAGE_INDEX,
  type ModelMode,
  type ModelObject,
  type ModelObservation,
  modelHealth,
  modelImageIndex,
  modelMissing,
  modelMode,
  modelReference,
  servedImage,
} from './model.ts';
export { fetchServiceModel } from './model-fetch.ts';
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
  type DesiredService,
  describeRuntimeConfig,
  desireService,
  effectiveConfig,
  planService,
  type ServiceFetch,
  type ServiceObservation,
} from './plan.ts';
export {
  type AimServicePipelineOptions,
  type AimServiceStatus,
  aimServicePipeline,
  aimServiceReconciler,
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
