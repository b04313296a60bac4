// KubeRay's RayService (ray.io/v1). Typed once for the controllers that write them and the simulators that stand in for
// their operators; only the fields modelplane reads or writes are typed, the objects are the API server's JSON.

import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

export interface RayPodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> };
}

export interface WorkerGroupSpec {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  rayStartParams?: Record<string, string>;
  template: RayPodTemplate;
}

export interface RayClusterConfig {
  headGroupSpec: { rayStartParams?: Record<string, string>; template: RayPodTemplate };
  workerGroupSpecs?: WorkerGroupSpec[];
  [field: string]: unknown;
}

export interface ServeDeploymentStatus {
  status?: string;
  message?: string;
}

export interface ServeApplicationStatus {
  status?: string;
  message?: string;
  serveDeploymentStatuses?: Record<string, ServeDeploymentStatus>;
}

export interface RayServiceStatusDetail {
  rayClusterName?: string;
  rayClusterStatus?: {
    readyWorkerReplicas?: number;
    availableWorkerReplicas?: number;
    desiredWorkerReplicas?: number;
    [field: string]: unknown;
  };
  applicationStatuses?: Record<string, ServeApplicationStatus>;
}

export interface RayService extends KubeObject {
  spec: { serveConfigV2?: string; rayClusterConfig?: RayClusterConfig; [field: string]: unknown };
  status?: {
    serviceStatus?: string;
    numServeEndpoints?: number;
    observedGeneration?: number;
    conditions?: ObservedCondition[];
    activeServiceStatus?: RayServiceStatusDetail;
    pendingServiceStatus?: RayServiceStatusDetail;
    [field: string]: unknown;
  };
}
