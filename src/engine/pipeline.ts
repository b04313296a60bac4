// The pipeline every controller runs, as named phases (Pipeline.run reads top to bottom): skip (paused,
// deleting) → begin (runtime config) → observe (FetchRemoteState → ComposeState → health) → plan → apply
// (decision, writes, observe again after writes) → status (conditions, roll-up) → persist (the one status
// write, status-write.ts) → report (events). Status is written with server-side apply on the status
// subresource, only the fields this controller owns, and only when they changed. Because status reflects
// the state after the apply, the controller needs no second reconcile for the echo of its own writes
// (packages/runtime levelBased). See docs/controllers.md.

import type { ReconcileContext, Result } from '@modelplane/runtime/controller';
import { deepEqual, type KindRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type ApplyOutcome, executePlan } from './apply.ts';
import { ConditionManager } from './conditions.ts';
import { CategorizedError, categorize, invalidSpecError } from './errors.ts';
import { type Clock, DEFAULT_GRACE_PERIOD_MS, type GraceState, GraceTracker, systemClock } from './grace.ts';
import { type ComponentState, isErrorState, isReadyState, type NormalizedHealth, normalizeHealth } from './health.ts';
import { ownedStatus } from './owned-fields.ts';
import {
  isPaused,
  type PipelineOptions,
  type RunDeps,
  type RunOutcome,
  type RunPhase,
  toResult,
} from './pipeline-contract.ts';
import type { ObjectRef, PlanResult } from './plan.ts';
import { type EngineLogger, reportObservations, SILENT_LOG } from './report.ts';
import { SettleWindow } from './settle.ts';
import {
  asComponentState,
  type Decision,
  decide,
  runAutomatic,
  setParentConditions,
  sourcedErrors,
} from './state-engine.ts';
import { writeOwnedStatus } from './status-write.ts';
import type { EngineStatus, FetchContext, PlanContext, StatusContext } from './types.ts';

/** what one run carries from phase to phase */
interface Run<T extends KubeObject, O, C, S extends EngineStatus> {
  object: T;
  deps: RunDeps;
  log: EngineLogger;
  fieldManager: string;
  /** uid (or ns/name): the key of the grace and settle bookkeeping */
  key: string;
  planCtx: PlanContext<T, C>;
  fetchCtx: FetchContext<T, C>;
  obs: O;
  components: NormalizedHealth[];
  /** planning, apply and status-write errors (component errors live in `components`) */
  otherErrors: CategorizedError[];
  plan?: PlanResult;
  decision?: Decision;
  apply?: ApplyOutcome;
  grace?: GraceState;
  before: S;
  status: S;
  cm?: ConditionManager;
  state?: ComponentState;
  outcome: RunOutcome;
}

export class Pipeline<T extends KubeObject, F, O = F, C = unknown, S extends EngineStatus = EngineStatus> {
  readonly grace: GraceTracker;
  readonly settle: SettleWindow | undefined;
  private readonly clock: Clock;
  private readonly statusField: string | null;

  constructor(readonly opts: PipelineOptions<T, F, O, C, S>) {
    this.clock = opts.clock ?? systemClock;
    this.grace = new GraceTracker(this.clock, opts.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS);
    this.settle = opts.settleWindowMs ? new SettleWindow(this.clock, opts.settleWindowMs) : undefined;
    this.statusField = opts.statusField === undefined ? 'status' : opts.statusField;
  }

  /** runs the pipeline for `object` on packages/runtime's reconcile context; throws RequeueError for infrastructure errors */
  async reconcile(object: T, ctx: ReconcileContext): Promise<Result> {
    const outcome = await this.run(object, {
      client: ctx.client,
      reader: ctx.cache,
      recorder: ctx.recorder,
      log: ctx.log,
      signal: ctx.signal,
    });
    return toResult(outcome);
  }

  /**
   * One reconcile, phase by phase: skip (paused, deleting) → begin (runtime config, contexts) → observe
   * (fetch, compose, health) → plan → apply (decision, writes, observe again after writes) → status
   * (conditions, roll-up) → persist (settle window, the one status write) → report (events, logs).
   */
  async run(object: T, deps: RunDeps): Promise<RunOutcome> {
    const skipped = this.skip(object);
    if (skipped) return emptyOutcome(skipped);
    const run = await this.begin(object, deps);
    await this.observe(run);
    this.planResources(run);
    await this.applyPlan(run);
    this.computeStatus(run);
    const persisted = await this.persistStatus(run);
    // nothing is reported for a held status: the reconcile that writes it reports its transitions
    if (!run.outcome.statusHeld)
      reportObservations(run.cm!.observations(), object, deps.recorder, run.log, { events: persisted });
    return run.outcome;
  }

