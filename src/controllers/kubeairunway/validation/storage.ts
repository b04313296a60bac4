// spec.model.storage (docs/kubeairunway.md, "Model storage"): defaults and admission rules for the volumes a
// deployment mounts. A volume is either an existing claim (`claimName`) or a managed PVC (`size`) that the
// provider creates as `<deployment>-<volume>`; a managed modelCache is filled by a download Job before the
// model is served. Pure; the webhook, the core and the providers share it.
import type { ModelDeployment, ModelDeploymentSpec } from '../../../apis/kubeairunway/index.ts';
import { quantityBytes } from '../../../common/model-storage/index.ts';
import type { ValidationIssue } from './types.ts';

export type StorageVolume = NonNullable<NonNullable<ModelDeploymentSpec['model']['storage']>['volumes']>[number];
export type StoragePurpose = NonNullable<StorageVolume['purpose']>;

export const DEFAULT_MOUNT_PATHS: Readonly<Partial<Record<StoragePurpose, string>>> = {
  modelCache: '/model-cache',
  compilationCache: '/compilation-cache',
};
export const DEFAULT_MANAGED_ACCESS_MODE = 'ReadWriteMany';
/** where a mount would hide or expose the node's or the container's own files */
export const SYSTEM_PATHS = ['/dev', '/proc', '/sys', '/etc', '/var/run'] as const;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** the PVC a managed volume gets: `<deployment>-<volume>` */
export function managedClaimName(deployment: string, volume: string): string {
  return `${deployment}-${volume}`;
}

/** a managed volume: the provider creates and owns its PVC */
export const isManaged = (v: Pick<StorageVolume, 'size'>): boolean => v.size !== undefined && v.size !== '';

/** fills the absent storage fields of `spec` in place (defaultModelDeployment's copy) */
export function defaultStorage(spec: ModelDeploymentSpec, deployment: string | undefined): void {
  for (const v of spec.model?.storage?.volumes ?? []) {
    v.purpose ??= 'custom';
    const path = DEFAULT_MOUNT_PATHS[v.purpose];
    if (v.mountPath === undefined && path) v.mountPath = path;
    if (!isManaged(v)) continue;
    if (v.claimName === undefined && deployment) v.claimName = managedClaimName(deployment, v.name);
    v.accessMode ??= DEFAULT_MANAGED_ACCESS_MODE;
  }
}

/** a managed volume's size bounds (docs/kubeairunway.md, "Model storage") */
export const VOLUME_MIN_SIZE = '1Mi';
export const MODEL_CACHE_MIN_SIZE = '1Gi';
export const VOLUME_MAX_SIZE = '64Ti';

const underSystemPath = (p: string) => SYSTEM_PATHS.some((s) => p === s || p.startsWith(`${s}/`));

function volumeIssues(deployment: string | undefined, v: StorageVolume, field: string): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const err = (f: string, message: string) =>
    out.push({ field: `${field}.${f}`, message: `${field}.${f}: ${message}` });
  const managed = isManaged(v);
  const bytes = managed ? quantityBytes(v.size) : undefined;
  if (managed && bytes === undefined)
    err('size', `invalid size ${JSON.stringify(v.size)}: use a positive Kubernetes quantity such as "100Gi"`);
  else if (bytes !== undefined) {
    const floor = v.purpose === 'modelCache' ? MODEL_CACHE_MIN_SIZE : VOLUME_MIN_SIZE;
    if (bytes < quantityBytes(floor)!)
      err(
        'size',
        `${v.size} is below the minimum of ${floor}${v.purpose === 'modelCache' ? ' for a modelCache (it holds model weights)' : ''}: set a larger size`,
      );
    else if (bytes > quantityBytes(VOLUME_MAX_SIZE)!)
      err(
        'size',
        `${v.size} exceeds the maximum of ${VOLUME_MAX_SIZE}: set a smaller size, or create the PVC yourself and name it in claimName`,
      );
  }
  if (!managed && !v.claimName)
    err(
      'claimName',
      'is required when size is not set: name an existing PersistentVolumeClaim, or set size to have one created',
    );
  if (managed && v.readOnly)
    err(
      'readOnly',
      'cannot be true together with size: a managed volume is written by its download; mount it read-write',
    );
  if (managed && deployment && v.claimName && v.claimName !== managedClaimName(deployment, v.name))
    err(
      'claimName',
      `must be "${managedClaimName(deployment, v.name)}" when size is set (the managed PVC is named <deployment>-<volume>); leave it unset`,
    );
  if (v.claimName && (v.claimName.length > 253 || !DNS_SUBDOMAIN.test(v.claimName)))
    err(
      'claimName',
      `"${v.claimName}" is not a valid PersistentVolumeClaim name (a DNS subdomain of at most 253 characters)`,
    );
  if (!managed && v.accessMode)
    err('accessMode', 'is only allowed with size (it is the access mode of the managed PVC)');
  if (!managed && v.storageClassName !== undefined)
    err('storageClassName', 'is only allowed with size (it is the storage class of the managed PVC)');
  if (!v.mountPath) {
    if ((v.purpose ?? 'custom') === 'custom') err('mountPath', 'is required for purpose custom');
  } else if (!v.mountPath.startsWith('/')) err('mountPath', `"${v.mountPath}" must be an absolute path`);
  else if (underSystemPath(v.mountPath))
    err('mountPath', `"${v.mountPath}" is under a system path (${SYSTEM_PATHS.join(', ')}); choose another directory`);
  return out;
}

