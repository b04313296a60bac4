// The controller runtime's public surface. Controllers and the engine import from here.

export { needsApply } from './apply-noop.ts';
export { Backoff, type BackoffOptions, randomBetween, sleep } from './backoff.ts';
export { type BuilderDeps, type BuilderOptions, ControllerBuilder, type SourceOptions } from './builder.ts';
export { Cache, type CacheListOptions, type CacheOptions, type InformerSpec } from './cache.ts';
export {
  type ApplyOptions,
  type ClientOptions,
  type DeleteOptions,
  type PodLogOptions,
  KubeClient,
  type ListOptions,
  loadKubeConfig,
  type OwnWriteObserver,
  type PatchType,
  type WriteObserver,
  type WriteOptions,
} from './client.ts';
export {
  Controller,
  type ControllerOptions,
  mapControllerOwner,
  type MapFunc,
  mapSelf,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Source,
  TerminalError,
} from './controller.ts';
export { ensureCrd, type EnsureCrdOptions } from './crd.ts';
export { deepEqual, isSubset } from './equality.ts';
export {
  ApiError,
  type ApiErrorInit,
  isAborted,
  isAlreadyExists,
  isApplyConflict,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNetworkError,
  isNotFound,
  isServerError,
  isTimeout,
  isTooManyRequests,
  isTransient,
  isUnauthorized,
  type NetworkCause,
  networkCause,
  type Status,
  type StatusCause,
  type StatusDetails,
} from './errors.ts';
export {
  AggregatingRecorder,
  apiEventSink,
  discardRecorder,
  type EventRecorder,
  type EventSeries,
  type EventSink,
  EventsV1,
  type EventType,
  type KubeEvent,
  microTime,
  type RecorderOptions,
} from './events.ts';
export { deepFreeze, type DeepReadonly, thaw } from './freeze.ts';
export {
  buildQuery,
  type HttpMethod,
  type HttpRequest,
  type HttpResponse,
  type QueryValue,
  Transport,
  type TransportOptions,
} from './http.ts';
export { type EventHandler, Informer, type InformerOptions, type ListWatchTuning } from './informer.ts';
export {
  type ConfigMap,
  ConfigMaps,
  type CustomResourceDefinition,
  CustomResourceDefinitions,
  Deployments,
  HorizontalPodAutoscalers,
  Jobs,
  type Namespace,
  Namespaces,
  PersistentVolumeClaims,
  Pods,
  type Secret,
  Secrets,
  ServiceAccounts,
  Services,
} from './kinds.ts';
export {
  type LabelSelectorObject,
  type Operator,
  parseSelector,
  type Requirement,
  Selector,
  selectorFromObject,
} from './labels.ts';
export {
  apiLeaseStore,
  type Clock,
  type LeaderCallbacks,
  type LeaderElectionOptions,
  LeaderElector,
  type LeaseRecord,
  Leases,
  type LeaseStore,
  realClock,
  type StoredLease,
} from './leaderelection.ts';
export { ListWatch, type ListWatchHandler, type ListWatchOptions } from './listwatch.ts';
export {
  type LogFields,
  Logger,
  type LogLevel,
  type LogSink,
  parseLogLevel,
  rootLogger,
  setProcessLogSink,
} from './log.ts';
export { type Check, type LeaderElectionConfig, Manager, type ManagerOptions, type Runnable } from './manager.ts';
export {
  collectionPath,
  isNoKindMatch,
  NoKindMatchError,
  objectPath,
  type ResourceMapping,
  RestMapper,
} from './mapper.ts';
export {
  type InFlightWork,
  type QueueMetrics,
  type ReconcileResult,
  RuntimeMetrics,
  sharedMetrics,
} from './metrics.ts';
export { finalizer, type FinalizerEvent, type FinalizerOptions, hasFinalizer } from './finalizer.ts';
export {
  and,
  annotationsChanged,
  deletionStarted,
  generationChanged,
  ignoreFinalizerChange,
  ignoreOwnStatusWrites,
  labelsChanged,
  not,
  type ObjectEvent,
  or,
  type Predicate,
  resourceVersionChanged,
} from './predicates.ts';
export {
  BucketRateLimiter,
  CappedRateLimiter,
  DEFAULT_MAX_RETRY_DELAY_MS,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
} from './ratelimit.ts';
export { builtinIndexers, INDEX_NAMESPACE, INDEX_OWNER, type IndexFunc, Store, type StoreChange } from './store.ts';
export {
  controllerOf,
  controllerRef,
  type GroupVersion,
  keyOf,
  type KindRef,
  kindRef,
  type KubeList,
  type KubeObject,
  type ListMeta,
  type ManagedFieldsEntry,
  type ObjectKey,
  objectKeyString,
  type ObjectMeta,
  type OwnerReference,
  parseApiVersion,
  parseKey,
  type WatchEvent,
  type WatchEventType,
} from './types.ts';
export { WorkQueue, type WorkQueueOptions } from './workqueue.ts';
