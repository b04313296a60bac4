// The parts of KAITO's Workspace (kaito.sh/v1beta1) the provider writes and reads. `resource` and
// `inference` sit at the root of the object, not under a spec.

import type {
  Workspace,
  WorkspaceInference,
  WorkspacePreset,
  WorkspaceResource,
  WorkspaceTemplate,
} from '@modelplane/apimachinery/external';
import { kindRef } from '@modelplane/runtime/meta';

export type { Workspace, WorkspaceInference, WorkspacePreset, WorkspaceResource, WorkspaceTemplate };

export const KAITO_API_VERSION = 'kaito.sh/v1beta1';
export const WORKSPACE_KIND = 'Workspace';
export const WORKSPACE_RESOURCE = 'workspaces';

export const Workspaces = kindRef<Workspace>(KAITO_API_VERSION, WORKSPACE_KIND);
