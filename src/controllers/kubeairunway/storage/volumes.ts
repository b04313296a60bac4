// A ModelDeployment's storage volumes as the providers mount them (docs/kubeairunway.md, "Model storage"):
// each volume with its defaults applied and its claim resolved, the pod `volumes` and container
// `volumeMounts` every provider puts on its serving pods, HF_HOME pointing at the model cache, and the one
// volume a download fills. Pure.
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import type { EnvVar } from '../../../common/env-merge/index.ts';
import {
  DEFAULT_MANAGED_ACCESS_MODE,
  DEFAULT_MOUNT_PATHS,
  isManaged,
  managedClaimName,
  modelSourceOf,
  type StoragePurpose,
} from '../validation/index.ts';

/** the variable model servers (vLLM, Hugging Face libraries) look for a model cache in */
export const HF_HOME_ENV = 'HF_HOME';

export interface ResolvedVolume {
  name: string;
  /** where the volume is in the deployment's spec, for messages: spec.model.storage.volumes[i] */
  field: string;
  claimName: string;
  mountPath: string;
  purpose: StoragePurpose;
  readOnly: boolean;
  /** set when the provider creates the PVC (the volume has a size) */
  managed?: { size: string; accessMode: string; storageClassName?: string };
}

/** every volume of spec.model.storage, defaults applied (as the webhook would have) */
export function resolveVolumes(md: Pick<ModelDeployment, 'metadata' | 'spec'>): ResolvedVolume[] {
  const deployment = md.metadata.name ?? '';
  return (md.spec.model?.storage?.volumes ?? []).map((v, i) => {
    const purpose = v.purpose ?? 'custom';
    const managed = isManaged(v);
    return {
      name: v.name,
      field: `spec.model.storage.volumes[${i}]`,
      claimName: v.claimName || (managed ? managedClaimName(deployment, v.name) : ''),
      mountPath: v.mountPath ?? DEFAULT_MOUNT_PATHS[purpose] ?? '',
      purpose,
      readOnly: v.readOnly ?? false,
      ...(managed
        ? {
            managed: {
              size: String(v.size),
              accessMode: v.accessMode ?? DEFAULT_MANAGED_ACCESS_MODE,
              ...(v.storageClassName !== undefined ? { storageClassName: v.storageClassName } : {}),
            },
          }
        : {}),
    };
  });
}

/**
 * The volume a download Job fills before the model is served: a managed modelCache of a Hugging Face model.
 * An existing claim is the user's to fill (and a read-only cache skips the download, as the webhook warns).
 */
export function downloadVolume(md: Pick<ModelDeployment, 'metadata' | 'spec'>): ResolvedVolume | undefined {
  if (modelSourceOf(md.spec) !== 'huggingface' || !md.spec.model?.id) return undefined;
  return resolveVolumes(md).find((v) => v.purpose === 'modelCache' && v.managed && !v.readOnly);
}

/** the pod `volumes` for the deployment's storage (none without spec.model.storage) */
export function storagePodVolumes(md: Pick<ModelDeployment, 'metadata' | 'spec'>): Array<Record<string, unknown>> {
  return resolveVolumes(md).map((v) => ({
    name: v.name,
    persistentVolumeClaim: { claimName: v.claimName, ...(v.readOnly ? { readOnly: true } : {}) },
  }));
}

/** the serving container's `volumeMounts` for the deployment's storage */
export function storageVolumeMounts(md: Pick<ModelDeployment, 'metadata' | 'spec'>): Array<Record<string, unknown>> {
  return resolveVolumes(md).map((v) => ({
    name: v.name,
    mountPath: v.mountPath,
    ...(v.readOnly ? { readOnly: true } : {}),
  }));
}

/** HF_HOME at the model cache's mount path, so the server finds what was downloaded there (spec.env may override) */
export function modelCacheEnv(md: Pick<ModelDeployment, 'metadata' | 'spec'>): EnvVar[] {
  const cache = resolveVolumes(md).find((v) => v.purpose === 'modelCache');
  return cache ? [{ name: HF_HOME_ENV, value: cache.mountPath }] : [];
}

/** `{ volumes }` for a pod spec, or nothing */
export function podStorageFields(md: Pick<ModelDeployment, 'metadata' | 'spec'>): { volumes?: unknown[] } {
  const volumes = storagePodVolumes(md);
  return volumes.length > 0 ? { volumes } : {};
}

/** `{ volumeMounts }` for a container, or nothing */
export function containerStorageFields(md: Pick<ModelDeployment, 'metadata' | 'spec'>): { volumeMounts?: unknown[] } {
  const volumeMounts = storageVolumeMounts(md);
  return volumeMounts.length > 0 ? { volumeMounts } : {};
}

/**
 * What deleting the deployment deletes with it (its ownerReferences): the managed PVCs, with the model in
 * them, and the download Job; undefined when it has none. Existing claims are the user's and stay.
 */
export function storageDeletionMessage(md: Pick<ModelDeployment, 'metadata' | 'spec'>): string | undefined {
  const managed = resolveVolumes(md).filter((v) => v.managed);
  if (managed.length === 0) return undefined;
  const ns = md.metadata.namespace ?? '';
  const pvcs = managed.map((v) => `${ns}/${v.claimName} (${v.managed?.size})`).join(', ');
  return `the managed PersistentVolumeClaims ${pvcs} are deleted with the ModelDeployment, and the downloaded model with them; claims named by claimName are left alone`;
}
