// The download half of a deployment's storage (docs/kubeairunway.md, "Model storage"): the Job
// `<deployment>-model-download` that fills the managed modelCache PVC with hf://<model.id> (the same
// downloader, env and progress lines as an AIM artifact's download), and the ModelDownloaded condition:
// progress while it runs, the cause and what to do when it fails, a retry after the retry interval, or at
// once when the spec the Job was built from changed (a token Secret named, say). Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import { KAR_GROUP, type ModelDeployment } from '../../../apis/kubeairunway/index.ts';
import { mergeEnvByName } from '../../../common/env-merge/index.ts';
import {
  buildDownloadJob,
  DEFAULT_DOWNLOAD_IMAGE,
  displaySize,
  downloadBaseEnv,
  downloadEnv,
  hashOf,
  jobPhase,
  parseDownloadLog,
  percentage,
  retryDecision,
} from '../../../common/model-storage/index.ts';
import { classifyLogTail } from '../../../engine/inspectors/log-patterns.ts';
import type { Job } from '../../../engine/inspectors/types.ts';
import { hfTokenEnv, userEnv } from '../providers/common/env.ts';
import { DOWNLOAD_JOB_SUFFIX } from '../validation/index.ts';
import { type StorageBlock, type StorageCondition, storageLabels } from './pvcs.ts';
import type { ResolvedVolume } from './volumes.ts';

export const CONDITION_MODEL_DOWNLOADED = 'ModelDownloaded';
/** marks the Jobs the storage half manages */
export const JOB_TYPE_LABEL = `${KAR_GROUP}/job-type`;
/** on the Job: a hash of what it was built from (a failed Job built from an older spec is retried at once) */
export const DOWNLOAD_SPEC_ANNOTATION = `${KAR_GROUP}/download-spec`;
/** on the Job: the uid of the PVC it filled (a PVC recreated since then is downloaded into again) */
export const DOWNLOAD_PVC_UID_ANNOTATION = `${KAR_GROUP}/download-pvc-uid`;

export function downloadJobName(md: Pick<ModelDeployment, 'metadata'>): string {
  return `${md.metadata.name ?? ''}${DOWNLOAD_JOB_SUFFIX}`;
}

export const sourceUriOf = (md: Pick<ModelDeployment, 'spec'>) => `hf://${md.spec.model?.id ?? ''}`;

/** the Job that downloads the model into `volume`'s PVC (whose uid it records) */
export function downloadJob(md: ModelDeployment, volume: ResolvedVolume, pvcUid: string | undefined): KubeObject {
  const name = downloadJobName(md);
  const namespace = md.metadata.namespace ?? '';
  const base = downloadBaseEnv({ artifactName: md.metadata.name ?? '', namespace });
  // the token by reference and spec.env (proxies, HF_ENDPOINT) over the downloader's defaults
  const env = downloadEnv(base, undefined, mergeEnvByName(hfTokenEnv(md), userEnv(md)));
  const input = { image: DEFAULT_DOWNLOAD_IMAGE, sourceUri: sourceUriOf(md), env, claimName: volume.claimName };
  const job = buildDownloadJob({
    ...input,
    name,
    namespace,
    labels: { ...storageLabels(md), [JOB_TYPE_LABEL]: 'model-download' },
  });
  return {
    ...job,
    metadata: {
      ...job.metadata,
      annotations: {
        [DOWNLOAD_SPEC_ANNOTATION]: hashOf([input]),
        ...(pvcUid ? { [DOWNLOAD_PVC_UID_ANNOTATION]: pvcUid } : {}),
      },
    },
  };
}

export interface DownloadInput {
  md: ModelDeployment;
  volume: ResolvedVolume;
  /** the PVC's uid once it exists (the Job is created only then) */
  pvcUid: string | undefined;
  job: Job | undefined;
  /** the downloader's log while the Job runs or just failed */
  log: string | undefined;
  /** ModelDownloaded was True in the status we wrote (a download finished before) */
  downloadedBefore: boolean;
  now: number;
  retryMs: number;
}

export interface DownloadPlan {
  apply: KubeObject[];
  delete: KubeObject[];
  condition: StorageCondition;
  block?: StorageBlock;
  requeueAfterMs?: number;
}

const cond = (status: StorageCondition['status'], reason: string, message: string): StorageCondition => ({
  type: CONDITION_MODEL_DOWNLOADED,
  status,
  reason,
  message,
});

function progressText(log: string | undefined): string {
  const p = parseDownloadLog(log);
  const pct = percentage(p.downloadedBytes, p.totalBytes);
  const parts: string[] = [];
  if (pct !== undefined)
    parts.push(`${pct} % (${displaySize(p.downloadedBytes ?? 0)} of ${displaySize(p.totalBytes ?? 0)})`);
  if (p.protocol)
    parts.push(`via ${p.protocol}${p.totalAttempts ? ` (protocol ${p.attempt} of ${p.totalAttempts})` : ''}`);
  if (p.message) parts.push(`last warning: ${p.message}`);
  return parts.length > 0 ? `: ${parts.join(', ')}` : '';
}