  /** paused objects are left alone; deleting ones belong to the thin controller (finalizers, cleanup) */
  private skip(object: T): RunPhase | undefined {
    if (isPaused(object, this.opts.pauseAnnotation)) return 'paused';
    // children of a deleting owner must not be re-applied
    if (object.metadata.deletionTimestamp) return 'deleting';
    return undefined;
  }

  /** the runtime config and the contexts every later phase sees */
  private async begin(object: T, deps: RunDeps): Promise<Run<T, O, C, S>> {
    const fieldManager = deps.client.fieldManager;
    if (!fieldManager)
      throw new Error(`pipeline ${this.opts.name}: the client has no field manager (use client.withFieldManager)`);
    const log = deps.log ?? SILENT_LOG;
    const runtimeConfig = this.opts.runtimeConfig
      ? await this.opts.runtimeConfig.fetch(object, deps.reader)
      : undefined;
    const planCtx: PlanContext<T, C> = { object, runtimeConfig };
    const fetchCtx: FetchContext<T, C> = {
      ...planCtx,
      reader: deps.reader,
      client: deps.client,
      log,
      ...(deps.signal ? { signal: deps.signal } : {}),
    };
    const before = ownedStatus(object, fieldManager) as S;
    return {
      object,
      deps,
      log,
      fieldManager,
      key: object.metadata.uid ?? `${object.metadata.namespace ?? ''}/${object.metadata.name}`,
      planCtx,
      fetchCtx,
      obs: undefined as O,
      components: [],
      otherErrors: [],
      before,
      status: structuredClone(before),
      outcome: emptyOutcome('reconciled'),
    };
  }

  /** FetchRemoteState → ComposeState → component health */
  private async observe(run: Run<T, O, C, S>): Promise<void> {
    const r = this.opts.reconciler;
    const fetched = await r.fetchRemoteState(run.fetchCtx);
    run.obs = r.composeState ? r.composeState(run.planCtx, fetched) : (fetched as unknown as O);
    run.components = [];
    for (const h of r.getComponentHealth?.(run.obs, run.planCtx) ?? []) if (h) run.components.push(normalizeHealth(h));
  }

  /** PlanResources; a planner that throws met data it cannot turn into objects: a spec problem, not an outage */
  private planResources(run: Run<T, O, C, S>): void {
    try {
      run.plan = this.opts.reconciler.planResources(run.planCtx, run.obs);
    } catch (err) {
      run.otherErrors.push(
        err instanceof CategorizedError
          ? err
          : invalidSpecError(
              'PlanningFailed',
              `planning failed: ${err instanceof Error ? err.message : String(err)}`,
              err,
            ),
      );
    }
  }

