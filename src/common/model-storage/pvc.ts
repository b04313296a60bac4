// The PVC that holds a model's weights (docs/aim.md, "Caches and artifacts"): sized from the model's size
// plus the runtime config's headroom, rounded up to whole GiB, with the storage class chosen explicitly,
// else by the runtime config, else the cluster default. Pure; shared by every controller that downloads
// model weights onto a volume.
import { Quantity } from '@modelplane/apimachinery/quantity';
import type { RuntimeConfigSpec } from '../runtime-config/index.ts';

export const DEFAULT_PVC_HEADROOM_PERCENT = 10;
const GI = 1024n ** 3n;

/** bytes of a Kubernetes quantity ("8Gi", "4500000000", 1024); undefined when it does not parse or is not positive */
export function quantityBytes(q: string | number | undefined): number | undefined {
  if (q === undefined || q === '') return undefined;
  try {
    const v = Quantity.parse(String(q)).value();
    return v > 0n ? Number(v) : undefined;
  } catch {
    return undefined;
  }
}

/** `storage.pvcHeadroomPercent` of the (merged) runtime config, its deprecated top-level spelling, or 10 */
export function headroomPercent(config: RuntimeConfigSpec | undefined): number {
  const v = config?.storage?.pvcHeadroomPercent ?? config?.pvcHeadroomPercent;
  return typeof v === 'number' && v >= 0 ? v : DEFAULT_PVC_HEADROOM_PERCENT;
}

/** `storage.defaultStorageClassName` of the runtime config, or its deprecated spelling; undefined = cluster default */
export function configStorageClass(config: RuntimeConfigSpec | undefined): string | undefined {
  return config?.storage?.defaultStorageClassName || config?.defaultStorageClassName || undefined;
}

/**
 * The access mode of an artifact's PVC: `storage.artifactAccessMode` of the runtime config, else
 * ReadWriteMany, so a Shared cache is mounted by every service using it and replicas on several nodes
 * mount one volume (docs/aim.md, "Caches and artifacts").
 */
export const DEFAULT_ARTIFACT_ACCESS_MODE = 'ReadWriteMany';
export function artifactAccessMode(config: RuntimeConfigSpec | undefined): string {
  return config?.storage?.artifactAccessMode || DEFAULT_ARTIFACT_ACCESS_MODE;
}

/** ceil((size × (1 + headroom/100)) / 1 GiB) GiB, at least 1Gi */
export function pvcSize(sizeBytes: number, headroom: number): string {
  const withHeadroom = (BigInt(Math.ceil(sizeBytes)) * BigInt(100 + Math.max(0, Math.floor(headroom))) + 99n) / 100n;
  const gib = (withHeadroom + GI - 1n) / GI;
  return `${gib < 1n ? 1n : gib}Gi`;
}

/** "4.5 GiB" style size for status columns */
export function displaySize(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export interface ModelPvcInput {
  name: string;
  namespace: string;
  /** the model's size; the request is this plus the headroom, in whole GiB */
  sizeBytes?: number;
  headroomPercent?: number;
  /** the exact request instead (a quantity the user chose, e.g. a ModelDeployment volume's size) */
  request?: string;
  /** default ReadWriteOnce */
  accessModes?: readonly string[];
  /** explicit class (the object's own), else the runtime config's; neither: the cluster default. "" = no dynamic provisioning */
  storageClassName?: string | undefined;
  labels?: Record<string, string>;
}

export function buildModelPvc(input: ModelPvcInput): {
  apiVersion: 'v1';
  kind: 'PersistentVolumeClaim';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
} {
  const storage = input.request || pvcSize(input.sizeBytes ?? 0, input.headroomPercent ?? DEFAULT_PVC_HEADROOM_PERCENT);
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: input.name, namespace: input.namespace, labels: { ...(input.labels ?? {}) } },
    spec: {
      accessModes: [...(input.accessModes ?? ['ReadWriteOnce'])],
      volumeMode: 'Filesystem',
      resources: { requests: { storage } },
      ...(input.storageClassName !== undefined ? { storageClassName: input.storageClassName } : {}),
    },
  };
}
