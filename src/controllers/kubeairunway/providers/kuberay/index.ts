// The KubeRay provider: a ModelDeployment becomes a ray.io/v1 RayService running Ray Serve LLM.
import { builtinProvider } from '../common/index.ts';
import { translateKubeRayOverrides } from './overrides.ts';
import { rayServiceStatus } from './status.ts';
import { rayServiceFor } from './transform.ts';
import { RAYSERVICE_RESOURCE, type RayService, RayServices } from './types.ts';

export { translateKubeRayOverrides } from './overrides.ts';
export { AGGREGATED_APP, argvToKwargs, DISAGGREGATED_APP, SERVE_APP_NAME, serveConfigFor } from './serve-config.ts';
export { rayServiceStatus, serveFailureMessage, serveServiceName } from './status.ts';
export {
  DEFAULT_WORKER_MEMORY,
  HEAD_CONTAINER,
  HEAD_RESOURCES,
  HEAD_START_PARAMS,
  headContainer,
  RAY_IMAGE,
  rayImage,
  rayServiceFor,
  SERVE_PORT,
  WORKER_CONTAINER,
} from './transform.ts';
export {
  type PodTemplate,
  RAY_API_VERSION,
  RAYSERVICE_KIND,
  RAYSERVICE_RESOURCE,
  type RayClusterConfig,
  type RayService,
  type RayServiceStatusDetail,
  RayServices,
  type ServeApplicationStatus,
  type ServeDeploymentStatus,
  type WorkerGroupSpec,
} from './types.ts';

export const kuberayProvider = builtinProvider<RayService>('kuberay', {
  upstream: RayServices,
  upstreamResource: RAYSERVICE_RESOURCE,
  operatorSelector: 'app.kubernetes.io/name=kuberay-operator',
  transform: rayServiceFor,
  mapStatus: rayServiceStatus,
  overridePatch: translateKubeRayOverrides,
});
