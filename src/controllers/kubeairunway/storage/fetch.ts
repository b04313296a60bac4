// What a deployment's storage reconcile reads: its claims and its download Job from the informer cache, and
// the downloader's log (live: pod logs are not cached) only while it tells something new: the Job runs,
// failed, or finished and its success is not recorded yet. A deployment without storage reads nothing.

import { kindRef } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import { DOWNLOAD_CONTAINER, jobPhase } from '../../../common/model-storage/index.ts';
import {
  type Job,
  jobPodLog,
  type ObjectReader,
  type PersistentVolumeClaim,
  type ReadClient,
} from '../../../engine/index.ts';
import { downloadJobName } from './download.ts';
import { downloadedBefore, type StorageFetch } from './plan.ts';
import { downloadVolume, resolveVolumes } from './volumes.ts';

export const StorageJobs = kindRef<Job>('batch/v1', 'Job');
export const StoragePvcs = kindRef<PersistentVolumeClaim>('v1', 'PersistentVolumeClaim');

export async function fetchStorage(
  md: ModelDeployment,
  reader: ObjectReader,
  client: ReadClient,
): Promise<StorageFetch | undefined> {
  const volumes = resolveVolumes(md);
  if (volumes.length === 0) return undefined;
  const ns = md.metadata.namespace;
  const pvcs = new Map<string, PersistentVolumeClaim | undefined>();
  for (const v of volumes) pvcs.set(v.claimName, await reader.get(StoragePvcs, v.claimName, ns));
  if (!downloadVolume(md)) return { pvcs };
  const job = await reader.get(StorageJobs, downloadJobName(md), ns);
  const phase = jobPhase(job);
  const readLog = phase === 'running' || phase === 'failed' || (phase === 'complete' && !downloadedBefore(md));
  const log = job && readLog ? await jobPodLog(client, job, DOWNLOAD_CONTAINER).catch(() => undefined) : undefined;
  return { pvcs, job, log };
}
