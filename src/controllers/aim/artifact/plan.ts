// The artifact planner, health and status (docs/aim.md, "Caches and artifacts"). Pure: from the fetched
// PVC, Jobs and output to the check-size Job, the PVC (sized once: size × (1 + headroom %), the storage
// class from the artifact, else the runtime config), the download Job with the download env precedence,
// the components and the progress in status.
import type { KubeObject } from '@modelplane/runtime/meta';
import type { AIMArtifactStatus } from '../../../apis/aim/index.ts';
import type { EnvVar } from '../../../common/env-merge/index.ts';
import {
  artifactAccessMode,
  buildCheckSizeJob,
  buildDownloadJob,
  buildModelPvc,
  configStorageClass,
  DEFAULT_DOWNLOAD_IMAGE,
  displaySize,
  downloadBaseEnv,
  downloadEnv,
  headroomPercent,
  jobPhase,
  PROGRESS_POLL_MS,
  parseCheckSizeOutput,
  parseDownloadLog,
  percentage,
  protocolSequence,
  pvcSize,
  quantityBytes,
  retryDecision,
  stalledSeconds,
} from '../../../common/model-storage/index.ts';
import {
  type CategorizedError,
  categorize,
  invalidSpecError,
  resourceExhaustionError,
} from '../../../engine/errors.ts';
import type { FetchResult } from '../../../engine/fetch-result.ts';
import type { ComponentHealth, HealthReport } from '../../../engine/health.ts';
import { classifyLogTail } from '../../../engine/inspectors/log-patterns.ts';
import { pvcHealth } from '../../../engine/inspectors/workloads.ts';
import { PlanResult } from '../../../engine/plan.ts';
import type { EngineStatus, MaybeHealth } from '../../../engine/types.ts';
import type { AIMArtifact } from '../shared/kinds.ts';
import { podProblem } from '../shared/pod-health.ts';
import { type AimRuntimeConfig, runtimeConfigHealth } from '../shared/runtime-config-source.ts';
import { SECRET_VERSIONS_ANNOTATION, secretsChangedSince, secretVersionsAnnotation } from '../shared/secret-names.ts';
import type { ArtifactFetch } from './fetch.ts';
import { checkSizeJobName, downloadJobName, pvcName } from './names.ts';
import type { ArtifactObservation } from './observation.ts';
import { verificationFailure, waitingForPod } from './verify.ts';

export type { ArtifactObservation };

/** a log line that reports a failure (a level, a traceback, an exception), not progress or success */
const NAMES_A_FAILURE = /\b(ERROR|FATAL|CRITICAL|WARN|WARNING|Traceback|Exception|Error|error|failed|denied|refused)\b/;

function failureOf(log: string | undefined, what: string, fallback: string): CategorizedError {
  const classified = classifyLogTail(log, what);
  if (classified) return classified;
  const last = log?.trim().split('\n').at(-1);
  if (!last) return invalidSpecError('DownloadFailed', `${what} failed; ${fallback}`);
  if (NAMES_A_FAILURE.test(last)) return invalidSpecError('DownloadFailed', `${what} failed: ${last}; ${fallback}`);
  // quoting "Download complete" as the cause of a failure would mislead: the process died after it
  return invalidSpecError(
    'DownloadFailed',
    `${what} failed, but its log names no cause (its last line: ${last}): the container exited with an error after it; see its pod's exit code and full log; ${fallback}`,
  );
}

function stallTimeout(obs: ArtifactObservation): string {
  return obs.env.find((e) => e.name === 'STALL_TIMEOUT')?.value ?? '120';
}

/** ": 45 % of 16.4 GiB" while the downloader reports progress */
function progressNote(obs: ArtifactObservation): string {
  const total = obs.download.totalBytes ?? obs.sizeBytes;
  const pct = percentage(obs.download.downloadedBytes, total);
  return pct === undefined || total === undefined ? '' : `: ${pct} % of ${displaySize(total)}`;
}

/** does the env a download would get now differ from the failed Job's (so the failure may not repeat)? */
function envChanged(job: KubeObject | undefined, env: readonly EnvVar[]): boolean {
  const containers = (job?.spec as { template?: { spec?: { containers?: Array<{ env?: EnvVar[] }> } } } | undefined)
    ?.template?.spec?.containers;
  const had = containers?.[0]?.env;
  if (!had) return false;
  // names and plain values only: the API server defaults fields inside valueFrom (fieldRef.apiVersion), which
  // would make every comparison differ and retry a refused download at once, forever
  const key = (list: readonly EnvVar[]) =>
    JSON.stringify([...list].map((e) => [e.name, e.value ?? '', e.valueFrom ? 'valueFrom' : '']).sort());
  return key(had) !== key(env);
}

