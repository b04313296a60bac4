// StorageReady and ModelDownloaded on the provider's part of the status (docs/kubeairunway.md, "Model
// storage"), through the engine's ConditionManager: a claim that became bound and a model that finished
// downloading are announced (Normal events), a broken claim or a failed download warns, waiting is quiet.
import { asInfo, asWarning, type ConditionManager, quietWhenNew, silent } from '../../../engine/index.ts';
import { CONDITION_MODEL_DOWNLOADED } from './download.ts';
import type { StoragePlan } from './plan.ts';
import { CONDITION_STORAGE_READY } from './pvcs.ts';

export const STORAGE_CONDITION_TYPES = [CONDITION_STORAGE_READY, CONDITION_MODEL_DOWNLOADED] as const;

/** the storage conditions of `storage`; those it does not report (no storage, no download) are removed */
export function markStorageConditions(cm: ConditionManager, storage: StoragePlan | undefined): void {
  const reported = new Set(storage?.conditions.map((c) => c.type));
  for (const type of STORAGE_CONDITION_TYPES) if (!reported.has(type)) cm.delete(type);
  for (const c of storage?.conditions ?? []) {
    if (c.status === 'True')
      cm.markTrue(
        c.type,
        c.reason,
        c.message,
        asInfo(),
        ...(c.type === CONDITION_STORAGE_READY ? [quietWhenNew()] : []),
      );
    else if (c.status === 'False') cm.markFalse(c.type, c.reason, c.message, asWarning());
    else cm.markUnknown(c.type, c.reason, c.message, silent());
  }
}