/** the failure's cause from the downloader's log, and what the user can do about it */
export function failureText(input: Pick<DownloadInput, 'md' | 'volume' | 'log'>, job: string): string {
  const { md, volume } = input;
  const cause = classifyLogTail(input.log, job);
  const lastLine = input.log?.trim().split('\n').at(-1);
  const what = cause?.message ?? `${job} failed${lastLine ? `: ${lastLine}` : ''}`;
  switch (cause?.reason) {
    case 'AuthError':
      return `${what}; ${md.spec.model?.id} needs a Hugging Face token: set spec.secrets.huggingFaceToken to a Secret whose HF_TOKEN key may read it`;
    case 'SourceNotFound':
      return `${what}; check spec.model.id (${md.spec.model?.id})`;
    case 'StorageFull':
      return `${what}; ${volume.field}.size (${volume.managed?.size}) is too small for the model: recreate the ModelDeployment with a larger size`;
    default:
      return `${what}; see kubectl logs -n ${md.metadata.namespace} job/${downloadJobName(md)}`;
  }
}

function failed(input: DownloadInput, job: Job, jobRef: string): DownloadPlan {
  // when it failed (its Failed condition), else when it was created: the retry clock must not restart each reconcile
  const failedCondition = job.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  const failedAt =
    Date.parse(failedCondition?.lastTransitionTime ?? '') || Date.parse(job.metadata.creationTimestamp ?? '');
  const built = job.metadata.annotations?.[DOWNLOAD_SPEC_ANNOTATION];
  const specChanged =
    built !== undefined &&
    built !== downloadJob(input.md, input.volume, input.pvcUid).metadata.annotations?.[DOWNLOAD_SPEC_ANNOTATION];
  const retry = specChanged
    ? { retry: true as const }
    : retryDecision(Number.isNaN(failedAt) ? undefined : failedAt, input.now, input.retryMs);
  const why = failureText(input, jobRef);
  if (retry.retry) {
    const what = specChanged ? 'the spec changed since the failed download' : 'retrying the failed download';
    return waiting('RetryingDownload', `${what} (${why}): replacing ${jobRef}`, { delete: [job] });
  }
  const at = new Date(input.now + retry.waitMs).toISOString().replace(/\.\d+Z$/, 'Z');
  const message = `${why}; retrying at ${at} (or delete the Job to retry now)`;
  return {
    apply: [],
    delete: [],
    condition: cond('False', 'DownloadFailed', message),
    block: { reason: 'DownloadFailed', message, failed: true },
    requeueAfterMs: retry.waitMs,
  };
}

/** the download is not done: the serving resource waits (ModelDownloaded Unknown) */
function waiting(reason: string, message: string, extra: Partial<DownloadPlan> = {}): DownloadPlan {
  return {
    apply: [],
    delete: [],
    condition: cond('Unknown', reason, message),
    block: { reason, message, failed: false },
    ...extra,
  };
}

const downloaded = (message: string): DownloadPlan => ({
  apply: [],
  delete: [],
  condition: cond('True', 'ModelDownloaded', message),
});

/** the download Job to create or replace, and ModelDownloaded */
export function planDownload(input: DownloadInput, pollMs: number): DownloadPlan {
  const { md, volume, job } = input;
  const ns = md.metadata.namespace ?? '';
  const jobRef = `download Job ${ns}/${downloadJobName(md)}`;
  const pvcRef = `PersistentVolumeClaim ${ns}/${volume.claimName}`;
  const into = `${sourceUriOf(md)} into ${pvcRef}`;
  if (!input.pvcUid) return waiting('WaitingForStorage', `waiting for ${pvcRef} before downloading ${sourceUriOf(md)}`);
  if (!job) {
    if (input.downloadedBefore) return downloaded(`${into}: downloaded`);
    return waiting('Downloading', `${jobRef} is downloading ${into}`, {
      apply: [downloadJob(md, volume, input.pvcUid)],
      requeueAfterMs: pollMs,
    });
  }
  if (job.metadata.deletionTimestamp)
    return waiting(
      'RetryingDownload',
      `waiting for the previous ${jobRef} to be deleted before downloading ${into} again`,
      {
        requeueAfterMs: pollMs,
      },
    );
  const phase = jobPhase(job);
  if (phase === 'failed') return failed(input, job, jobRef);
  const filled = job.metadata.annotations?.[DOWNLOAD_PVC_UID_ANNOTATION];
  if (phase === 'complete' && filled !== undefined && filled !== input.pvcUid)
    return waiting('RetryingDownload', `${pvcRef} was recreated after ${jobRef} filled it: downloading again`, {
      delete: [job],
    });
  if (phase === 'complete') {
    const p = parseDownloadLog(input.log);
    return downloaded(`${jobRef} downloaded ${into}${p.protocol ? ` via ${p.protocol}` : ''}`);
  }
  return waiting('Downloading', `${jobRef} is downloading ${into}${progressText(input.log)}`, {
    requeueAfterMs: pollMs,
  });
}