/** what a pod problem of the artifact's Jobs tells the user to change */
function podFix(a: AIMArtifact) {
  const where = `AIMArtifact ${a.metadata.namespace ?? ''}/${a.metadata.name ?? ''}`;
  return {
    pullSecrets: `spec.imagePullSecrets of ${where}`,
    resources: `the node capacity its Jobs request (${where})`,
  };
}

/** a new download Job records the versions of the Secrets its artifact names (a later change retries it at once) */
function withSecretVersions<T extends KubeObject>(job: T, versions: Readonly<Record<string, string>>): T {
  if (Object.keys(versions).length === 0) return job;
  const annotations = { ...job.metadata.annotations, [SECRET_VERSIONS_ANNOTATION]: secretVersionsAnnotation(versions) };
  return { ...job, metadata: { ...job.metadata, annotations } };
}

/** a failed Job's pod that was killed for memory: the log cannot say so, the pod's status does */
function podsFailure(pods: HealthReport | undefined): CategorizedError | undefined {
  const e = pods?.errors?.map(categorize).find((x) => x.reason === 'PodOOMKilled');
  return e
    ? resourceExhaustionError(e.reason, `${e.message}; the downloader needs more memory than the node gives it`)
    : undefined;
}

export function composeArtifact(
  a: AIMArtifact,
  fetched: ArtifactFetch,
  rc: AimRuntimeConfig | undefined,
  retryMs: number,
): ArtifactObservation {
  const ns = a.metadata.namespace ?? '';
  const name = a.metadata.name ?? '';
  const known = quantityBytes(a.spec.size) ?? a.status?.discoveredSizeBytes;
  const sizeJob = fetched.checkSizeJob.ok() ? fetched.checkSizeJob.value : undefined;
  const checked = fetched.checkSizeLog ? parseCheckSizeOutput(fetched.checkSizeLog) : undefined;
  const sizeBytes = known ?? (jobPhase(sizeJob) === 'complete' ? checked : undefined);
  const dl = fetched.downloadJob.ok() ? fetched.downloadJob.value : undefined;
  const base = downloadBaseEnv({ artifactName: name, namespace: ns, expectedSizeBytes: sizeBytes });
  const obs: ArtifactObservation = {
    ...fetched,
    sizePhase: known !== undefined ? 'known' : jobPhase(sizeJob),
    headroom: headroomPercent(rc?.spec),
    accessMode: artifactAccessMode(rc?.spec),
    env: downloadEnv(base, rc?.spec.env, a.spec.env),
    download: parseDownloadLog(fetched.downloadLog),
    downloadPhase: jobPhase(dl),
  };
  if (sizeBytes !== undefined) obs.sizeBytes = sizeBytes;
  const stalled = obs.downloadPhase === 'running' ? stalledSeconds(obs.download, obs.env, fetched.now) : undefined;
  if (stalled !== undefined) obs.stalledFor = stalled;
  const storageClass = a.spec.storageClassName || configStorageClass(rc?.spec);
  if (storageClass) obs.storageClass = storageClass;
  const failedAt = Date.parse(a.status?.lastFailureTime ?? '') || undefined;
  if (obs.sizePhase === 'failed') {
    obs.failure = failureOf(
      fetched.checkSizeLog,
      `check-size Job ${ns}/${checkSizeJobName(name)}`,
      `spec.sourceUri ${a.spec.sourceUri}`,
    );
    obs.retry = retryDecision(failedAt, fetched.now, retryMs);
  } else if (obs.sizePhase === 'complete' && sizeBytes === undefined) {
    obs.failure = invalidSpecError(
      'SizeUnknown',
      `check-size Job ${ns}/${checkSizeJobName(name)} printed no size; set spec.size on AIMArtifact ${ns}/${name}`,
    );
  } else if (obs.downloadPhase === 'failed') {
    // a settled failure is not read again (fetch.ts): its cause is the log line the status already holds
    obs.failure =
      podsFailure(fetched.downloadPods) ??
      failureOf(
        fetched.downloadLog ?? a.status?.download?.message,
        `download Job ${ns}/${downloadJobName(name, fetched.attempt)}`,
        'it is retried later',
      );
    // credentials fixed since (a token added to the runtime config or the artifact's env, or a Secret it
    // names created or changed): retry now
    obs.retry =
      obs.failure.category === 'Auth' && (envChanged(dl, obs.env) || secretsChangedSince(dl, fetched.secretVersions))
        ? { retry: true }
        : retryDecision(failedAt, fetched.now, retryMs);
  } else if (obs.downloadPhase === 'complete') {
    const unverified = verificationFailure(obs, `download Job ${ns}/${downloadJobName(name, fetched.attempt)}`);
    if (unverified) {
      obs.failure = unverified;
      obs.retry = retryDecision(failedAt, fetched.now, retryMs);
    }
  }
  return obs;
}

