// The PVC half of a deployment's storage (docs/kubeairunway.md, "Model storage"): the managed PVCs to
// create (`<deployment>-<volume>`, the volume's size, access mode and class, never changed once created) and
// the StorageReady condition from what the cache holds for every claim. Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MODEL_DEPLOYMENT_LABEL,
  type ModelDeployment,
} from '../../../apis/kubeairunway/index.ts';
import { buildModelPvc } from '../../../common/model-storage/index.ts';
import type { PersistentVolumeClaim } from '../../../engine/index.ts';
import { sanitizeLabelValue } from '../providers/common/labels.ts';
import type { ResolvedVolume } from './volumes.ts';

export const CONDITION_STORAGE_READY = 'StorageReady';

export interface StorageCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** what keeps the serving resource from being applied; `failed`: the user must act (phase Failed) */
export interface StorageBlock {
  reason: string;
  message: string;
  failed: boolean;
}

/** the labels of every object the storage half creates */
export function storageLabels(md: Pick<ModelDeployment, 'metadata'>): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [MODEL_DEPLOYMENT_LABEL]: sanitizeLabelValue(md.metadata.name ?? ''),
  };
}

const ownedBy = (o: KubeObject, md: Pick<ModelDeployment, 'metadata'>) =>
  !!md.metadata.uid && (o.metadata.ownerReferences ?? []).some((r) => r.uid === md.metadata.uid);

function ref(md: Pick<ModelDeployment, 'metadata'>, name: string): string {
  return `PersistentVolumeClaim ${md.metadata.namespace ?? ''}/${name}`;
}

export function managedPvc(md: Pick<ModelDeployment, 'metadata'>, v: ResolvedVolume): KubeObject {
  const pvc = buildModelPvc({
    name: v.claimName,
    namespace: md.metadata.namespace ?? '',
    request: v.managed?.size ?? '',
    accessModes: [v.managed?.accessMode ?? 'ReadWriteMany'],
    storageClassName: v.managed?.storageClassName,
    labels: storageLabels(md),
  });
  return pvc;
}

/** one volume's verdict: fine, waiting (Unknown) or broken (False) */
type Verdict =
  | { ok: true; bound: boolean }
  | { ok: false; status: 'Unknown' | 'False'; reason: string; message: string };

function judge(md: ModelDeployment, v: ResolvedVolume, pvc: PersistentVolumeClaim | undefined): Verdict {
  const what = ref(md, v.claimName);
  if (!pvc) {
    if (v.managed) return { ok: false, status: 'Unknown', reason: 'PVCCreating', message: `creating ${what}` };
    return {
      ok: false,
      status: 'False',
      reason: 'PVCNotFound',
      message: `${what} named by ${v.field}.claimName not found: create it, or set ${v.field}.size to have it created`,
    };
  }
  if (v.managed && !ownedBy(pvc, md)) {
    if (pvc.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY_VALUE)
      return {
        ok: false,
        status: 'Unknown',
        reason: 'PVCFromPreviousDeployment',
        message: `${what} belongs to an earlier ModelDeployment of this name; waiting for it to be deleted`,
      };
    return {
      ok: false,
      status: 'False',
      reason: 'PVCConflict',
      message: `${what} exists but is not managed by this ModelDeployment: delete it, or rename ${v.field}.name`,
    };
  }
  if (pvc.status?.phase === 'Lost')
    return {
      ok: false,
      status: 'False',
      reason: 'PVCLost',
      message: `${what} (${v.field}) lost its volume: delete the PVC so it can be bound again`,
    };
  return { ok: true, bound: pvc.status?.phase === 'Bound' };
}

/**
 * The managed PVCs to create and StorageReady. Unbound claims do not block the serving resource (a claim of
 * a WaitForFirstConsumer class binds only when its first pod starts); missing, conflicting or lost ones do.
 */
export function planPvcs(
  md: ModelDeployment,
  volumes: readonly ResolvedVolume[],
  pvcs: ReadonlyMap<string, PersistentVolumeClaim | undefined>,
): { apply: KubeObject[]; condition: StorageCondition; block?: StorageBlock } {
  const apply: KubeObject[] = [];
  const unbound: string[] = [];
  let worst: Extract<Verdict, { ok: false }> | undefined;
  for (const v of volumes) {
    const pvc = pvcs.get(v.claimName);
    // a managed PVC is created once and never changed: its size and class are fixed from then on
    if (v.managed && !pvc) apply.push(managedPvc(md, v));
    const verdict = judge(md, v, pvc);
    if (!verdict.ok) {
      if (!worst || (worst.status === 'Unknown' && verdict.status === 'False')) worst = verdict;
    } else if (!verdict.bound) unbound.push(v.claimName);
  }
  if (worst) {
    const condition = { type: CONDITION_STORAGE_READY, ...worst };
    return {
      apply,
      condition,
      block: { reason: worst.reason, message: worst.message, failed: worst.status === 'False' },
    };
  }
  const names = volumes.map((v) => v.claimName).join(', ');
  const condition: StorageCondition =
    unbound.length > 0
      ? {
          type: CONDITION_STORAGE_READY,
          status: 'Unknown',
          reason: 'PVCPending',
          message: `waiting for ${unbound.map((n) => ref(md, n)).join(', ')} to be bound (a claim of a WaitForFirstConsumer class binds when its first pod starts)`,
        }
      : {
          type: CONDITION_STORAGE_READY,
          status: 'True',
          reason: 'PVCsBound',
          message: `PersistentVolumeClaims bound: ${names}`,
        };
  return { apply, condition };
}
