// What the pipeline (pipeline.ts) is given and what one run gives back: its options, the runtime's
// dependencies, the run's outcome and how that outcome becomes packages/runtime's Result. Kept apart from
// the phases themselves so a reader of either holds one subject. See docs/controllers.md.

import type { InformerSpec } from '@modelplane/runtime/cache';
import type { KubeClient } from '@modelplane/runtime/client';
import type { ReconcileContext, Reconciler, Result } from '@modelplane/runtime/controller';
import type { EventRecorder } from '@modelplane/runtime/events';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import type { ApplyOutcome } from './apply.ts';
import type { CategorizedError } from './errors.ts';
import type { FetchResult, ObjectReader } from './fetch-result.ts';
import type { Clock, GraceState } from './grace.ts';
import type { ComponentState } from './health.ts';
import type { LabelPropagator } from './labels.ts';
import type { ObjectRef } from './plan.ts';
import type { EngineLogger } from './report.ts';
import type { Decision } from './state-engine.ts';
import type { DomainReconciler, EngineStatus, PlanContext, ReadClient, RuntimeConfigSource } from './types.ts';

export interface PipelineOptions<T extends KubeObject, F, O, C, S extends EngineStatus> {
  /** the controller's name, for logs */
  name: string;
  reconciler: DomainReconciler<T, F, O, C, S>;
  /** an annotation (or several spellings of it) that, set to exactly "true", makes the pipeline leave the object alone */
  pauseAnnotation?: string | readonly string[];
  runtimeConfig?: RuntimeConfigSource<T, C>;
  /** applied to every planned object before it is applied */
  labelPropagators?: readonly LabelPropagator<C>[];
  /** status field for the overall state (default `status`, null = none) */
  statusField?: string | null;
  /** the kind's names for states (AIMService: Progressing → Starting, Ready → Running) */
  mapState?: (state: ComponentState) => string;
  /**
   * record metadata.generation as status.observedGeneration and as the conditions' observedGeneration
   * (the CRD schema must allow both); 'conditions': on the conditions only (a controller that shares the
   * status with others, whose observedGeneration says what they acted on)
   */
  observedGeneration?: boolean | 'conditions';
  /** owned children get blockOwnerDeletion: true on their ownerReference (KubeAIRunway's provider resources) */
  blockOwnerDeletion?: boolean;
  /**
   * the cache informer that holds the controller's children of a kind, for the apply step's no-op check
   * (a label-filtered one, so that check does not open an informer over every object of the kind)
   */
  childInformer?: (ref: ObjectRef) => InformerSpec | undefined;
  /** turns a failed write's error into the controller's own category and reason (apply.ts) */
  classifyWriteError?: (err: CategorizedError) => CategorizedError;
  clock?: Clock;
  gracePeriodMs?: number;
  /**
   * hold back a status that only says "the children this reconcile just wrote are not ready yet" for up
   * to this long (settle.ts); 0 or unset writes every status at once
   */
  settleWindowMs?: number;
}

/** what the pipeline needs from the runtime for one run (packages/runtime's ReconcileContext provides it) */
export interface RunDeps {
  client: Pick<KubeClient, 'apply' | 'applyStatus' | 'delete' | 'fieldManager'> & ReadClient;
  reader: ObjectReader;
  recorder?: EventRecorder;
  log?: EngineLogger;
  signal?: AbortSignal;
}

export type RunPhase = 'paused' | 'deleting' | 'reconciled';

export interface RunOutcome {
  phase: RunPhase;
  decision?: Decision;
  /** the overall state (automatic mode), before mapState */
  state?: ComponentState;
  /** the status this controller owns, as computed by this run (written, held back or unchanged) */
  status?: EngineStatus;
  /** the last observation (composeState's result), for a thin controller's metrics and events */
  observation?: unknown;
  apply?: ApplyOutcome;
  /** every categorised error of this run (components, planning, apply, status write) */
  errors: CategorizedError[];
  grace?: GraceState;
  statusWritten: boolean;
  /** the status write lost a race with another writer; the key is requeued */
  statusConflict: boolean;
  /** the status write answered 404: the object was deleted; nothing is requeued (its deletion event follows) */
  objectGone?: boolean;
  /** a changed status was held back inside the settle window; requeueAfterMs says when it ends */
  statusHeld: boolean;
  /** retry with backoff (infrastructure errors) */
  requeueWithBackoff: boolean;
  requeueAfterMs?: number;
}

/** thrown to packages/runtime's controller so the key is retried with exponential backoff */
export class RequeueError extends Error {
  constructor(readonly errors: readonly CategorizedError[]) {
    super(`retrying after infrastructure errors: ${errors.map((e) => e.message).join('; ')}`);
    this.name = 'RequeueError';
  }
}

/** is `object` annotated with (one of) `annotation` set to exactly "true"? */
export function isPaused(object: KubeObject, annotation: string | readonly string[] | undefined): boolean {
  if (!annotation) return false;
  const names = typeof annotation === 'string' ? [annotation] : annotation;
  return names.some((name) => object.metadata.annotations?.[name] === 'true');
}

/** packages/runtime's Result for an outcome; infrastructure errors become a thrown RequeueError (exponential backoff) */
export function toResult(outcome: RunOutcome): Result {
  // a retry or a look again would only meet the 404 again while a stale cache still holds the object
  if (outcome.objectGone) return {};
  if (outcome.requeueWithBackoff) throw new RequeueError(outcome.errors);
  // a lost status race is retried rather than left to the watch: the newer object's event may be one the
  // controller filters (its own status write), and a spurious 409 brings no event at all
  if (outcome.statusConflict) return { requeue: true };
  return outcome.requeueAfterMs !== undefined ? { requeueAfter: outcome.requeueAfterMs } : {};
}

/**
 * A packages/runtime Reconciler running `pipeline` for objects of `kind`, read from the cache. Objects that are
 * gone need nothing (children are garbage-collected through their ownerReferences).
 */
export function pipelineReconciler<T extends KubeObject>(
  kind: KindRef<T>,
  pipeline: { reconcile(object: T, ctx: ReconcileContext): Promise<Result> },
): Reconciler {
  return async (req, ctx) => {
    const object = await ctx.cache.get(kind, req.name, req.namespace || undefined);
    if (!object) return {};
    return pipeline.reconcile(object, ctx);
  };
}

/** the runtime config (when the kind has one), typed for planners */
export function runtimeConfigValue<C>(ctx: PlanContext<KubeObject, C>): C | undefined {
  const rc: FetchResult<C> | undefined = ctx.runtimeConfig;
  return rc?.ok() ? rc.value : undefined;
}
