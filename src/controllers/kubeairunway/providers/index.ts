// The providers modelplane ships, as ProviderDefinitions for the provider skeleton (../provider/): each is
// pure (transform, mapStatus, overridePatch) and built from the shared admission logic (../validation/) and
// the default InferenceProviderConfigs (../selection/default-providers.ts).
import type { BuiltinProvider } from '../../../apis/kubeairunway/index.ts';
import { aimProvider } from './aim/index.ts';
import type { BuiltinProviderDefinition } from './common/index.ts';
import { dynamoProvider } from './dynamo/index.ts';
import { kaitoProvider } from './kaito/index.ts';
import { kuberayProvider } from './kuberay/index.ts';
import { llmdProvider } from './llmd/index.ts';

export { aimProvider } from './aim/index.ts';
export type { BuiltinProviderDefinition } from './common/index.ts';
export { dynamoProvider, translateDynamoOverrides } from './dynamo/index.ts';
export { kaitoProvider } from './kaito/index.ts';
export { kuberayProvider, translateKubeRayOverrides } from './kuberay/index.ts';
export { llmdProvider } from './llmd/index.ts';

/** every built-in provider by name; the KubeObject type parameter is erased so they fit one map */
export const BUILTIN_PROVIDER_DEFINITIONS: Readonly<Record<BuiltinProvider, BuiltinProviderDefinition>> = {
  aim: aimProvider as unknown as BuiltinProviderDefinition,
  dynamo: dynamoProvider as unknown as BuiltinProviderDefinition,
  kaito: kaitoProvider as unknown as BuiltinProviderDefinition,
  kuberay: kuberayProvider as unknown as BuiltinProviderDefinition,
  llmd: llmdProvider as unknown as BuiltinProviderDefinition,
};
