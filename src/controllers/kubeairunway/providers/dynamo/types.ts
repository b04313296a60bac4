// The parts of NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1) the provider writes and reads.

import type {
  DynamoComponent,
  DynamoGraphDeployment,
  DynamoResourceAmounts,
  DynamoServiceStatus,
} from '@modelplane/apimachinery/external';
import { kindRef } from '@modelplane/runtime/meta';

export type { DynamoComponent, DynamoGraphDeployment, DynamoResourceAmounts, DynamoServiceStatus };

export const DYNAMO_API_VERSION = 'nvidia.com/v1alpha1';
export const DGD_KIND = 'DynamoGraphDeployment';
export const DGD_RESOURCE = 'dynamographdeployments';

export const DynamoGraphDeployments = kindRef<DynamoGraphDeployment>(DYNAMO_API_VERSION, DGD_KIND);
