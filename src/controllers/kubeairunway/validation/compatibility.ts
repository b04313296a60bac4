// Provider compatibility (docs/kubeairunway.md: "validated by provider controllers, not core"): each provider controller
// calls checkProviderCompatibility with its own name and surfaces the result as ProviderCompatible=False.
// The core never calls it, keeping "core has zero provider knowledge". Messages are docs/kubeairunway.md's, exactly.
import type { EngineType, ModelDeploymentSpec } from '../../../apis/kubeairunway/index.ts';
import { AMD_GPU_TYPE, type BuiltinProvider } from '../../../apis/kubeairunway/index.ts';
import { DEFAULT_PROVIDER_SPECS } from '../selection/default-providers.ts';
import { servingModeOf } from './defaults.ts';

/** the name each provider's messages use */
export const PROVIDER_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  kaito: 'KAITO',
  dynamo: 'Dynamo',
  kuberay: 'KubeRay',
  aim: 'AIM',
  llmd: 'llm-d',
};

interface ProviderLimits {
  engines: readonly EngineType[];
  requiresGpu: boolean;
  disaggregated: boolean;
}

const LIMITS: Readonly<Record<string, ProviderLimits>> = {
  kaito: { engines: ['vllm', 'llamacpp'], requiresGpu: false, disaggregated: false },
  dynamo: { engines: ['vllm', 'sglang', 'trtllm'], requiresGpu: true, disaggregated: true },
  kuberay: { engines: ['vllm'], requiresGpu: true, disaggregated: true },
  // AIM serves vLLM images on AMD Instinct GPUs, one AIMService per deployment
  aim: { engines: ['vllm'], requiresGpu: true, disaggregated: false },
  // plain vLLM Deployments, one per deployment (disaggregated serving needs an operator)
  llmd: { engines: ['vllm'], requiresGpu: true, disaggregated: false },
};

/** whether the deployment asks for any GPU: top level, or (disaggregated) on prefill or decode */
export function requestsGpu(spec: ModelDeploymentSpec): boolean {
  if ((spec.resources?.gpu?.count ?? 0) > 0) return true;
  if (servingModeOf(spec) !== 'disaggregated') return false;
  return (spec.scaling?.prefill?.gpu?.count ?? 0) > 0 || (spec.scaling?.decode?.gpu?.count ?? 0) > 0;
}

/**
 * docs/kubeairunway.md's compatibility messages for `provider` (empty when compatible, or when the provider is not one
 * modelplane ships). A missing engine.type is the core's validation error, not an incompatibility.
 */
export function checkProviderCompatibility(provider: string, spec: ModelDeploymentSpec): string[] {
  const limits = LIMITS[provider];
  if (!limits) return [];
  const who = PROVIDER_DISPLAY_NAMES[provider] ?? provider;
  const out: string[] = [];
  const engine = spec.engine?.type;
  if (engine && !limits.engines.includes(engine)) out.push(`${who} does not support ${engine} engine`);
  if (limits.requiresGpu && !requestsGpu(spec)) out.push(`${who} requires GPU`);
  if (!limits.disaggregated && servingModeOf(spec) === 'disaggregated')
    out.push(`${who} does not support disaggregated mode`);
  if (provider === 'kaito' && engine === 'llamacpp' && !spec.image)
    out.push('llamacpp engine requires spec.image to be set');
  if (provider === 'aim' && requestsGpu(spec) && (spec.resources?.gpu?.type ?? '') !== AMD_GPU_TYPE) {
    out.push(`AIM requires AMD GPUs (set resources.gpu.type to ${AMD_GPU_TYPE})`);
  }
  if (
    spec.scaling?.replicas === 0 &&
    servingModeOf(spec) !== 'disaggregated' &&
    DEFAULT_PROVIDER_SPECS[provider as BuiltinProvider]?.capabilities?.zeroReplicas !== true
  )
    out.push(
      `${who} cannot run 0 replicas (it always runs at least one serving pod): set spec.scaling.replicas to 1 or more, or use a provider that runs 0 replicas`,
    );
  out.push(...storageIncompatibilities(provider, spec));
  return out;
}

/** where spec.model.storage cannot be mounted (docs/kubeairunway.md, "Model storage") */
function storageIncompatibilities(provider: string, spec: ModelDeploymentSpec): string[] {
  if (!spec.model?.storage?.volumes?.length) return [];
  if (provider === 'aim')
    return [
      'AIM caches model weights itself (AIMTemplateCache): remove spec.model.storage, or choose another provider',
    ];
  if (provider === 'kaito' && spec.engine?.type === 'vllm')
    return [
      "KAITO's vLLM preset manages its own pods and model files, so spec.model.storage cannot be mounted: use the llamacpp engine on KAITO, or another provider",
    ];
  return [];
}
