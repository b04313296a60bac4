// Controllers: the reconcile loop, its builder, the work queue, rate limiters, event predicates and backoff.

export { Backoff, type BackoffOptions, randomBetween, sleep } from './backoff.ts';
export { type BuilderDeps, type BuilderOptions, ControllerBuilder, type SourceOptions } from './builder.ts';
export {
  Controller,
  type ControllerOptions,
  type MapFunc,
  mapControllerOwner,
  mapSelf,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  type Source,
  TerminalError,
} from './controller.ts';
export {
  and,
  annotationsChanged,
  deletionStarted,
  generationChanged,
  ignoreFinalizerChange,
  ignoreOwnStatusWrites,
  labelsChanged,
  nonStatusChanged,
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
export {
  ReferencedObjectWatch,
  type ReferencedObjectWatchOptions,
  type ReferencingSource,
} from './references.ts';
export { WorkQueue, type WorkQueueOptions } from './workqueue.ts';
