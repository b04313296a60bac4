// The KubeRay provider: a ModelDeployment becomes a ray.io/v1 RayService running Ray Serve LLM.
import { DEFAULT_PROVIDER_SPECS } from '../../selection/default-providers.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../validation/index.ts';
import { type BuiltinProviderDefinition, PROVIDER_VERSION } from '../common/index.ts';
import { translateKubeRayOverrides } from './overrides.ts';
import { rayServiceStatus } from './status.ts';
import { rayServiceFor } from './transform.ts';
import { RAYSERVICE_RESOURCE, type RayService, RayServices } from './types.ts';

export * from './overrides.ts';
export * from './serve-config.ts';
export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const kuberayProvider: BuiltinProviderDefinition<RayService> = {
  name: 'kuberay',
  displayName: PROVIDER_DISPLAY_NAMES.kuberay ?? 'KubeRay',
  upstream: RayServices,
  upstreamResource: RAYSERVICE_RESOURCE,
  version: PROVIDER_VERSION,
  config: DEFAULT_PROVIDER_SPECS.kuberay,
  transform: rayServiceFor,
  mapStatus: rayServiceStatus,
  overridePatch: translateKubeRayOverrides,
};
