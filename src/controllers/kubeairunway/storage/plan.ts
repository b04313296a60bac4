// A deployment's storage, planned (docs/kubeairunway.md, "Model storage"): the managed PVCs, then the
// download Job once its PVC exists, the StorageReady and ModelDownloaded conditions, and whether the
// provider's serving resource may be applied yet (only once every claim exists and the model is
// downloaded). Pure: the provider's pipeline fetches (fetch.ts) and applies what this returns.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import type { Job, PersistentVolumeClaim } from '../../../engine/index.ts';
import { CONDITION_MODEL_DOWNLOADED, downloadJob, planDownload } from './download.ts';
import { managedPvc, planPvcs, type StorageBlock, type StorageCondition } from './pvcs.ts';
import { downloadVolume, resolveVolumes } from './volumes.ts';

/** what the cache (and, for the downloader's log, the API) holds for a deployment's storage */
export interface StorageFetch {
  /** by claim name; undefined = not there */
  pvcs: ReadonlyMap<string, PersistentVolumeClaim | undefined>;
  /** the download Job, when the deployment has a volume to download into */
  job?: Job | undefined;
  log?: string | undefined;
}

export interface StoragePlan {
  apply: KubeObject[];
  delete: KubeObject[];
  conditions: StorageCondition[];
  /** set while the serving resource must wait (or, `failed`, until the user acts) */
  block?: StorageBlock;
  requeueAfterMs?: number;
}

export interface StoragePlanOptions {
  now: number;
  /** how long a failed download waits before it is tried again */
  retryMs: number;
  /** how often a running download's progress is read */
  pollMs: number;
}

/** ModelDownloaded was True in the status (a download finished before; its Job may be gone since) */
export function downloadedBefore(md: Pick<ModelDeployment, 'status'>): boolean {
  return md.status?.conditions?.some((c) => c.type === CONDITION_MODEL_DOWNLOADED && c.status === 'True') ?? false;
}

/** undefined when the deployment has no spec.model.storage */
export function planStorage(
  md: ModelDeployment,
  fetched: StorageFetch,
  opts: StoragePlanOptions,
): StoragePlan | undefined {
  const volumes = resolveVolumes(md);
  if (volumes.length === 0) return undefined;
  const pvcs = planPvcs(md, volumes, fetched.pvcs);
  const plan: StoragePlan = { apply: pvcs.apply, delete: [], conditions: [pvcs.condition] };
  if (pvcs.block) plan.block = pvcs.block;
  const volume = downloadVolume(md);
  if (!volume) return plan;
  const download = planDownload(
    {
      md,
      volume,
      // only into claims that are all in order: never into a PVC that is not ours, lost, or going away
      pvcUid: pvcs.block ? undefined : fetched.pvcs.get(volume.claimName)?.metadata.uid,
      job: fetched.job,
      log: fetched.log,
      downloadedBefore: downloadedBefore(md),
      now: opts.now,
      retryMs: opts.retryMs,
    },
    opts.pollMs,
  );
  plan.apply.push(...download.apply);
  plan.delete.push(...download.delete);
  plan.conditions.push(download.condition);
  // a broken claim is the first thing to fix; otherwise the download says what the serving resource waits for
  if (download.block && !plan.block?.failed) plan.block = download.block;
  if (download.requeueAfterMs !== undefined) plan.requeueAfterMs = download.requeueAfterMs;
  return plan;
}

/** every object the storage half creates for a new deployment, in order (for `modelplane render`) */
export function storageObjects(md: ModelDeployment): KubeObject[] {
  const out = resolveVolumes(md)
    .filter((v) => v.managed)
    .map((v) => managedPvc(md, v));
  const volume = downloadVolume(md);
  if (volume) out.push(downloadJob(md, volume, undefined));
  return out;
}
