/** Shapes of the AIM runtime-config spec (AIMRuntimeConfigCommon) and of the AIMService's inline subset. */
import type { EnvVar } from '../env-merge/index.ts';

/** Gateway API ParentReference; treated as one value when merging (mixing two refs' fields would name a third gateway). */
export interface GatewayParentRef {
  name: string;
  namespace?: string;
  group?: string;
  kind?: string;
  sectionName?: string;
  port?: number;
}

export interface RuntimeStorageConfig {
  defaultStorageClassName?: string;
  pvcHeadroomPercent?: number;
  /** runtime configs only (not an AIMService's inline storage): the artifacts' PVC access mode */
  artifactAccessMode?: 'ReadWriteMany' | 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteOncePod';
}

export interface RuntimeRoutingConfig {
  enabled?: boolean;
  gatewayRef?: GatewayParentRef;
  pathTemplate?: string;
  requestTimeout?: string;
  annotations?: Record<string, string>;
}

export interface LabelPropagationConfig {
  enabled?: boolean;
  match?: string[];
}

/** The part of a runtime config an AIMService may carry inline. */
export interface ServiceRuntimeConfig {
  storage?: RuntimeStorageConfig;
  routing?: RuntimeRoutingConfig;
  env?: EnvVar[];
}

export interface RuntimeConfigSpec extends ServiceRuntimeConfig {
  model?: { autoDiscovery?: boolean };
  labelPropagation?: LabelPropagationConfig;
  /** Deprecated: moved into storage.defaultStorageClassName when that is unset. */
  defaultStorageClassName?: string;
  /** Deprecated: moved into storage.pvcHeadroomPercent when that is unset. */
  pvcHeadroomPercent?: number;
}

export const RUNTIME_CONFIG_KIND = 'AIMRuntimeConfig';
export const CLUSTER_RUNTIME_CONFIG_KIND = 'AIMClusterRuntimeConfig';
export const DEFAULT_RUNTIME_CONFIG_NAME = 'default';

/** A fetched AIMRuntimeConfig or AIMClusterRuntimeConfig, reduced to what resolution needs. */
export interface RuntimeConfigObject {
  metadata: { name: string; namespace?: string; uid?: string };
  spec?: RuntimeConfigSpec;
}

/** status.resolvedRuntimeConfig (AIMResolvedReference). */
export interface ResolvedRuntimeConfigRef {
  kind: typeof RUNTIME_CONFIG_KIND | typeof CLUSTER_RUNTIME_CONFIG_KIND;
  name: string;
  namespace: string;
  scope: 'Namespace' | 'Cluster';
  uid: string;
}
