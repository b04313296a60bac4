// What the artifact planner works from: the fetched state (fetch.ts) and what the reconciler derived from it
// (sizes, the access mode, the download's progress and outcome). Its own module, so the planner and the
// verification step (verify.ts) share it without importing each other.
import type { EnvVar } from '../../../common/env-merge/index.ts';
import type { DownloadProgress, JobPhase, RetryDecision } from '../../../common/model-storage/index.ts';
import type { CategorizedError } from '../../../engine/errors.ts';
import type { ArtifactFetch } from './fetch.ts';

export interface ArtifactObservation extends ArtifactFetch {
  sizeBytes?: number;
  sizePhase: JobPhase | 'known';
  headroom: number;
  storageClass?: string;
  accessMode: string;
  env: EnvVar[];
  download: DownloadProgress;
  downloadPhase: JobPhase;
  /** seconds the running download has gone without progress past its STALL_TIMEOUT */
  stalledFor?: number;
  /** the error a failed Job's output shows (auth, disk full, …) */
  failure?: CategorizedError;
  retry?: RetryDecision;
}
