// The llm-d provider: plain vLLM Deployments, a Service and (where served) an InferencePool, no CRD
// (requiresCRD: false), registered and run like the others (`modelplane provider llmd`, alias `llm-d`).
import { Deployments } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { builtinProvider } from '../common/index.ts';
import { inferencePoolObject } from './pool.ts';
import { vllmDeploymentStatus } from './status.ts';
import { vllmDeploymentFor, vllmServiceFor } from './transform.ts';

export { EPP_PORT, poolName, vllmInferencePoolFor } from './pool.ts';
export { vllmDeploymentStatus } from './status.ts';
export { VLLM_CONTAINER, VLLM_IMAGE, VLLM_PORT, vllmDeploymentFor, vllmServiceFor } from './transform.ts';

export const llmdProvider = {
  ...builtinProvider<KubeObject>('llmd', {
    upstream: Deployments,
    upstreamResource: 'deployments',
    transform: vllmDeploymentFor,
    mapStatus: vllmDeploymentStatus,
    // no documented overrides: every key is unknown (a Warning), none reaches the pod spec
    overridePatch: () => ({}),
  }),
  extraObjects: (md: Parameters<typeof vllmServiceFor>[0]) => [vllmServiceFor(md)],
  extraResources: [{ group: '', resource: 'services' }],
  optionalObjects: [inferencePoolObject],
};
