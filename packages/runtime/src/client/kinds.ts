// Kind references for the built-in kinds, typed with the generated built-in types of
// @modelplane/apimachinery/builtin (the one definition of each). API groups define their own kinds
// (src/apis/) with `kindRef<T>(apiVersion, kind)`.

import type {
  ConfigMap,
  CustomResourceDefinition,
  Deployment,
  HorizontalPodAutoscaler,
  Job,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from '@modelplane/apimachinery/builtin';
import { kindRef } from '../meta/types.ts';

export type { ConfigMap, CustomResourceDefinition, Namespace, Secret };

export const ConfigMaps = kindRef<ConfigMap>('v1', 'ConfigMap');
export const Secrets = kindRef<Secret>('v1', 'Secret');
export const Namespaces = kindRef<Namespace>('v1', 'Namespace');
export const Pods = kindRef<Pod>('v1', 'Pod');
export const Services = kindRef<Service>('v1', 'Service');
export const ServiceAccounts = kindRef<ServiceAccount>('v1', 'ServiceAccount');
export const Deployments = kindRef<Deployment>('apps/v1', 'Deployment');
export const Jobs = kindRef<Job>('batch/v1', 'Job');
export const HorizontalPodAutoscalers = kindRef<HorizontalPodAutoscaler>('autoscaling/v2', 'HorizontalPodAutoscaler');
export const PersistentVolumeClaims = kindRef<PersistentVolumeClaim>('v1', 'PersistentVolumeClaim');
export const CustomResourceDefinitions = kindRef<CustomResourceDefinition>(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
);
