// The parts of KubeRay's RayService (ray.io/v1) the provider writes and reads.

import type { RayService } from '@modelplane/apimachinery/external';
import { kindRef } from '@modelplane/runtime/meta';

export type {
  RayClusterConfig,
  RayPodTemplate as PodTemplate,
  RayService,
  RayServiceStatusDetail,
  ServeApplicationStatus,
  ServeDeploymentStatus,
  WorkerGroupSpec,
} from '@modelplane/apimachinery/external';

export const RAY_API_VERSION = 'ray.io/v1';
export const RAYSERVICE_KIND = 'RayService';
export const RAYSERVICE_RESOURCE = 'rayservices';

export const RayServices = kindRef<RayService>(RAY_API_VERSION, RAYSERVICE_KIND);
