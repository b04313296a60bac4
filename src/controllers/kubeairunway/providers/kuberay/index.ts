// The KubeRay provider: a ModelDeployment becomes a ray.io/v1 RayService running Ray Serve LLM.
import { builtinProvider } from '../common/index.ts';
import { translateKubeRayOverrides } from './overrides.ts';
import { rayServiceStatus } from './status.ts';
import { rayServiceFor } from './transform.ts';
import { RAYSERVICE_RESOURCE, type RayService, RayServices } from './types.ts';

export * from './overrides.ts';
export * from './serve-config.ts';
export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const kuberayProvider = builtinProvider<RayService>('kuberay', {
  upstream: RayServices,
  upstreamResource: RAYSERVICE_RESOURCE,
  transform: rayServiceFor,
  mapStatus: rayServiceStatus,
  overridePatch: translateKubeRayOverrides,
});