function jobInput(a: AIMArtifact, obs: ArtifactObservation) {
  return {
    namespace: a.metadata.namespace ?? '',
    image: a.spec.modelDownloadImage || DEFAULT_DOWNLOAD_IMAGE,
    sourceUri: a.spec.sourceUri,
    env: obs.env,
    labels: {
      'app.kubernetes.io/name': 'aim-artifact',
      'app.kubernetes.io/managed-by': 'modelplane',
      'aim.eai.amd.com/artifact': (a.metadata.name ?? '').slice(0, 63),
    },
    imagePullSecrets: a.spec.imagePullSecrets,
  };
}

/** the attempt a retry starts (the status moves to it) */
export const nextAttempt = (obs: ArtifactObservation) => (obs.retry?.retry ? obs.attempt + 1 : obs.attempt);

export function planArtifact(a: AIMArtifact, obs: ArtifactObservation): PlanResult {
  const plan = new PlanResult();
  const name = a.metadata.name ?? '';
  // a failure whose cause could not be read yet is looked at again soon (the log names it: auth, disk, …)
  if (obs.retry && !obs.retry.retry)
    return plan.requeueAfter(obs.downloadLogUnread ? Math.min(PROGRESS_POLL_MS, obs.retry.waitMs) : obs.retry.waitMs);
  if (obs.sizePhase === 'failed') {
    // the retry is due: a fresh check-size Job
    if (obs.checkSizeJob.ok()) plan.delete(obs.checkSizeJob.value);
    return plan;
  }
  if (obs.sizeBytes === undefined) {
    if (obs.sizePhase === 'absent')
      plan.apply(buildCheckSizeJob({ ...jobInput(a, obs), name: checkSizeJobName(name) }));
    return plan;
  }
  // a PVC is never resized or changed once it exists
  if (!obs.pvc.ok())
    plan.apply(
      buildModelPvc({
        name: pvcName(name),
        namespace: a.metadata.namespace ?? '',
        sizeBytes: obs.sizeBytes,
        headroomPercent: obs.headroom,
        storageClassName: obs.storageClass,
        accessModes: [obs.accessMode],
        labels: jobInput(a, obs).labels,
      }),
    );
  const attempt = nextAttempt(obs);
  if (obs.retry?.retry && obs.downloadJob.ok()) plan.delete(obs.downloadJob.value);
  if (obs.downloadPhase === 'absent' || obs.retry?.retry)
    plan.apply(
      withSecretVersions(
        buildDownloadJob({ ...jobInput(a, obs), name: downloadJobName(name, attempt), claimName: pvcName(name) }),
        obs.secretVersions,
      ),
    );
  if (obs.downloadPhase === 'running') plan.requeueAfter(PROGRESS_POLL_MS);
  return plan;
}

/** the download Job's component: failed, verified, stalled, waiting for its pod, or downloading */
function downloadHealth(
  a: AIMArtifact,
  obs: ArtifactObservation,
  failed: (component: string) => ComponentHealth,
): ComponentHealth {
  const job = `download Job ${a.metadata.namespace ?? ''}/${downloadJobName(a.metadata.name ?? '', obs.attempt)}`;
  if (obs.downloadPhase === 'failed' || (obs.downloadPhase === 'complete' && obs.failure)) return failed('DownloadJob');
  if (obs.downloadPhase === 'complete')
    return {
      component: 'DownloadJob',
      state: 'Ready',
      reason: 'Verified',
      message: `${job} downloaded ${a.spec.sourceUri}${obs.download.protocol ? ` via ${obs.download.protocol}` : ''}`,
    };
  if (obs.stalledFor !== undefined)
    return {
      component: 'DownloadJob',
      state: 'Degraded',
      reason: 'DownloadStalled',
      message: `${job} has made no progress for ${obs.stalledFor} s${progressNote(obs)} (STALL_TIMEOUT ${stallTimeout(obs)} s): the source or the network is stuck; the downloader gives up on the protocol and tries the next, or the attempt fails and is retried`,
    };
  if (waitingForPod(obs))
    return {
      component: 'DownloadJob',
      state: 'Progressing',
      reason: 'WaitingForPod',
      message: `${job} has not started downloading ${a.spec.sourceUri}: its pod cannot run yet (DownloadJobPodsReady says why)`,
    };
  return {
    component: 'DownloadJob',
    state: 'Progressing',
    reason: 'Downloading',
    message: `${job} is downloading ${a.spec.sourceUri}${obs.download.protocol ? ` via ${obs.download.protocol} (attempt ${obs.download.attempt}/${obs.download.totalAttempts})` : ''}${progressNote(obs)}`,
  };
}

