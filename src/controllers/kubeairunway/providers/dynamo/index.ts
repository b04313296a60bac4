// The Dynamo provider: a ModelDeployment becomes an nvidia.com/v1alpha1 DynamoGraphDeployment.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { builtinProvider } from '../common/index.ts';
import { translateDynamoOverrides } from './overrides.ts';
import { graphDeploymentStatus } from './status.ts';
import { graphDeploymentFor } from './transform.ts';
import { DGD_RESOURCE, type DynamoGraphDeployment, DynamoGraphDeployments } from './types.ts';

export * from './overrides.ts';
export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const dynamoProvider = builtinProvider<DynamoGraphDeployment>('dynamo', {
  upstream: DynamoGraphDeployments,
  upstreamResource: DGD_RESOURCE,
  transform: graphDeploymentFor,
  mapStatus: graphDeploymentStatus,
  overridePatch: (md: ModelDeployment) => translateDynamoOverrides(md.spec.provider?.overrides),
});
