// Kind references for the external kinds the simulators reconcile (typed loosely: the simulators read and
// write their status generically), and the built-in kinds they create or read, typed by
// @modelplane/apimachinery/builtin.

import type { ObservedCondition } from '@modelplane/apimachinery';
import type {
  Container,
  ContainerStatus,
  Deployment,
  HorizontalPodAutoscaler,
  Job,
  Namespace,
  Node,
  Pod,
  PodSpec,
  PodTemplateSpec,
  Service,
} from '@modelplane/apimachinery/builtin';
import type {
  DynamoGraphDeployment,
  Gateway,
  HTTPRoute,
  InferencePool,
  InferenceService,
  RayService,
  ScaledObject,
  Workspace,
} from '@modelplane/apimachinery/external';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';

export type { Container, ContainerStatus, Deployment, Pod, PodSpec, Service };
export type PodTemplate = PodTemplateSpec;

/** a condition of an external kind's status (Knative-style ones carry a severity) */
export interface Condition extends ObservedCondition {
  severity?: string;
}

export type Json = Record<string, unknown>;

export interface WithStatus extends KubeObject {
  spec?: Json;
  status?: Json & { conditions?: Condition[] };
}

export const InferenceServices = kindRef<InferenceService & WithStatus>(
  'serving.kserve.io/v1beta1',
  'InferenceService',
);
export const GatewayClasses = kindRef<WithStatus>('gateway.networking.k8s.io/v1', 'GatewayClass');
export const Gateways = kindRef<Gateway & WithStatus>('gateway.networking.k8s.io/v1', 'Gateway');
export const HTTPRoutes = kindRef<HTTPRoute & WithStatus>('gateway.networking.k8s.io/v1', 'HTTPRoute');
export const ReferenceGrants = kindRef<WithStatus>('gateway.networking.k8s.io/v1beta1', 'ReferenceGrant');
export const InferencePools = kindRef<InferencePool & WithStatus>('inference.networking.k8s.io/v1', 'InferencePool');
export const Workspaces = kindRef<Workspace & WithStatus>('kaito.sh/v1beta1', 'Workspace');
export const DynamoGraphDeployments = kindRef<DynamoGraphDeployment & WithStatus>(
  'nvidia.com/v1alpha1',
  'DynamoGraphDeployment',
);
export const RayClusters = kindRef<WithStatus>('ray.io/v1', 'RayCluster');
export const RayServices = kindRef<RayService & WithStatus>('ray.io/v1', 'RayService');
export const ScaledObjects = kindRef<ScaledObject & WithStatus>('keda.sh/v1alpha1', 'ScaledObject');

export const SimDeployments = kindRef<Deployment>('apps/v1', 'Deployment');
export const SimPods = kindRef<Pod>('v1', 'Pod');
export const SimServices = kindRef<Service>('v1', 'Service');
export const SimNodes = kindRef<Node>('v1', 'Node');
export const SimNamespaces = kindRef<Namespace>('v1', 'Namespace');
export const SimJobs = kindRef<Job>('batch/v1', 'Job');
export const SimHPAs = kindRef<HorizontalPodAutoscaler>('autoscaling/v2', 'HorizontalPodAutoscaler');
