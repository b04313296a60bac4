// The AIM provider: a ModelDeployment asking for AMD GPUs becomes an aim.eai.amd.com/v1alpha1 AIMService.
import { DEFAULT_PROVIDER_SPECS } from '../../selection/default-providers.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../validation/index.ts';
import { type BuiltinProviderDefinition, PROVIDER_VERSION } from '../common/index.ts';
import { translateAimOverrides } from './overrides.ts';
import { aimServiceStatus } from './status.ts';
import { aimServiceFor } from './transform.ts';
import { AIM_SERVICE_RESOURCE, type AIMService, AIMServices } from './types.ts';

export * from './overrides.ts';
export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const aimProvider: BuiltinProviderDefinition<AIMService> = {
  name: 'aim',
  displayName: PROVIDER_DISPLAY_NAMES.aim ?? 'AIM',
  upstream: AIMServices,
  upstreamResource: AIM_SERVICE_RESOURCE,
  version: PROVIDER_VERSION,
  config: DEFAULT_PROVIDER_SPECS.aim,
  transform: aimServiceFor,
  mapStatus: aimServiceStatus,
  overridePatch: translateAimOverrides,
};
