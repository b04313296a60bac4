// The KAITO provider: a ModelDeployment becomes a kaito.sh/v1beta1 Workspace.
import { builtinProvider } from '../common/index.ts';
import { workspaceStatus } from './status.ts';
import { workspaceFor } from './transform.ts';
import { WORKSPACE_RESOURCE, type Workspace, Workspaces } from './types.ts';

export { KAITO_SERVICE_PORT, workspaceStatus } from './status.ts';
export { GGUF_URL_ARG, KAITO_INFERENCE_PORT, LLAMACPP_CONTAINER, workspaceFor } from './transform.ts';
export {
  KAITO_API_VERSION,
  WORKSPACE_KIND,
  WORKSPACE_RESOURCE,
  type Workspace,
  type WorkspaceInference,
  type WorkspacePreset,
  type WorkspaceResource,
  Workspaces,
  type WorkspaceTemplate,
} from './types.ts';

export const kaitoProvider = builtinProvider<Workspace>('kaito', {
  upstream: Workspaces,
  upstreamResource: WORKSPACE_RESOURCE,
  operatorSelector: 'app.kubernetes.io/name=workspace',
  transform: workspaceFor,
  mapStatus: workspaceStatus,
  // "KAITO currently has no supported overrides": every key is reported unknown by validation and ignored
  overridePatch: () => ({}),
});
