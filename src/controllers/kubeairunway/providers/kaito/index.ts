// The KAITO provider: a ModelDeployment becomes a kaito.sh/v1beta1 Workspace.
import { DEFAULT_PROVIDER_SPECS } from '../../selection/default-providers.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../validation/index.ts';
import { type BuiltinProviderDefinition, PROVIDER_VERSION } from '../common/index.ts';
import { workspaceStatus } from './status.ts';
import { workspaceFor } from './transform.ts';
import { type Workspace, WORKSPACE_RESOURCE, Workspaces } from './types.ts';

export * from './status.ts';
export * from './transform.ts';
export * from './types.ts';

export const kaitoProvider: BuiltinProviderDefinition<Workspace> = {
  name: 'kaito',
  displayName: PROVIDER_DISPLAY_NAMES.kaito ?? 'KAITO',
  upstream: Workspaces,
  upstreamResource: WORKSPACE_RESOURCE,
  version: PROVIDER_VERSION,
  config: DEFAULT_PROVIDER_SPECS.kaito,
  transform: workspaceFor,
  mapStatus: workspaceStatus,
  // "KAITO currently has no supported overrides": every key is reported unknown by validation and ignored
  overridePatch: () => ({}),
};
