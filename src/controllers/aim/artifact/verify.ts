// The DownloadComplete condition (docs/aim.md, "Caches and artifacts"): Downloading while the Job runs (with
// how far it got), then Verified once the byte count the downloader reported matches the size the PVC was
// sized for, or VerificationFailed when it fell short (the attempt then counts as failed and is retried).
// The type does not end in "Ready", so it informs without feeding the artifact's own state twice.
import { displaySize, percentage } from '../../../common/model-storage/index.ts';
import { type ConditionManager, silent } from '../../../engine/conditions.ts';
import { invalidSpecError } from '../../../engine/errors.ts';
import { podProblem } from '../shared/pod-health.ts';
import type { ArtifactObservation } from './observation.ts';

export const DOWNLOAD_COMPLETE = 'DownloadComplete';
/** a download this much smaller than expected did not finish (sizes of a source are estimates, to the byte) */
const VERIFY_TOLERANCE = 0.99;

/** the verification failure of a completed download, if its reported size falls short of the expected one */
export function verificationFailure(
  obs: Pick<ArtifactObservation, 'download' | 'downloadPhase' | 'sizeBytes'>,
  job: string,
) {
  const got = obs.download.completedBytes;
  const want = obs.sizeBytes;
  if (obs.downloadPhase !== 'complete' || got === undefined || want === undefined) return undefined;
  if (got >= want * VERIFY_TOLERANCE) return undefined;
  return invalidSpecError(
    'VerificationFailed',
    `${job} finished with ${displaySize(got)} (${got} bytes) of the expected ${displaySize(want)} (${want} bytes); the download is incomplete and is retried`,
  );
}

/**
 * the download Job runs but its pod cannot (unschedulable, image pull refused or missing) and the downloader
 * has reported nothing yet: it is not downloading, whatever the Job's phase says
 */
export function waitingForPod(obs: ArtifactObservation): boolean {
  if (obs.downloadPhase !== 'running' || obs.download.protocol !== undefined) return false;
  if (obs.download.downloadedBytes !== undefined) return false;
  return podProblem('DownloadJobPods', obs.downloadPods, { pullSecrets: '', resources: '' }) !== undefined;
}

export function setDownloadComplete(cm: ConditionManager, obs: ArtifactObservation): void {
  const d = obs.download;
  if (waitingForPod(obs))
    cm.markUnknown(
      DOWNLOAD_COMPLETE,
      'WaitingForPod',
      'not started: the download pod cannot run yet (DownloadJobPodsReady says why)',
      silent(),
    );
  else if (obs.downloadPhase === 'running') {
    const pct = percentage(d.downloadedBytes, d.totalBytes ?? obs.sizeBytes);
    const via = d.protocol ? ` via ${d.protocol}` : '';
    cm.markUnknown(
      DOWNLOAD_COMPLETE,
      'Downloading',
      pct === undefined ? `downloading${via}` : `${pct} % of ${displaySize(d.totalBytes ?? obs.sizeBytes ?? 0)}${via}`,
      silent(),
    );
  } else if (obs.downloadPhase === 'complete' && obs.downloadLog !== undefined) {
    // judged once, from the log read when the Job completed; later reconciles keep the verdict
    if (obs.failure?.reason === 'VerificationFailed')
      cm.markFalse(DOWNLOAD_COMPLETE, 'VerificationFailed', obs.failure.message);
    else
      cm.markTrue(
        DOWNLOAD_COMPLETE,
        'Verified',
        d.completedBytes !== undefined
          ? `${displaySize(d.completedBytes)} downloaded, matching the expected size`
          : 'the download completed (the downloader reported no byte count to check)',
      );
  } else if (obs.downloadPhase === 'failed') {
    cm.markFalse(DOWNLOAD_COMPLETE, 'DownloadFailed', obs.failure?.message ?? 'the download failed', silent());
  }
}
