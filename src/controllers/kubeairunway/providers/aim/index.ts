// The AIM provider: a ModelDeployment asking for AMD GPUs becomes an aim.eai.amd.com/v1alpha1 AIMService.
import { builtinProvider } from '../common/index.ts';
import { translateAimOverrides } from './overrides.ts';
import { aimServiceStatus } from './status.ts';
import { aimServiceFor } from './transform.ts';
import { AIM_SERVICE_RESOURCE, type AIMService, AIMServices } from './types.ts';

export { AIM_OVERRIDE_KEYS, translateAimOverrides } from './overrides.ts';
export { aimServiceStatus } from './status.ts';
export { AIM_BASE_IMAGE, AIM_MODEL_ID_ENV, aimServiceFor } from './transform.ts';
export {
  AIM_SERVICE_API_VERSION,
  AIM_SERVICE_KIND,
  AIM_SERVICE_RESOURCE,
  type AIMService,
  AIMServices,
} from './types.ts';

export const aimProvider = builtinProvider<AIMService>('aim', {
  upstream: AIMServices,
  upstreamResource: AIM_SERVICE_RESOURCE,
  transform: aimServiceFor,
  mapStatus: aimServiceStatus,
  overridePatch: translateAimOverrides,
  // the AIMService caches its model itself (AIMTemplateCache)
  storage: false,
});