  /** the state engine's decision, then the writes it allows, then a fresh observation if anything was written */
  private async applyPlan(run: Run<T, O, C, S>): Promise<void> {
    run.decision = decide([...run.components.flatMap((h) => h.errors), ...run.otherErrors]);
    if (!run.decision.shouldApply || !run.plan) return;
    const { deps } = run;
    const runtimeConfig = run.planCtx.runtimeConfig;
    run.apply = await executePlan(run.plan, run.object, {
      client: deps.client,
      fieldManager: run.fieldManager,
      live: (ref: ObjectRef) => {
        const kind = kindRef(ref.apiVersion, ref.kind) as KindRef;
        const informer = this.opts.childInformer?.(ref);
        const { name = '', namespace } = ref.metadata;
        return informer ? deps.reader.get(kind, name, namespace, informer) : deps.reader.get(kind, name, namespace);
      },
      propagators: this.opts.labelPropagators ?? [],
      runtimeConfig: runtimeConfig?.ok() ? runtimeConfig.value : undefined,
      ...(this.opts.blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
      readBack: (ref: ObjectRef) =>
        deps.client.getOrUndefined(
          kindRef(ref.apiVersion, ref.kind) as KindRef,
          ref.metadata.name ?? '',
          ref.metadata.namespace,
        ),
      ...(this.opts.classifyWriteError ? { classifyWriteError: this.opts.classifyWriteError } : {}),
    });
    run.otherErrors.push(...run.apply.errors);
    // status tells what the writes left behind: the cache holds the server's answers to them, so a child
    // created ready, or an existing one updated, is reported as it now is, not as it was before the apply
    // (after deletes only, the status still tells what was deleted and why: the next reconcile sees it gone)
    if (run.apply.applied > 0) await this.observe(run);
  }

  /** conditions and the overall state: automatic (health roll-up, decorateStatus) or manual (setStatus) */
  private computeStatus(run: Run<T, O, C, S>): void {
    const { object, status, components, otherErrors } = run;
    const r = this.opts.reconciler;
    const allErrors = [...components.flatMap((h) => h.errors), ...otherErrors];
    const infra = allErrors.some((e) => e.category === 'Infrastructure');
    run.grace = this.grace.observe(run.key, infra);
    const generation = this.opts.observedGeneration ? object.metadata.generation : undefined;
    const cm = new ConditionManager(run.before.conditions ?? [], {
      now: () => this.clock.now(),
      ...(generation !== undefined ? { generation } : {}),
    });
    run.cm = cm;
    const statusCtx: StatusContext<T, C> = {
      ...run.planCtx,
      errors: otherErrors,
      ...(run.apply ? { apply: run.apply } : {}),
    };
    if (r.setStatus) {
      r.setStatus(status, cm, run.obs, statusCtx);
      setParentConditions(cm, sourcedErrors(components, otherErrors), run.grace, new Set(['DependenciesReachable']));
    } else {
      run.state = runAutomatic({
        cm,
        components,
        otherErrors,
        grace: run.grace,
        previousState: asComponentState(
          this.statusField ? (object.status as Record<string, unknown> | undefined)?.[this.statusField] : undefined,
        ),
        decorate: () => r.decorateStatus?.(status, cm, run.obs, statusCtx),
      });
      if (this.statusField)
        status[this.statusField as keyof S] = (
          this.opts.mapState ? this.opts.mapState(run.state) : run.state
        ) as S[keyof S];
    }
    const conditions = cm.list();
    if (conditions.length > 0 || run.before.conditions) status.conditions = conditions;
    // the status as a whole says which generation it describes (kubectl wait on observedGeneration)
    if (generation !== undefined && this.opts.observedGeneration === true) status.observedGeneration = generation;

    const decision = run.decision!;
    const outcome = run.outcome;
    Object.assign(outcome, {
      decision,
      errors: allErrors,
      grace: run.grace,
      requeueWithBackoff: decision.requeueWithBackoff || infra,
      status,
      observation: run.obs,
    });
    if (run.state) outcome.state = run.state;
    if (run.apply) outcome.apply = run.apply;
    if (run.plan?.requeueAfterMs !== undefined) outcome.requeueAfterMs = run.plan.requeueAfterMs;
  }

  /** the settle window, then the one status write (status-write.ts); whether events may go out */
  private async persistStatus(run: Run<T, O, C, S>): Promise<boolean> {
    const { outcome, log } = run;
    if (deepEqual(run.before, run.status)) {
      this.settle?.release(run.key);
      return true;
    }
    const left =
      this.settle && settling(run.state, run.components, outcome.errors)
        ? this.settle.hold(run.key, run.object.metadata.generation, (run.apply?.applied ?? 0) > 0)
        : undefined;
    if (left !== undefined) {
      outcome.statusHeld = true;
      outcome.requeueAfterMs = Math.min(outcome.requeueAfterMs ?? left, left);
      log.debug('status held back while the children just written settle', { state: run.state, remainingMs: left });
      return false;
    }
    this.settle?.release(run.key);
    try {
      const result = await writeOwnedStatus(run.deps.client, run.object, run.status, {
        fieldManager: run.fieldManager,
        before: run.before,
      });
      if (result === 'written') outcome.statusWritten = true;
      // someone wrote the object since our read: reconcile again (toResult requeues), from the newer object
      if (result === 'conflict') outcome.statusConflict = true;
      if (result === 'gone') outcome.objectGone = true;
      if (result === 'conflict' || result === 'gone')
        log.debug(
          result === 'conflict'
            ? 'status write conflicted, waiting for the newer object'
            : 'object deleted before its status write',
        );
      return result === 'written';
    } catch (err) {
      const c = categorize(err);
      outcome.errors.push(c);
      outcome.requeueWithBackoff = true;
      log.error('status write failed', { error: err, category: c.category });
      return false;
    }
  }
}
function emptyOutcome(phase: RunPhase): RunOutcome {
  return {
    phase,
    errors: [],
    statusWritten: false,
    statusConflict: false,
    statusHeld: false,
    requeueWithBackoff: false,
  };
}

/**
 * A status the settle window may hold back: not ready only because children are coming up (Downstream,
 * not in an error state), with no error but "not there yet".
 */
function settling(
  state: ComponentState | undefined,
  components: readonly NormalizedHealth[],
  errors: readonly CategorizedError[],
): boolean {
  // manual status (setStatus): judged by the components alone; at least one must still be coming up
  if (
    state === undefined
      ? components.every((h) => isReadyState(h.state))
      : state !== 'Progressing' && state !== 'Starting'
  )
    return false;
  if (errors.some((e) => e.category !== 'MissingDownstreamDependency')) return false;
  return components.every(
    (h) => isReadyState(h.state) || (h.dependencyType === 'Downstream' && !isErrorState(h.state)),
  );
}
