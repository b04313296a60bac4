// Where a model download stands, decided from data (docs/aim.md, "Caches and artifacts"; the ModelDeployment's
// managed storage in docs/kubeairunway.md uses the same downloader): the Job's phase, progress and the
// protocol in use from the downloader's log lines, and when a failed download is tried again. Pure.

/** the part of a batch/v1 Job this reads */
interface JobLike {
  status?: { conditions?: ReadonlyArray<{ type: string; status: string }> };
}

export const DEFAULT_DOWNLOAD_RETRY_MS = 5 * 60_000;
export const PROGRESS_POLL_MS = 2_000;

export type JobPhase = 'absent' | 'running' | 'complete' | 'failed';

export function jobPhase(job: JobLike | undefined): JobPhase {
  if (!job) return 'absent';
  const is = (type: string) => job.status?.conditions?.some((c) => c.type === type && c.status === 'True');
  // kube-controller-manager's Job controller sets SuccessCriteriaMet / FailureTarget as soon as the outcome is
  // decided and Complete / Failed only once every pod has terminated: the outcome counts from the first
  if (is('Complete') || is('SuccessCriteriaMet')) return 'complete';
  if (is('Failed') || is('FailureTarget')) return 'failed';
  return 'running';
}

export interface DownloadProgress {
  protocol?: string;
  attempt?: number;
  totalAttempts?: number;
  downloadedBytes?: number;
  totalBytes?: number;
  complete: boolean;
  /** the byte count the downloader reported when it finished (`Download complete via P: N bytes`) */
  completedBytes?: number;
  /** the last warning or error line */
  message?: string;
  /** when the downloader last reported activity (a protocol started, progress): ms since epoch, from the line's stamp */
  lastActivityAt?: number;
}

/** the downloader's state from its log: the last protocol tried, the last progress line, completion */
export function parseDownloadLog(log: string | undefined): DownloadProgress {
  const out: DownloadProgress = { complete: false };
  for (const line of (log ?? '').split('\n')) {
    const trying = /Trying protocol (\S+) \(attempt (\d+)\/(\d+)\)/.exec(line);
    if (trying)
      Object.assign(out, { protocol: trying[1], attempt: Number(trying[2]), totalAttempts: Number(trying[3]) });
    const progress = /progress (\d+)\/(\d+) bytes/.exec(line);
    if (progress) Object.assign(out, { downloadedBytes: Number(progress[1]), totalBytes: Number(progress[2]) });
    if (trying || progress) {
      const at = Date.parse(line.split(/\s/, 1)[0] ?? '');
      if (Number.isFinite(at)) out.lastActivityAt = at;
    }
    if (/Download complete/.test(line)) {
      out.complete = true;
      // the completion line names its protocol too: a log read by its last lines may have lost the "Trying" one
      const via = /Download complete via ([^\s:]+)/.exec(line);
      if (via) out.protocol = via[1];
      const bytes = /Download complete\b.*?(\d+) bytes/.exec(line);
      if (bytes) out.completedBytes = Number(bytes[1]);
    }
    if (/\b(WARN|ERROR)\b/.test(line)) out.message = line.replace(/^\S+Z\s+/, '').slice(0, 512);
  }
  return out;
}

/**
 * Seconds a running download has gone without progress, when that is more than its stall timeout
 * (STALL_TIMEOUT in its env, seconds; the downloader's own default 120); undefined while it moves.
 */
export function stalledSeconds(
  progress: DownloadProgress,
  env: ReadonlyArray<{ name: string; value?: string }>,
  now: number,
): number | undefined {
  if (progress.complete || progress.lastActivityAt === undefined) return undefined;
  const raw = Number(env.find((e) => e.name === 'STALL_TIMEOUT')?.value);
  const timeout = Number.isFinite(raw) && raw > 0 ? raw : 120;
  const idle = (now - progress.lastActivityAt) / 1000;
  return idle > timeout ? Math.floor(idle) : undefined;
}

export function percentage(downloaded: number | undefined, total: number | undefined): number | undefined {
  if (!total || downloaded === undefined) return undefined;
  return Math.max(0, Math.min(100, Math.floor((downloaded * 100) / total)));
}

export type RetryDecision = { retry: false; waitMs: number } | { retry: true };

/** a failed attempt is retried `retryMs` after it failed */
export function retryDecision(failedAt: number | undefined, now: number, retryMs: number): RetryDecision {
  const at = failedAt ?? now;
  const wait = at + retryMs - now;
  return wait > 0 ? { retry: false, waitMs: wait } : { retry: true };
}
