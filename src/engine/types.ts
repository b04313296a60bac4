// The contract between a controller and the engine. A controller is a fetch function (the only place
// that reads the cluster), an optional compose step, a pure planner, and health and status hooks.
// Planning is pure by construction: the planner and the status hooks receive data only (no client, no
// reader) and are synchronous, so they cannot await any I/O.

import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ApplyOutcome } from './apply.ts';
import type { Condition, ConditionManager } from './conditions.ts';
import type { CategorizedError } from './errors.ts';
import type { FetchResult, ObjectReader } from './fetch-result.ts';
import type { ComponentHealth } from './health.ts';
import type { PlanResult } from './plan.ts';
import type { EngineLogger } from './report.ts';

/** the status shape the engine writes: conditions plus whatever fields the controller owns */
export interface EngineStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  [field: string]: unknown;
}

/** what pure steps see: the reconciled object and its merged runtime config */
export interface PlanContext<T extends KubeObject, C = unknown> {
  readonly object: T;
  /** undefined for kinds without runtime config */
  readonly runtimeConfig: FetchResult<C> | undefined;
}

/** what the status hooks see: the plan context plus this run's planning and apply errors */
export interface StatusContext<T extends KubeObject, C = unknown> extends PlanContext<T, C> {
  /** errors of the plan and apply steps (a rejected apply, a planner that threw); component errors are in the health */
  readonly errors: readonly CategorizedError[];
  /** what this run's writes did (absent when nothing was applied: blocked, or no plan) */
  readonly apply?: ApplyOutcome;
}

/** live reads only; writes belong to the apply step */
export type ReadClient = Pick<KubeClient, 'get' | 'getOrUndefined' | 'list' | 'podLog' | 'transport'>;

export interface FetchContext<T extends KubeObject, C = unknown> extends PlanContext<T, C> {
  /** the informer cache: where reconcile reads come from */
  readonly reader: ObjectReader;
  /** for reads that must be live (pod logs, events) */
  readonly client: ReadClient;
  readonly log: EngineLogger;
  readonly signal?: AbortSignal;
}

/** a health entry, or a falsy value for "not applicable this time" (skipped, not turned into a condition) */
export type MaybeHealth = ComponentHealth | undefined | null | false;

export interface DomainReconciler<T extends KubeObject, F, O = F, C = unknown, S extends EngineStatus = EngineStatus> {
  /** every read of the cluster happens here; failures go into FetchResults, not exceptions */
  fetchRemoteState(ctx: FetchContext<T, C>): Promise<F>;
  /** shapes the fetched data into an observation; omitted = the fetch result itself */
  composeState?(ctx: PlanContext<T, C>, fetched: F): O;
  /** the desired objects, from data only */
  planResources(ctx: PlanContext<T, C>, obs: O): PlanResult;
  /** automatic status (approaches 1 and 2); in manual mode it still drives the apply/requeue decision */
  getComponentHealth?(obs: O, ctx: PlanContext<T, C>): readonly MaybeHealth[];
  /** approach 2: add fields or conditions after the engine set the standard ones */
  decorateStatus?(status: S, cm: ConditionManager, obs: O, ctx: StatusContext<T, C>): void;
  /** approach 3: set every condition and the status field yourself */
  setStatus?(status: S, cm: ConditionManager, obs: O, ctx: StatusContext<T, C>): void;
}

/** resolves the merged runtime config of an object (the AIM runtime-config resolution plugs in here) */
export interface RuntimeConfigSource<T extends KubeObject, C> {
  fetch(object: T, reader: ObjectReader): Promise<FetchResult<C>>;
}
