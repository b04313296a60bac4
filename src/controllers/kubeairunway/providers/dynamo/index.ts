// The Dynamo provider: a ModelDeployment becomes an nvidia.com/v1alpha1 DynamoGraphDeployment.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { builtinProvider } from '../common/index.ts';
import { translateDynamoOverrides } from './overrides.ts';
import { graphDeploymentStatus } from './status.ts';
import { graphDeploymentFor } from './transform.ts';
import { DGD_RESOURCE, type DynamoGraphDeployment, DynamoGraphDeployments } from './types.ts';

export { translateDynamoOverrides } from './overrides.ts';
export { graphDeploymentStatus } from './status.ts';
export {
  AGGREGATED_WORKER,
  DECODE_WORKER,
  DEFAULT_ROUTER_MODE,
  DYNAMO_VERSION,
  FRONTEND_PORT,
  FRONTEND_RESOURCES,
  FRONTEND_SERVICE,
  frontendEnv,
  graphDeploymentFor,
  PREFILL_WORKER,
  ROUTER_MODE_ENV,
  runtimeImage,
} from './transform.ts';
export {
  DGD_KIND,
  DGD_RESOURCE,
  DYNAMO_API_VERSION,
  type DynamoComponent,
  type DynamoGraphDeployment,
  DynamoGraphDeployments,
  type DynamoResourceAmounts,
  type DynamoServiceStatus,
} from './types.ts';

export const dynamoProvider = builtinProvider<DynamoGraphDeployment>('dynamo', {
  upstream: DynamoGraphDeployments,
  upstreamResource: DGD_RESOURCE,
  operatorSelector: 'app.kubernetes.io/name=dynamo-operator',
  transform: graphDeploymentFor,
  mapStatus: graphDeploymentStatus,
  overridePatch: (md: ModelDeployment) => translateDynamoOverrides(md.spec.provider?.overrides),
});
