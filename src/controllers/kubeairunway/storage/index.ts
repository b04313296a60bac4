// A ModelDeployment's model storage (docs/kubeairunway.md, "Model storage"): the volumes as providers mount
// them, and the managed PVCs and download Job the provider skeleton plans before the serving resource.

export { markStorageConditions, STORAGE_CONDITION_TYPES } from './conditions.ts';
export {
  CONDITION_MODEL_DOWNLOADED,
  DOWNLOAD_PVC_UID_ANNOTATION,
  DOWNLOAD_SPEC_ANNOTATION,
  downloadJob,
  downloadJobName,
  failureText,
  JOB_TYPE_LABEL,
  planDownload,
  sourceUriOf,
} from './download.ts';
export { fetchStorage, StorageJobs, StoragePvcs } from './fetch.ts';
export {
  downloadedBefore,
  planStorage,
  type StorageFetch,
  type StoragePlan,
  type StoragePlanOptions,
  storageObjects,
} from './plan.ts';
export {
  CONDITION_STORAGE_READY,
  managedPvc,
  planPvcs,
  type StorageBlock,
  type StorageCondition,
  storageLabels,
} from './pvcs.ts';
export {
  containerStorageFields,
  downloadVolume,
  HF_HOME_ENV,
  modelCacheEnv,
  podStorageFields,
  type ResolvedVolume,
  resolveVolumes,
  storageDeletionMessage,
  storagePodVolumes,
  storageVolumeMounts,
} from './volumes.ts';
