// The parts of NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1) the provider writes and reads.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { EnvVar } from '../../../../common/env-merge/index.ts';
import type { KubeCondition } from '../../../../engine/index.ts';

export const DYNAMO_API_VERSION = 'nvidia.com/v1alpha1';
export const DGD_KIND = 'DynamoGraphDeployment';
export const DGD_RESOURCE = 'dynamographdeployments';

/** Dynamo's component resources: cpu, memory, gpu (NVIDIA) and custom resource names */
export interface DynamoResourceAmounts {
  cpu?: string;
  memory?: string;
  gpu?: string;
  custom?: Record<string, string>;
}

export interface DynamoComponent {
  componentType?: string;
  subComponentType?: string;
  replicas?: number;
  envFromSecret?: string;
  envs?: EnvVar[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resources?: { requests?: DynamoResourceAmounts; limits?: DynamoResourceAmounts };
  extraPodSpec?: { mainContainer?: Record<string, unknown>; [field: string]: unknown };
  [field: string]: unknown;
}

export interface DynamoServiceStatus {
  replicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  [field: string]: unknown;
}

export interface DynamoGraphDeployment extends KubeObject {
  spec: { backendFramework?: string; services?: Record<string, DynamoComponent>; [field: string]: unknown };
  status?: {
    state?: string;
    message?: string;
    observedGeneration?: number;
    conditions?: KubeCondition[];
    services?: Record<string, DynamoServiceStatus>;
    endpoint?: { service?: string; port?: number };
    [field: string]: unknown;
  };
}

export const DynamoGraphDeployments = kindRef<DynamoGraphDeployment>(DYNAMO_API_VERSION, DGD_KIND);
