// What an artifact reconcile reads: its PVC and Jobs (cache), and the Jobs' output when it matters (live):
// the check-size result once, the downloader's log while it runs or just after.

import { kindRef } from '@modelplane/runtime/meta';
import { CHECK_SIZE_CONTAINER, DOWNLOAD_CONTAINER, jobPhase } from '../../../common/model-storage/index.ts';
import {
  type Clock,
  type CoreEvent,
  type FetchContext,
  type FetchResult,
  fetch,
  fetchEventsFor,
  type HealthReport,
  type Job,
  jobPodLog,
  jobPodsHealth,
  type PersistentVolumeClaim,
} from '../../../engine/index.ts';
import type { AIMArtifact as ArtifactObject } from '../shared/kinds.ts';
import type { AimRuntimeConfig } from '../shared/runtime-config-source.ts';
import { secretVersionsNow, type SecretVersionSource } from '../shared/secret-names.ts';
import { checkSizeJobName, downloadJobName, pvcName } from './names.ts';

export const ArtifactJobs = kindRef<Job>('batch/v1', 'Job');
export const ArtifactPvcs = kindRef<PersistentVolumeClaim>('v1', 'PersistentVolumeClaim');

export interface ArtifactFetch {
  pvc: FetchResult<PersistentVolumeClaim>;
  checkSizeJob: FetchResult<Job>;
  downloadJob: FetchResult<Job>;
  /** the download attempt the status is on (1 for a new artifact) */
  attempt: number;
  checkSizeLog?: string;
  downloadLog?: string;
  /** the failed download's output could not be read (yet): its cause is not known */
  downloadLogUnread?: boolean;
  /** the pods of a download or check-size Job that is still running (why it may not make progress) */
  downloadPods?: HealthReport;
  checkSizePods?: HealthReport;
  /** the PVC's events while it is not bound (a ProvisioningFailed says why it stays unbound) */
  pvcEvents?: CoreEvent[];
  /** name → resourceVersion of the Secrets the artifact names ("": unknown or absent), from the Secret watch */
  secretVersions: Record<string, string>;
  now: number;
}

export async function fetchArtifactState(
  ctx: FetchContext<ArtifactObject, AimRuntimeConfig>,
  clock: Clock,
  secrets?: { source: SecretVersionSource; operatorNamespace: string },
): Promise<ArtifactFetch> {
  const a = ctx.object;
  const ns = a.metadata.namespace ?? '';
  const name = a.metadata.name ?? '';
  const recorded = Math.max(1, a.status?.downloadAttempt ?? 1);
  const [pvc, checkSizeJob, recordedJob, retryJob] = await Promise.all([
    fetch(ctx.reader, ArtifactPvcs, pvcName(name), ns),
    fetch(ctx.reader, ArtifactJobs, checkSizeJobName(name), ns),
    fetch(ctx.reader, ArtifactJobs, downloadJobName(name, recorded), ns),
    fetch(ctx.reader, ArtifactJobs, downloadJobName(name, recorded + 1), ns),
  ]);
  // the retry's Job exists but the status does not say so yet (the write that moves to it comes after the
  // apply, or was lost): go on from the retry, never back to the attempt it replaced
  const attempt = retryJob.ok() ? recorded + 1 : recorded;
  const downloadJob = retryJob.ok() ? retryJob : recordedJob;
  const secretVersions = secrets ? secretVersionsNow(a, secrets.operatorNamespace, secrets.source) : {};
  const out: ArtifactFetch = { pvc, checkSizeJob, downloadJob, attempt, secretVersions, now: clock.now() };
  if (pvc.ok() && pvc.value.status?.phase !== 'Bound') out.pvcEvents = await fetchEventsFor(ctx.client, pvc.value);
  const sizeKnown = a.spec.size !== undefined || a.status?.discoveredSizeBytes !== undefined;
  const sizeJob = checkSizeJob.ok() ? checkSizeJob.value : undefined;
  if (!sizeKnown && sizeJob && jobPhase(sizeJob) !== 'running')
    out.checkSizeLog = await jobPodLog(ctx.client, sizeJob, CHECK_SIZE_CONTAINER).catch(() => undefined);
  if (!sizeKnown && sizeJob && jobPhase(sizeJob) === 'running') {
    const pods = await jobPodsHealth(ctx.client, sizeJob);
    if (pods) out.checkSizePods = pods;
  }
  const dl = downloadJob.ok() ? downloadJob.value : undefined;
  // a failure is settled once its cause (the log's last warning or error) is in the status
  const settled =
    a.status?.status === 'Ready' ||
    (a.status?.status === 'Failed' && jobPhase(dl) === 'failed' && a.status?.download?.message !== undefined);
  if (dl && !settled) {
    const log = await jobPodLog(ctx.client, dl, DOWNLOAD_CONTAINER).catch(() => undefined);
    if (log !== undefined) out.downloadLog = log;
    else if (jobPhase(dl) === 'failed') out.downloadLogUnread = true;
    if (jobPhase(dl) !== 'complete') {
      const pods = await jobPodsHealth(ctx.client, dl);
      if (pods) out.downloadPods = pods;
    }
  }
  return out;
}
