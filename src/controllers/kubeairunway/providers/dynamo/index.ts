// The Dynamo provider: a ModelDeployment becomes an nvidia.com/v1alpha1 DynamoGraphDeployment.
import type { ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { DEFAULT_PROVIDER_SPECS } from '../../selection/default-providers.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../validation/index.ts';
import { type BuiltinProviderDefinition, PROVIDER_VERSION } from '../common/index.ts';
import { translateDynamoOverrides } from './overrides.ts';
import { graphDeploymentStatus } from './status.ts';
import { graphDeploymentFor } from './transform.ts';
import { DGD_RESOURCE, type DynamoGraphDeployment, DynamoGraphDeployments } from './types.ts';

export * from './overrides.ts';
export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const dynamoProvider: BuiltinProviderDefinition<DynamoGraphDeployment> = {
  name: 'dynamo',
  displayName: PROVIDER_DISPLAY_NAMES.dynamo ?? 'Dynamo',
  upstream: DynamoGraphDeployments,
  upstreamResource: DGD_RESOURCE,
  version: PROVIDER_VERSION,
  config: DEFAULT_PROVIDER_SPECS.dynamo,
  transform: graphDeploymentFor,
  mapStatus: graphDeploymentStatus,
  overridePatch: (md: ModelDeployment) => translateDynamoOverrides(md.spec.provider?.overrides),
};
