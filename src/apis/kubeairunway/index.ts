// The kubeairunway.ai/v1alpha1 API (seed 003): ModelDeployment and InferenceProviderConfig as zod schemas,
// the TypeScript types inferred from them, well-known names, and the CRDs generated from the schemas.
import type { CustomResourceDefinition } from '../../kube/kinds.ts';
import { modelDeploymentCrd } from './model-deployment.ts';
import { inferenceProviderConfigCrd } from './provider-config.ts';

export * from './common.ts';
export * from './model-deployment.ts';
export * from './provider-config.ts';

/** every CRD of the kubeairunway.ai group, provider configs first (the core needs them to select) */
export function kubeairunwayCrds(): CustomResourceDefinition[] {
  return [inferenceProviderConfigCrd(), modelDeploymentCrd()];
}
