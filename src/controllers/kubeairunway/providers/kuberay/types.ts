// The parts of KubeRay's RayService (ray.io/v1) the provider writes and reads.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { KubeCondition } from '../../../../engine/index.ts';

export const RAY_API_VERSION = 'ray.io/v1';
export const RAYSERVICE_KIND = 'RayService';
export const RAYSERVICE_RESOURCE = 'rayservices';

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> };
}

export interface WorkerGroupSpec {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  rayStartParams?: Record<string, string>;
  template: PodTemplate;
}

export interface RayClusterConfig {
  headGroupSpec: { rayStartParams?: Record<string, string>; template: PodTemplate };
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
    conditions?: KubeCondition[];
    activeServiceStatus?: RayServiceStatusDetail;
    pendingServiceStatus?: RayServiceStatusDetail;
    [field: string]: unknown;
  };
}

export const RayServices = kindRef<RayService>(RAY_API_VERSION, RAYSERVICE_KIND);
