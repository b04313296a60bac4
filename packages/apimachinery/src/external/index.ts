// The external projects' kinds modelplane writes or reads (KServe, Gateway API and its Inference Extension,
// KAITO, KubeRay, NVIDIA Dynamo, KEDA), typed once for the controllers and the simulators.

export type { DynamoComponent, DynamoGraphDeployment, DynamoResourceAmounts, DynamoServiceStatus } from './dynamo.ts';
export type { Gateway, GatewayListener, HTTPRoute, InferencePool, RouteParentStatus } from './gateway-api.ts';
export type { Workspace, WorkspaceInference, WorkspacePreset, WorkspaceResource, WorkspaceTemplate } from './kaito.ts';
export type { ScaledObject, ScaledObjectTrigger } from './keda.ts';
export type { InferenceService } from './kserve.ts';
export type {
  RayClusterConfig,
  RayPodTemplate,
  RayService,
  RayServiceStatusDetail,
  ServeApplicationStatus,
  ServeDeploymentStatus,
  WorkerGroupSpec,
} from './kuberay.ts';
