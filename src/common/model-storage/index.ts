// Model storage: derived names, the weights PVC and the Jobs that size and fill it. Pure builders shared by
// the AIM artifact controller and any other controller that downloads model weights onto a volume.

export {
  DEFAULT_DOWNLOAD_RETRY_MS,
  type DownloadProgress,
  type JobPhase,
  jobPhase,
  PROGRESS_POLL_MS,
  parseDownloadLog,
  percentage,
  type RetryDecision,
  retryDecision,
  stalledSeconds,
} from './download-state.ts';
export {
  buildCheckSizeJob,
  buildDownloadJob,
  CHECK_SIZE_CONTAINER,
  DEFAULT_DOWNLOAD_IMAGE,
  DOWNLOAD_CONTAINER,
  DOWNLOAD_MOUNT_PATH,
  downloadBaseEnv,
  downloadEnv,
  parseCheckSizeOutput,
  protocolSequence,
  type StorageJobInput,
} from './jobs.ts';
export { DNS_LABEL_MAX, derivedName, dnsLabelChars, hashOf } from './names.ts';
export {
  artifactAccessMode,
  buildModelPvc,
  configStorageClass,
  DEFAULT_ARTIFACT_ACCESS_MODE,
  DEFAULT_PVC_HEADROOM_PERCENT,
  displaySize,
  headroomPercent,
  type ModelPvcInput,
  pvcSize,
  quantityBytes,
} from './pvc.ts';
