// NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1). Typed once for the controllers that write them and the simulators that stand in for
// their operators; only the fields modelplane reads or writes are typed, the objects are the API server's JSON.

import type { EnvVar } from '../builtin/kinds.generated.ts';
import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

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
    conditions?: ObservedCondition[];
    services?: Record<string, DynamoServiceStatus>;
    endpoint?: { service?: string; port?: number };
    [field: string]: unknown;
  };
}