function duplicates(volumes: readonly StorageVolume[], key: (v: StorageVolume) => string | undefined): Set<string> {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of volumes) {
    const k = key(v);
    if (k === undefined || k === '') continue;
    if (seen.has(k)) dup.add(k);
    seen.add(k);
  }
  return dup;
}

/** the storage rules for `md` (defaulted); with `old`, managed volumes may not be removed or changed */
export function validateStorage(
  md: Pick<ModelDeployment, 'metadata' | 'spec'>,
  old?: Pick<ModelDeployment, 'spec'>,
): { errors: ValidationIssue[]; warnings: string[] } {
  const field = 'spec.model.storage.volumes';
  const volumes = md.spec?.model?.storage?.volumes ?? [];
  const errors: ValidationIssue[] = [];
  const warnings: string[] = [];
  for (const [i, v] of volumes.entries()) errors.push(...volumeIssues(md.metadata?.name, v, `${field}[${i}]`));
  for (const [what, key] of [
    ['name', (v: StorageVolume) => v.name],
    ['mountPath', (v: StorageVolume) => v.mountPath],
    ['claimName', (v: StorageVolume) => v.claimName],
  ] as const)
    for (const d of duplicates(volumes, key))
      errors.push({ field, message: `${field}: ${what} "${d}" is used by more than one volume; each must be unique` });
  for (const purpose of ['modelCache', 'compilationCache'] as const) {
    const n = volumes.filter((v) => v.purpose === purpose).length;
    if (n > 1) errors.push({ field, message: `${field}: ${n} volumes have purpose ${purpose}; at most one may` });
  }
  for (const v of volumes) {
    if (v.purpose === 'compilationCache' && v.readOnly)
      warnings.push(`${field} "${v.name}": a read-only compilationCache cannot store new compilation results`);
    if (v.purpose === 'modelCache' && v.readOnly && (md.spec.model?.source ?? 'huggingface') === 'huggingface')
      warnings.push(`${field} "${v.name}": the modelCache is read-only, so model download will be skipped`);
  }
  if (old) errors.push(...managedVolumeChanges(md.metadata?.name, old.spec?.model?.storage?.volumes ?? [], volumes));
  return { errors, warnings };
}

const SPEC_KEYS = ['claimName', 'mountPath', 'purpose', 'readOnly', 'size', 'storageClassName', 'accessMode'] as const;

/** the volumes with their defaults applied (an object stored while the webhook was down has none) */
function defaulted(volumes: readonly StorageVolume[], deployment: string | undefined): StorageVolume[] {
  const spec = { model: { storage: { volumes: structuredClone(volumes) as StorageVolume[] } } };
  defaultStorage(spec, deployment);
  return spec.model.storage.volumes;
}

/** a managed volume's PVC is created once: removing or changing the volume would strand it or its data */
function managedVolumeChanges(
  deployment: string | undefined,
  oldVolumes: readonly StorageVolume[],
  newVolumes: readonly StorageVolume[],
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const field = 'spec.model.storage.volumes';
  const after = defaulted(newVolumes, deployment);
  for (const was of defaulted(oldVolumes, deployment).filter(isManaged)) {
    const now = after.find((v) => v.name === was.name);
    if (!now) {
      out.push({
        field,
        message: `${field}: managed volume "${was.name}" cannot be removed (its PVC holds the model); delete and recreate the ModelDeployment to drop it`,
      });
      continue;
    }
    const value = (v: StorageVolume, k: (typeof SPEC_KEYS)[number]) =>
      k === 'readOnly' ? String(v.readOnly ?? false) : String(v[k] ?? '');
    const changed = SPEC_KEYS.filter((k) => value(now, k) !== value(was, k));
    if (changed.length > 0)
      out.push({
        field,
        message: `${field}: managed volume "${was.name}" cannot be modified (${changed.join(', ')} changed); delete and recreate the ModelDeployment to change it`,
      });
  }
  return out;
}
