// The reconcile engine (docs/controllers.md): FetchResult, ComponentHealth, error categories, ConditionManager, the
// state engine, PlanResult, the pipeline and the one status-write path. Controllers import from here; see
// docs/controllers.md. Only what some controller or test uses is exported.

export { type ApplyOutcome, executePlan, type FailedWrite, prepareForApply } from './apply.ts';
export {
  asError,
  asInfo,
  asWarning,
  type Condition,
  ConditionManager,
  conditionTime,
  quietWhenNew,
  sanitizeReason,
  shouldReport,
  silent,
  withEventReason,
} from './conditions.ts';
export {
  authError,
  CATEGORY_BEHAVIOUR,
  CategorizedError,
  categorize,
  infrastructureError,
  invalidSpecError,
  missingDownstreamError,
  missingUpstreamError,
  resourceExhaustionError,
} from './errors.ts';
export { clientReader, FetchResult, fetch, fetchList, type ObjectReader } from './fetch-result.ts';
export { type Clock, ManualClock, systemClock } from './grace.ts';
export { type ComponentHealth, type ComponentState, type HealthReport, normalizeHealth } from './health.ts';
export { fetchEventsFor, fetchPodDiagnostics } from './inspectors/diagnostics.ts';
export { jobPodsHealth, livePodsHealth } from './inspectors/live.ts';
export { classifyImagePull, classifyLogTail } from './inspectors/log-patterns.ts';
export { inspectPod, type PodDiagnostics, podsHealth } from './inspectors/pods.ts';
export {
  type ContainerState,
  type ContainerStateTerminated,
  type ContainerStateWaiting,
  type ContainerStatus,
  type CoreEvent,
  eventTime,
  findCondition,
  type HTTPRoute,
  type Job,
  type KubeCondition,
  type PersistentVolumeClaim,
  type Pod,
} from './inspectors/types.ts';
export { httpRouteHealth, jobHealth, pvcHealth } from './inspectors/workloads.ts';
export { jobPodLog } from './job-logs.ts';
export { addLabelsIfAbsent, type LabelPropagator, staticLabels } from './labels.ts';
export { extractOwned, ownedStatus } from './owned-fields.ts';
export { Pipeline } from './pipeline.ts';
export {
  type PipelineOptions,
  pipelineReconciler,
  RequeueError,
  type RunDeps,
  type RunOutcome,
  type RunPhase,
  runtimeConfigValue,
  toResult,
} from './pipeline-contract.ts';
export { type ObjectRef, type PlanApplyOptions, PlanResult } from './plan.ts';
export {
  bestCandidate,
  fetchUnlessDownstreamExists,
  fromCandidates,
  lockedReference,
  type ResolvedReference,
  resolveWithStoredReference,
} from './references.ts';
export { type EngineLogger, reportObservations, SILENT_LOG } from './report.ts';
export { DEFAULT_SETTLE_WINDOW_MS, SettleWindow } from './settle.ts';
export { type Decision, decide } from './state-engine.ts';
export { StatusHelper } from './status-helper.ts';
export { type StatusWriteResult, writeOwnedStatus } from './status-write.ts';
export type {
  DomainReconciler,
  EngineStatus,
  FetchContext,
  MaybeHealth,
  PlanContext,
  ReadClient,
  RuntimeConfigSource,
  StatusContext,
} from './types.ts';
