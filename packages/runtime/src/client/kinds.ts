// Kind references for the built-in kinds the runtime and its tests use, with just enough typing to be
// useful. API groups define their own kinds (src/apis/) with `kindRef<T>(apiVersion, kind)`.

import { type KubeObject, kindRef } from '../meta/types.ts';

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

export interface Namespace extends KubeObject {
  status?: { phase?: 'Active' | 'Terminating' };
}

export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: {
      kind: string;
      plural: string;
      singular?: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    scope: 'Namespaced' | 'Cluster';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema: Record<string, unknown> };
      subresources?: { status?: Record<string, never>; scale?: Record<string, unknown> };
      additionalPrinterColumns?: Array<Record<string, unknown>>;
    }>;
  };
  status?: {
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
    storedVersions?: string[];
  };
}

export const ConfigMaps = kindRef<ConfigMap>('v1', 'ConfigMap');
export const Secrets = kindRef<Secret>('v1', 'Secret');
export const Namespaces = kindRef<Namespace>('v1', 'Namespace');
export const Pods = kindRef<KubeObject>('v1', 'Pod');
export const Services = kindRef<KubeObject>('v1', 'Service');
export const ServiceAccounts = kindRef<KubeObject>('v1', 'ServiceAccount');
export const Deployments = kindRef<KubeObject>('apps/v1', 'Deployment');
export const Jobs = kindRef<KubeObject>('batch/v1', 'Job');
export const HorizontalPodAutoscalers = kindRef<KubeObject>('autoscaling/v2', 'HorizontalPodAutoscaler');
export const PersistentVolumeClaims = kindRef<KubeObject>('v1', 'PersistentVolumeClaim');
export const CustomResourceDefinitions = kindRef<CustomResourceDefinition>(
  'apiextensions.k8s.io/v1',
  'CustomResourceDefinition',
);
