// Defaulting (the mutating webhook, and the core controller in memory when the webhook was bypassed). Only
// ABSENT fields are filled: an explicit `replicas: 0`, `gpu.count: 0` or `enablePrefixCaching: false` is the
// user's choice and stays (upstream lost those through Go omitempty round trips; we never drop them).
import { DEFAULT_GPU_TYPE, type ModelDeployment, type ModelDeploymentSpec } from '../../../apis/kubeairunway/index.ts';
import { defaultStorage } from './storage.ts';

/** the serving mode with its default applied */
export function servingModeOf(spec: ModelDeploymentSpec): 'aggregated' | 'disaggregated' {
  return spec.serving?.mode ?? 'aggregated';
}

/** the model source with its default applied */
export function modelSourceOf(spec: ModelDeploymentSpec): 'huggingface' | 'custom' {
  return spec.model?.source ?? 'huggingface';
}

function defaultGpu(gpu: { count?: number; type?: string } | undefined): void {
  if (!gpu) return;
  gpu.count ??= 0;
  gpu.type ??= DEFAULT_GPU_TYPE;
}

/**
 * Returns a defaulted copy of `md` (the input is not modified):
 * model.source=huggingface, serving.mode=aggregated, aggregated scaling.replicas=1, prefill/decode
 * replicas=1, engine.enablePrefixCaching=true, gpu.type=nvidia.com/gpu wherever a GPU block exists, and one
 * nvidia.com/gpu when an aggregated GPU engine (not llama.cpp, no custom image) names no resources at all,
 * and the storage volumes' defaults (storage.ts).
 */
export function defaultModelDeployment<T extends ModelDeployment>(md: T): T {
  // only the spec changes: copying metadata (managedFields above all) and status would be most of the cost
  const out = { ...md, spec: structuredClone(md.spec) } as T;
  out.spec ??= { model: {} };
  const spec = out.spec;
  spec.model ??= {};
  spec.model.source ??= 'huggingface';
  spec.serving ??= {};
  spec.serving.mode ??= 'aggregated';
  const aggregated = spec.serving.mode === 'aggregated';

  if (aggregated) {
    spec.scaling ??= {};
    spec.scaling.replicas ??= 1;
  }
  for (const component of [spec.scaling?.prefill, spec.scaling?.decode]) {
    if (!component) continue;
    component.replicas ??= 1;
    defaultGpu(component.gpu);
  }

  if (spec.engine) spec.engine.enablePrefixCaching ??= true;

  const engine = spec.engine?.type;
  if (aggregated && spec.resources === undefined && engine !== undefined && engine !== 'llamacpp' && !spec.image) {
    spec.resources = { gpu: { count: 1, type: DEFAULT_GPU_TYPE } };
  }
  defaultGpu(spec.resources?.gpu);
  defaultStorage(spec, out.metadata?.name);
  return out;
}
