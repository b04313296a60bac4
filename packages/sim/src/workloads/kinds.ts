// The built-in kinds the workload simulators read and write: the generated types of
// @modelplane/apimachinery/builtin, with `spec` required on the kinds whose stored objects always have one
// (the API server defaults and validates it), so the simulators need not check it on every read.

import type { ObservedCondition } from '@modelplane/apimachinery';
import type * as builtin from '@modelplane/apimachinery/builtin';
import type { Endpoints, Node, Service, StorageClass } from '@modelplane/apimachinery/builtin';
import { kindRef } from '@modelplane/runtime/meta';

/** `sim.modelplane.io/fail` on a pod (or its template): which failure the simulators act out */
export const FAIL_ANNOTATION = 'sim.modelplane.io/fail';
/** `sim.modelplane.io/logs`: extra log lines (newline-separated) appended to each container's log */
export const LOGS_ANNOTATION = 'sim.modelplane.io/logs';
/** `sim.modelplane.io/fail-container`: limit a container failure to this (init or main) container */
export const FAIL_CONTAINER_ANNOTATION = 'sim.modelplane.io/fail-container';

export type ResourceList = Record<string, string>;

export interface WorkloadCondition extends ObservedCondition {
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
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

export type {
  Container,
  ContainerPort,
  ContainerState,
  ContainerStatus,
  EndpointAddress,
  EndpointSubset,
  Endpoints,
  LabelSelector,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  PodCondition,
  PodSpec,
  PodStatus,
  Service,
  ServicePort,
  StorageClass,
  Taint,
  Toleration,
  Volume,
} from '@modelplane/apimachinery/builtin';

/** a stored object of kind K: its spec is always there */
type Stored<K extends { spec?: unknown }> = K & { spec: NonNullable<K['spec']> };
/** a pod template as the workload controllers store it: its spec is always there */
export type PodTemplateSpec = builtin.PodTemplateSpec & { spec: builtin.PodSpec };
export type Pod = Stored<builtin.Pod>;
export type ReplicaSet = builtin.ReplicaSet & { spec: builtin.ReplicaSetSpec & { template: PodTemplateSpec } };
export type Deployment = builtin.Deployment & { spec: builtin.DeploymentSpec & { template: PodTemplateSpec } };
export type Job = builtin.Job & { spec: builtin.JobSpec & { template: PodTemplateSpec } };
export type PersistentVolumeClaim = Stored<builtin.PersistentVolumeClaim>;
export type PersistentVolume = Stored<builtin.PersistentVolume>;

/** a port or percentage, as Kubernetes' IntOrString */
export type IntOrString = number | string;
