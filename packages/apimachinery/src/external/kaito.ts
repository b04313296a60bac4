// KAITO's Workspace (kaito.sh/v1beta1): `resource` and `inference` sit at the root of the object. Typed once for the controllers that write them and the simulators that stand in for
// their operators; only the fields modelplane reads or writes are typed, the objects are the API server's JSON.

import type { ObservedCondition } from '../conditions.ts';
import type { KubeObject } from '../meta.ts';

export interface WorkspaceResource {
  count?: number;
  instanceType?: string;
  labelSelector?: { matchLabels?: Record<string, string> };
  preferredNodes?: string[];
}

export interface WorkspacePreset {
  name: string;
  accessMode?: 'public' | 'private';
  presetOptions?: { image?: string; imagePullSecrets?: string[]; modelAccessSecret?: string };
}

export interface WorkspaceTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> };
}

export interface WorkspaceInference {
  preset?: WorkspacePreset;
  template?: WorkspaceTemplate;
  config?: string;
}

export interface Workspace extends KubeObject {
  resource?: WorkspaceResource;
  inference?: WorkspaceInference;
  status?: { state?: string; conditions?: ObservedCondition[]; workerNodes?: string[] };
}
