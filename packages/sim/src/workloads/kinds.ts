// The built-in kinds the workload simulators read and write, typed only as far as they use them. The
// objects are the API server's JSON; timestamps stay strings.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';

/** `sim.modelplane.io/fail` on a pod (or its template): which failure the simulators act out */
export const FAIL_ANNOTATION = 'sim.modelplane.io/fail';
/** `sim.modelplane.io/logs`: extra log lines (newline-separated) appended to each container's log */
export const LOGS_ANNOTATION = 'sim.modelplane.io/logs';
/** `sim.modelplane.io/fail-container`: limit a container failure to this (init or main) container */
export const FAIL_CONTAINER_ANNOTATION = 'sim.modelplane.io/fail-container';

export type ResourceList = Record<string, string>;

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  ports?: ContainerPort[];
  resources?: { requests?: ResourceList; limits?: ResourceList };
  readinessProbe?: Record<string, unknown>;
  startupProbe?: Record<string, unknown>;
  terminationMessagePolicy?: string;
}

export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: string;
}

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' | string;
}

export interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [source: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: {
    nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] } };
  };
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  schedulerName?: string;
  schedulingGates?: Array<{ name: string }>;
  volumes?: Volume[];
  overhead?: ResourceList;
  hostname?: string;
  subdomain?: string;
}

export interface PodTemplateSpec {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: {
    exitCode: number;
    reason?: string;
    message?: string;
    startedAt?: string;
    finishedAt?: string;
    containerID?: string;
  };
}

export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: Array<{ ip: string }>;
  podIP?: string;
  podIPs?: Array<{ ip: string }>;
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: PodStatus;
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: Taint[]; podCIDR?: string; podCIDRs?: string[] };
  status?: {
    capacity?: ResourceList;
    allocatable?: ResourceList;
    addresses?: Array<{ type: string; address: string }>;
    conditions?: PodCondition[];
  };
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

export interface WorkloadCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
}

export interface ReplicaSet extends KubeObject {
  spec: { replicas?: number; minReadySeconds?: number; selector: LabelSelector; template: PodTemplateSpec };
  status?: {
    replicas: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: WorkloadCondition[];
  };
}

export type IntOrString = number | string;

export interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    strategy?: {
      type?: 'RollingUpdate' | 'Recreate';
      rollingUpdate?: { maxSurge?: IntOrString; maxUnavailable?: IntOrString };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    paused?: boolean;
    progressDeadlineSeconds?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    collisionCount?: number;
    conditions?: WorkloadCondition[];
  };
}

export interface Job extends KubeObject {
  spec: {
    template: PodTemplateSpec;
    parallelism?: number;
    completions?: number;
    backoffLimit?: number;
    activeDeadlineSeconds?: number;
    ttlSecondsAfterFinished?: number;
    completionMode?: 'NonIndexed' | 'Indexed';
    suspend?: boolean;
    selector?: LabelSelector;
  };
  status?: {
    startTime?: string;
    completionTime?: string;
    active?: number;
    ready?: number;
    terminating?: number;
    succeeded?: number;
    failed?: number;
    completedIndexes?: string;
    conditions?: WorkloadCondition[];
    uncountedTerminatedPods?: Record<string, unknown>;
  };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec: {
    storageClassName?: string | null;
    accessModes?: string[];
    resources?: { requests?: ResourceList };
    volumeName?: string;
    volumeMode?: string;
  };
  status?: { phase?: 'Pending' | 'Bound' | 'Lost'; accessModes?: string[]; capacity?: ResourceList };
}

export interface PersistentVolume extends KubeObject {
  spec: {
    capacity?: ResourceList;
    accessModes?: string[];
    storageClassName?: string;
    volumeMode?: string;
    persistentVolumeReclaimPolicy?: 'Delete' | 'Retain' | 'Recycle';
    claimRef?: {
      apiVersion?: string;
      kind?: string;
      name: string;
      namespace: string;
      uid?: string;
      resourceVersion?: string;
    };
    [source: string]: unknown;
  };
  status?: {
    phase?: 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed';
    message?: string;
    lastPhaseTransitionTime?: string;
  };
}

export interface StorageClass extends KubeObject {
  provisioner: string;
  reclaimPolicy?: 'Delete' | 'Retain';
  volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
  parameters?: Record<string, string>;
}

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: IntOrString;
  protocol?: string;
}

export interface Service extends KubeObject {
  spec?: {
    selector?: Record<string, string>;
    ports?: ServicePort[];
    type?: string;
    clusterIP?: string;
    publishNotReadyAddresses?: boolean;
  };
}

export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  hostname?: string;
  targetRef?: { kind: string; name: string; namespace: string; uid?: string };
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: Array<{ name?: string; port: number; protocol?: string }>;
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

export const Pods = kindRef<Pod>('v1', 'Pod');
export const Nodes = kindRef<Node>('v1', 'Node');
export const ReplicaSets = kindRef<ReplicaSet>('apps/v1', 'ReplicaSet');
export const Deployments = kindRef<Deployment>('apps/v1', 'Deployment');
export const Jobs = kindRef<Job>('batch/v1', 'Job');
export const PersistentVolumeClaims = kindRef<PersistentVolumeClaim>('v1', 'PersistentVolumeClaim');
export const PersistentVolumes = kindRef<PersistentVolume>('v1', 'PersistentVolume');
export const StorageClasses = kindRef<StorageClass>('storage.k8s.io/v1', 'StorageClass');
export const Services = kindRef<Service>('v1', 'Service');
export const EndpointsKind = kindRef<Endpoints>('v1', 'Endpoints');