export function artifactHealth(
  a: AIMArtifact,
  obs: ArtifactObservation,
  rc: FetchResult<AimRuntimeConfig> | undefined,
): MaybeHealth[] {
  const ns = a.metadata.namespace ?? '';
  const name = a.metadata.name ?? '';
  const waiting = obs.retry && !obs.retry.retry;
  const failed = (component: string): ComponentHealth =>
    waiting
      ? { component, errors: [obs.failure!] }
      : { component, state: 'Progressing', reason: 'Retrying', message: `${obs.failure!.message}; retrying now` };
  const size: MaybeHealth =
    obs.sizePhase === 'known'
      ? undefined
      : obs.failure && obs.sizePhase !== 'running' && obs.downloadPhase === 'absent'
        ? failed('CheckSizeJob')
        : obs.sizeBytes !== undefined
          ? {
              component: 'CheckSizeJob',
              state: 'Ready',
              reason: 'SizeDiscovered',
              message: `${a.spec.sourceUri} is ${displaySize(obs.sizeBytes)}`,
            }
          : {
              component: 'CheckSizeJob',
              state: 'Progressing',
              reason: 'CheckingSize',
              message: `check-size Job ${ns}/${checkSizeJobName(name)} is measuring ${a.spec.sourceUri}`,
            };
  const pvc: MaybeHealth =
    obs.sizeBytes === undefined
      ? undefined
      : obs.pvc.toDownstreamComponentHealth('CachePvc', (p) => pvcHealth(p, obs.pvcEvents));
  const download = obs.sizeBytes === undefined ? undefined : downloadHealth(a, obs, failed);
  const fix = podFix(a);
  return [
    runtimeConfigHealth(rc),
    size,
    podProblem('CheckSizeJobPods', obs.checkSizePods, fix),
    pvc,
    download,
    obs.downloadPhase === 'running' ? podProblem('DownloadJobPods', obs.downloadPods, fix) : undefined,
  ];
}

type ArtifactStatus = EngineStatus & AIMArtifactStatus;

export function decorateArtifactStatus(status: ArtifactStatus, obs: ArtifactObservation, a: AIMArtifact): void {
  status.mode = (a.metadata.ownerReferences ?? []).some((r) => r.controller) ? 'Dedicated' : 'Shared';
  if (obs.sizeBytes !== undefined) {
    if (a.spec.size === undefined) status.discoveredSizeBytes = obs.sizeBytes;
    status.displaySize = displaySize(obs.sizeBytes);
    status.allocatedSize = pvcSize(obs.sizeBytes, obs.headroom);
    status.headroomPercent = obs.headroom;
    status.persistentVolumeClaim = pvcName(a.metadata.name ?? '');
  }
  const total = obs.download.totalBytes ?? obs.sizeBytes;
  const done = obs.downloadPhase === 'complete' ? total : obs.download.downloadedBytes;
  const pct = obs.downloadPhase === 'complete' ? 100 : percentage(done, total);
  if (obs.failure && obs.retry && !obs.retry.retry) {
    status.progress = { ...(total ? { totalBytes: total } : {}), displayPercentage: 'N/A' };
    status.lastFailureTime ??= new Date(obs.now).toISOString().replace(/\.\d+Z$/, 'Z');
  } else if (pct !== undefined) {
    status.progress = {
      ...(total ? { totalBytes: total } : {}),
      ...(done !== undefined ? { downloadedBytes: done } : {}),
      percentage: pct,
      displayPercentage: `${pct} %`,
    };
  }
  // a retry under way (or done) is no longer a failure
  if (!obs.failure || obs.retry?.retry) delete status.lastFailureTime;
  const sequence = protocolSequence(obs.env);
  // the log is read only while the download runs: a settled artifact keeps what it last learned from it
  const seen = obs.downloadLog === undefined && !obs.retry?.retry ? (status.download ?? {}) : {};
  const attempt = obs.download.attempt ?? seen.attempt;
  const protocol = obs.download.protocol ?? seen.protocol;
  const message = obs.download.message ?? seen.message;
  status.downloadAttempt = nextAttempt(obs);
  status.download = {
    ...(attempt ? { attempt } : {}),
    protocolSequence: sequence.join(','),
    ...(protocol ? { protocol } : {}),
    totalAttempts: obs.download.totalAttempts ?? seen.totalAttempts ?? sequence.length,
    ...(message ? { message } : {}),
  };
}
