// The parts of KAITO's Workspace (kaito.sh/v1beta1) the provider writes and reads. `resource` and
// `inference` sit at the root of the object, not under a spec.

import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import type { KubeCondition } from '../../../../engine/index.ts';

export const KAITO_API_VERSION = 'kaito.sh/v1beta1';
export const WORKSPACE_KIND = 'Workspace';
export const WORKSPACE_RESOURCE = 'workspaces';

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
  status?: { state?: string; conditions?: KubeCondition[]; workerNodes?: string[] };
}

export const Workspaces = kindRef<Workspace>(KAITO_API_VERSION, WORKSPACE_KIND);
