// The InferenceProviderConfig each shipped provider registers at startup: its capabilities and the CEL rules
// that make the core pick it. Priorities follow upstream (docs/kubeairunway.md); the worked outcomes are
// CPU → kaito, 1 GPU vLLM → dynamo, ≥2 GPUs vLLM → kuberay, sglang/trtllm/disaggregated → dynamo, and ours:
// a deployment asking for amd.com/gpu → aim, whose rule outranks every other.
//
// Upstream's rules test `has(spec.resources.gpu)`, which is an evaluation ERROR (not false) when
// spec.resources is absent; every rule here guards each level with has() so a plain spec never produces a
// "skipped rule" report.
import {
  AMD_GPU_TYPE,
  type BuiltinProvider,
  INFERENCE_PROVIDER_CONFIG_KIND,
  type InferenceProviderConfig,
  type InferenceProviderConfigSpec,
  KAR_API_VERSION,
} from '../../../apis/kubeairunway/index.ts';

const HAS_GPU_BLOCK = 'has(spec.resources) && has(spec.resources.gpu)';

export const DEFAULT_PROVIDER_SPECS: Readonly<Record<BuiltinProvider, InferenceProviderConfigSpec>> = {
  kaito: {
    capabilities: {
      engines: [
        { name: 'vllm', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: false },
        { name: 'llamacpp', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: true },
      ],
      requiresCRD: true,
    },
    selectionRules: [
      { condition: `!(${HAS_GPU_BLOCK}) || spec.resources.gpu.count == 0`, priority: 100 },
      { condition: "spec.engine.type == 'llamacpp'", priority: 100 },
    ],
  },
  dynamo: {
    capabilities: {
      engines: [
        { name: 'vllm', servingModes: ['aggregated', 'disaggregated'], gpuSupport: true, cpuSupport: false },
        { name: 'sglang', servingModes: ['aggregated', 'disaggregated'], gpuSupport: true, cpuSupport: false },
        { name: 'trtllm', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: false },
      ],
      requiresCRD: true,
      // replicas 0: no worker (the frontend only routes)
      zeroReplicas: true,
    },
    selectionRules: [
      { condition: "spec.engine.type == 'trtllm'", priority: 100 },
      { condition: "spec.engine.type == 'sglang'", priority: 100 },
      { condition: "has(spec.serving) && spec.serving.mode == 'disaggregated'", priority: 90 },
      { condition: `${HAS_GPU_BLOCK} && spec.resources.gpu.count > 0 && spec.engine.type == 'vllm'`, priority: 50 },
    ],
  },
  kuberay: {
    capabilities: {
      engines: [{ name: 'vllm', servingModes: ['aggregated', 'disaggregated'], gpuSupport: true, cpuSupport: false }],
      requiresCRD: true,
    },
    selectionRules: [
      { condition: `${HAS_GPU_BLOCK} && spec.resources.gpu.count > 1 && spec.engine.type == 'vllm'`, priority: 80 },
    ],
  },
  // no CRD, no operator, no selection rule: chosen when named, or when it is the only ready provider that fits
  llmd: {
    capabilities: {
      engines: [{ name: 'vllm', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: false }],
      requiresCRD: false,
      zeroReplicas: true,
      // it creates <name>-pool itself; the gateway routes to the pool (docs/kubeairunway.md, "Gateway")
      gateway: { managesInferencePool: true, inferencePoolNamePattern: '{name}-pool' },
    },
    selectionRules: [],
  },
  aim: {
    capabilities: {
      engines: [
        { name: 'vllm', servingModes: ['aggregated'], gpuSupport: true, cpuSupport: false, gpuTypes: [AMD_GPU_TYPE] },
      ],
      requiresCRD: true,
    },
    selectionRules: [
      {
        condition: `${HAS_GPU_BLOCK} && has(spec.resources.gpu.type) && spec.resources.gpu.type == '${AMD_GPU_TYPE}' && spec.resources.gpu.count > 0`,
        priority: 200,
      },
    ],
  },
};

/** The object a shipped provider creates or updates at startup (status is written separately). */
export function defaultProviderConfig(provider: BuiltinProvider): InferenceProviderConfig {
  return {
    apiVersion: KAR_API_VERSION,
    kind: INFERENCE_PROVIDER_CONFIG_KIND,
    metadata: { name: provider },
    spec: structuredClone(DEFAULT_PROVIDER_SPECS[provider]),
  };
}
