// Kind references for the external kinds the simulators reconcile, and the few built-in kinds they
// create or read, with just enough typing for the fields they touch.

import { type KubeObject, kindRef, type LabelSelectorObject } from '@modelplane/runtime/meta';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  severity?: string;
}

export type Json = Record<string, unknown>;

export interface WithStatus extends KubeObject {
  spec?: Json;
  status?: Json & { conditions?: Condition[] };
}

export interface Container extends Json {
  name: string;
  image?: string;
  ports?: Array<{ containerPort: number; name?: string; protocol?: string }>;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  env?: Array<Json & { name: string }>;
}

export interface PodSpec extends Json {
  containers: Container[];
  initContainers?: Container[];
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: PodSpec;
}

export interface Deployment extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelectorObject; template?: PodTemplate } & Json;
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: {
    waiting?: { reason?: string; message?: string };
    running?: Json;
    terminated?: { reason?: string; message?: string; exitCode?: number };
  };
  lastState?: { terminated?: { reason?: string; message?: string; exitCode?: number } };
}

export interface Pod extends KubeObject {
  spec?: PodSpec & { nodeName?: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    podIP?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface Service extends KubeObject {
  spec?: {
    clusterIP?: string;
    ports?: Array<{ port: number; name?: string }>;
    selector?: Record<string, string>;
  } & Json;
}

export const InferenceServices = kindRef<WithStatus>('serving.kserve.io/v1beta1', 'InferenceService');
export const GatewayClasses = kindRef<WithStatus>('gateway.networking.k8s.io/v1', 'GatewayClass');
export const Gateways = kindRef<WithStatus>('gateway.networking.k8s.io/v1', 'Gateway');
export const HTTPRoutes = kindRef<WithStatus>('gateway.networking.k8s.io/v1', 'HTTPRoute');
export const ReferenceGrants = kindRef<WithStatus>('gateway.networking.k8s.io/v1beta1', 'ReferenceGrant');
export const InferencePools = kindRef<WithStatus>('inference.networking.k8s.io/v1', 'InferencePool');
export const Workspaces = kindRef<WithStatus>('kaito.sh/v1beta1', 'Workspace');
export const DynamoGraphDeployments = kindRef<WithStatus>('nvidia.com/v1alpha1', 'DynamoGraphDeployment');
export const RayClusters = kindRef<WithStatus>('ray.io/v1', 'RayCluster');
export const RayServices = kindRef<WithStatus>('ray.io/v1', 'RayService');
export const ScaledObjects = kindRef<WithStatus>('keda.sh/v1alpha1', 'ScaledObject');

export const SimDeployments = kindRef<Deployment>('apps/v1', 'Deployment');
export const SimPods = kindRef<Pod>('v1', 'Pod');
export const SimServices = kindRef<Service>('v1', 'Service');
export const SimNodes = kindRef<KubeObject & { status?: { allocatable?: Record<string, string> } }>('v1', 'Node');
export const SimNamespaces = kindRef<KubeObject>('v1', 'Namespace');
export const SimJobs = kindRef<
  KubeObject & {
    spec?: Json;
    status?: { succeeded?: number; failed?: number; active?: number; conditions?: Condition[] };
  }
>('batch/v1', 'Job');
export const SimHPAs = kindRef<KubeObject & { spec?: Json; status?: Json }>(
  'autoscaling/v2',
  'HorizontalPodAutoscaler',
);
