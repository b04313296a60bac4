// Which AMD GPUs the cluster has, read from node labels (docs/aim.md, "Templates"): the device ID label
// (`amd.com/gpu.device-id`, its `beta.` variant, or `amd.com/gpu.device-id.<id>` keys) mapped through the
// device-ID table, else `amd.com/gpu.family`; VRAM from `amd.com/gpu.vram`, else the model's known size.
// Pure.

import type { AIMHardware } from '../../../apis/aim/index.ts';
import { quantityBytes } from '../../../common/model-storage/index.ts';

/** PCI device ID → marketing name */
export const GPU_DEVICE_IDS: Readonly<Record<string, string>> = Object.freeze({
  '74a1': 'MI300X',
  '74a9': 'MI300X',
  '74a5': 'MI325X',
  '75a0': 'MI350X',
  '75a3': 'MI355X',
  '740c': 'MI250X',
  '740f': 'MI210',
});

const GiB = 1024 ** 3;
/** VRAM per GPU when the node does not label it */
export const GPU_VRAM_BYTES: Readonly<Record<string, number>> = Object.freeze({
  MI300X: 192 * GiB,
  MI325X: 256 * GiB,
  MI350X: 288 * GiB,
  MI355X: 288 * GiB,
  MI250X: 128 * GiB,
  MI210: 64 * GiB,
});

export const GPU_DEVICE_ID_LABEL = 'amd.com/gpu.device-id';
export const GPU_VRAM_LABEL = 'amd.com/gpu.vram';
export const GPU_FAMILY_LABEL = 'amd.com/gpu.family';

/** "mi300x", "AMD Instinct MI300X", "MI300X" → "MI300X" */
export function normalizeGpuModel(model: string): string {
  const m = /(MI\d{3}[A-Z]?)/i.exec(model);
  return (m ? m[1]! : model.trim()).toUpperCase();
}

function modelForDeviceId(id: string): string {
  const key = id.toLowerCase().replace(/^0x/, '');
  return GPU_DEVICE_IDS[key] ?? `AMD-${key.toUpperCase()}`;
}

/** the GPU models on one node (several device-id keys are possible) with their VRAM in bytes */
export function nodeGpus(labels: Readonly<Record<string, string>> | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!labels) return out;
  const ids = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k === GPU_DEVICE_ID_LABEL || k === `beta.${GPU_DEVICE_ID_LABEL}`) ids.add(v);
    else if (k.startsWith(`${GPU_DEVICE_ID_LABEL}.`) || k.startsWith(`beta.${GPU_DEVICE_ID_LABEL}.`))
      ids.add(k.slice(k.lastIndexOf('.') + 1));
  }
  const models = [...ids].filter(Boolean).map(modelForDeviceId);
  if (models.length === 0 && labels[GPU_FAMILY_LABEL]) models.push(normalizeGpuModel(labels[GPU_FAMILY_LABEL]));
  const labelled = quantityBytes(labels[GPU_VRAM_LABEL]);
  for (const m of models) out.set(m, labelled ?? GPU_VRAM_BYTES[m] ?? 0);
  return out;
}

/** every GPU model in the cluster with the largest VRAM any node offers for it */
export function clusterGpus(
  nodes: ReadonlyArray<{ metadata: { labels?: Record<string, string> } }>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of nodes)
    for (const [m, vram] of nodeGpus(n.metadata.labels)) out.set(m, Math.max(out.get(m) ?? 0, vram));
  return out;
}

export type GpuVerdict =
  | { state: 'Ready'; reason: 'GPUAvailable' | 'NoGPURequired'; message: string }
  | { state: 'NotAvailable'; reason: 'GPUNotAvailable' | 'VRAMNotAvailable'; message: string };

/** can the cluster run `hardware`? by GPU model, or by minimum VRAM on any GPU */
export function gpuAvailability(hardware: AIMHardware | undefined, gpus: ReadonlyMap<string, number>): GpuVerdict {
  const gpu = hardware?.gpu;
  const present = [...gpus.keys()].sort().join(', ') || 'none';
  if (!gpu || (gpu.requests === 0 && !gpu.model && gpu.minVram === undefined))
    return { state: 'Ready', reason: 'NoGPURequired', message: 'no GPU required' };
  if (gpu.model) {
    const want = normalizeGpuModel(gpu.model);
    return gpus.has(want)
      ? { state: 'Ready', reason: 'GPUAvailable', message: `GPU ${want} is available on the cluster's nodes` }
      : {
          state: 'NotAvailable',
          reason: 'GPUNotAvailable',
          message: `no node has GPU ${want} (nodes offer: ${present}); label a node ${GPU_DEVICE_ID_LABEL}=<id> or pick another template`,
        };
  }
  if (gpu.minVram !== undefined) {
    const need = quantityBytes(gpu.minVram) ?? 0;
    const fits = [...gpus.entries()].filter(([, vram]) => vram >= need).map(([m]) => m);
    return fits.length > 0
      ? {
          state: 'Ready',
          reason: 'GPUAvailable',
          message: `GPUs with at least ${gpu.minVram} VRAM: ${fits.sort().join(', ')}`,
        }
      : {
          state: 'NotAvailable',
          reason: 'VRAMNotAvailable',
          message: `no GPU in the cluster has ${gpu.minVram} of VRAM (nodes offer: ${present})`,
        };
  }
  return gpus.size > 0
    ? { state: 'Ready', reason: 'GPUAvailable', message: `GPUs available: ${present}` }
    : {
        state: 'NotAvailable',
        reason: 'GPUNotAvailable',
        message: 'the template needs a GPU and no node has an AMD GPU label',
      };
}

/** "2 x MI300X", "1 x GPU (≥ 64Gi)", "CPU" */
export function hardwareSummary(hardware: AIMHardware | undefined): string {
  const gpu = hardware?.gpu;
  if (!gpu || gpu.requests === 0) return hardware?.cpu ? 'CPU' : 'unspecified';
  const count = gpu.requests ?? 1;
  if (gpu.model) return `${count} x ${normalizeGpuModel(gpu.model)}`;
  if (gpu.minVram !== undefined) return `${count} x GPU (>= ${gpu.minVram})`;
  return `${count} x GPU`;
}
