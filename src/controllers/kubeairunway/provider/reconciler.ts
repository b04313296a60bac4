// The provider's thin controller: the lifecycle steps (lifecycle.ts decides: deletion first, then pause,
// then the finalizer) and, for a deployment this provider serves, one run of its pipeline on the reconcile
// engine (pipeline.ts). Reads come from the informer cache; writes here are the finalizer patch (JSON merge
// patch with the resourceVersion as an optimistic lock, never a full update), the upstream delete on
// cleanup and the Terminating status through the engine's one status-write path (writeOwnedStatus).

import { formatGoDuration } from '@modelplane/apimachinery';
import { isConflict, isNoKindMatch, isNotFound } from '@modelplane/runtime/client';
import type { ReconcileContext, Reconciler, Result } from '@modelplane/runtime/controller';
import { type KindRef, type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type ModelDeployment, ModelDeployments, providerFinalizer } from '../../../apis/kubeairunway/index.ts';
import {
  type Clock,
  categorize,
  ownedStatus,
  type Pipeline,
  reportObservations,
  toResult,
  writeOwnedStatus,
} from '../../../engine/index.ts';
import { storageDeletionMessage } from '../storage/index.ts';
import { validateProviderOverrides } from '../validation/index.ts';
import type { ProviderDefinition } from './definition.ts';
import { extraObjectsOf, ownedBy, refOf } from './desired.ts';
import {
  type CleanupCause,
  cleanupTimedOut,
  decideLifecycle,
  type LifecycleStep,
  selectedProvider,
} from './lifecycle.ts';
import type { ProviderMetrics } from './metrics.ts';
import { EventReason } from './names.ts';
import { type ProviderObservation, providerPipeline, readUpstream } from './pipeline.ts';
import { computeProviderStatus, type ProviderStatus, type StatusOutcome } from './status.ts';

export interface ProviderReconcilerOptions {
  def: ProviderDefinition;
  clock: Clock;
  finalizerTimeoutMs: number;
  /** requeue interval while the upstream CRD is missing */
  discoveryRetryMs: number;
  /** requeue interval while an upstream object is going away */
  pollMs: number;
  metrics: ProviderMetrics;
  /** hold back a Deploying status right after the upstream object was written, for up to this long (0: never) */
  settleWindowMs: number;
  /** how long a failed model download waits before it is tried again */
  downloadRetryMs: number;
}

/** how often a rejected apply (422, 403) is tried again when nothing else changes */
const APPLY_RETRY_MS = 60_000;

export class ProviderReconciler {
  /** per deployment (ns/name): the generation whose unknown-override warning was evented */
  private readonly warned = new Map<string, { uid: string; generation: number }>();
  /** per deployment (ns/name): the upstream object we asked to delete on cleanup (one event per delete) */
  private readonly deleteIssued = new Map<string, { uid: string; message: string }>();
  readonly pipeline: Pipeline<
    ModelDeployment,
    unknown,
    ProviderObservation,
    unknown,
    ProviderStatus & Record<string, unknown>
  >;

  constructor(private readonly opts: ProviderReconcilerOptions) {
    this.pipeline = providerPipeline({
      def: opts.def,
      clock: opts.clock,
      discoveryRetryMs: opts.discoveryRetryMs,
      pollMs: opts.pollMs,
      settleWindowMs: opts.settleWindowMs,
      downloadRetryMs: opts.downloadRetryMs,
    }) as typeof this.pipeline;
  }

  readonly reconcile: Reconciler = async (req, ctx) => {
    const md = await ctx.cache.get(ModelDeployments, req.name, req.namespace || undefined);
    const key = `${req.namespace}/${req.name}`;
    if (!md) {
      this.warned.delete(key);
      this.deleteIssued.delete(key);
      return {};
    }
    try {
      const upstream = await readUpstream(this.opts.def, md, ctx.cache);
      const step = decideLifecycle({
        md,
        provider: this.opts.def.name,
        upstream,
        now: this.opts.clock.now(),
        finalizerTimeoutMs: this.opts.finalizerTimeoutMs,
        pollMs: this.opts.pollMs,
      });
      return await this.carryOut(step, md, ctx);
    } catch (err) {
      this.opts.metrics.reconciliationErrors.inc({
        provider: this.opts.def.name,
        error_type: isConflict(err) ? 'Conflict' : categorize(err).category,
      });
      throw err;
    }
  };

  private async carryOut(step: LifecycleStep, md: ModelDeployment, ctx: ReconcileContext): Promise<Result> {
    switch (step.do) {
      case 'ignore':
      case 'paused':
        return {};
      case 'addFinalizer': {
        const updated = await this.patchFinalizers(md, [...(md.metadata.finalizers ?? []), this.finalizer], ctx);
        return updated ? this.sync(updated, ctx) : { requeue: true };
      }
      case 'sync':
        return this.sync(md, ctx);
      case 'deleteUpstream':
        return this.deleteUpstream(step.cause, md, step.object, ctx);
      case 'waitForUpstream': {
        if (step.cause === 'deletion') {
          const finalizers = step.object.metadata.finalizers ?? [];
          const message = `waiting for ${this.kind} ${refOf(step.object)} to be deleted${finalizers.length ? ` (finalizers: ${finalizers.join(', ')})` : ''}`;
          if ((await this.writeTerminating(md, message, ctx)) === 'conflict') return { requeue: true };
        }
        return { requeueAfter: step.requeueAfterMs };
      }
      case 'removeFinalizer':
        return this.finishCleanup(step, md, ctx);
    }
  }

  private get finalizer(): string {
    return providerFinalizer(this.opts.def.name);
  }

  private get kind(): string {
    return this.opts.def.upstream.kind;
  }

  /** the patched deployment, or undefined when it changed meanwhile (the watch brings the new one) */
  private async patchFinalizers(
    md: ModelDeployment,
    finalizers: string[],
    ctx: ReconcileContext,
  ): Promise<ModelDeployment | undefined> {
    try {
      const patch = { metadata: { resourceVersion: md.metadata.resourceVersion, finalizers } };
      return await ctx.client.patch(ModelDeployments, md.metadata.name ?? '', md.metadata.namespace, patch, 'merge');
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** one pipeline run; a rejected apply (422, 403) is looked at again later: a fixed RBAC rule or CRD brings no event */
  private async sync(md: ModelDeployment, ctx: ReconcileContext): Promise<Result> {
    this.warnUnknownOverrides(md, ctx);
    const before = md.status?.phase;
    const outcome = await this.pipeline.run(md, {
      client: ctx.client,
      reader: ctx.cache,
      recorder: ctx.recorder,
      log: ctx.log,
      signal: ctx.signal,
    });
    const after = (outcome.status as ProviderStatus | undefined)?.phase;
    if (outcome.statusWritten && after !== undefined && before !== after) {
      this.opts.metrics.phaseTransitions.inc({
        provider: this.opts.def.name,
        from_phase: before ?? '',
        to_phase: after,
      });
      const ready = (outcome.status as ProviderStatus).conditions?.find((c) => c.type === 'Ready');
      if (after === 'Failed')
        this.opts.metrics.reconciliationErrors.inc({
          provider: this.opts.def.name,
          error_type: ready?.reason ?? 'DeploymentFailed',
        });
    }
    const plan = (outcome.observation as ProviderObservation | undefined)?.plan;
    // announced when the delete goes out, whatever becomes of the status write (a lost race must not lose it)
    if (plan?.kind === 'recreate' && (outcome.apply?.deleted ?? 0) > 0) {
      ctx.recorder.event(md, 'Warning', EventReason.RecreatingResource, plan.message);
      ctx.log.info('identity fields changed, recreating the upstream object', {
        object: refOf(plan.object),
        message: plan.message,
      });
    }
    const result = toResult(outcome);
    const rejected = (outcome.apply?.errors.length ?? 0) > 0;
    return rejected
      ? { ...result, requeueAfter: Math.min(result.requeueAfter ?? APPLY_RETRY_MS, APPLY_RETRY_MS) }
      : result;
  }

  /** deletes exactly this object (uid precondition); already gone counts as done */
  private async deleteObject(
    object: KubeObject,
    ctx: ReconcileContext,
    kind: KindRef<KubeObject> = this.opts.def.upstream,
  ): Promise<void> {
    try {
      await ctx.client.delete(kind, object.metadata.name ?? '', object.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(object.metadata.uid ? { preconditions: { uid: object.metadata.uid } } : {}),
      });
    } catch (err) {
      if (!isNotFound(err) && !isNoKindMatch(err) && !isConflict(err)) throw err;
    }
  }

  /**
   * the extra and optional objects of ours that are still there (from the cache), each deleted exactly (uid
   * precondition); an optional kind the cluster does not serve has nothing to delete
   */
  private async deleteExtras(md: ModelDeployment, ctx: ReconcileContext): Promise<void> {
    const targets = [
      ...extraObjectsOf(this.opts.def, md).map((o) => ({
        kind: kindRef<KubeObject>(o.apiVersion, o.kind),
        name: o.metadata.name ?? '',
      })),
      ...(this.opts.def.optionalObjects ?? []).map((o) => ({ kind: o.kind, name: o.name(md) })),
    ];
    for (const { kind, name } of targets) {
      const live = await ctx.cache.get(kind, name, md.metadata.namespace).catch((err: unknown) => {
        if (isNoKindMatch(err)) return undefined;
        throw err;
      });
      if (live && ownedBy(live, md)) await this.deleteObject(live, ctx, kind);
    }
  }

  private async deleteUpstream(
    cause: CleanupCause,
    md: ModelDeployment,
    object: KubeObject,
    ctx: ReconcileContext,
  ): Promise<Result> {
    const key = refOf(md);
    const message = `deleting ${this.kind} ${refOf(object)}`;
    if (this.deleteIssued.get(key)?.uid !== object.metadata.uid) {
      if (cause === 'release') {
        const to = selectedProvider(md);
        ctx.recorder.event(
          md,
          'Warning',
          EventReason.ProviderChanged,
          `provider.name changed from ${this.opts.def.name} to ${to}: deleting ${this.kind} ${refOf(object)} (the ${to} provider creates its own resource)`,
        );
      } else {
        ctx.recorder.event(md, 'Normal', EventReason.DeletingResource, message);
      }
    }
    try {
      await this.deleteObject(object, ctx);
      this.deleteIssued.set(key, { uid: object.metadata.uid ?? '', message });
    } catch (err) {
      if (
        cleanupTimedOut(
          { md, now: this.opts.clock.now(), finalizerTimeoutMs: this.opts.finalizerTimeoutMs },
          cause,
          object,
        )
      ) {
        return this.finishCleanup({ do: 'removeFinalizer', cause, orphaned: object }, md, ctx);
      }
      throw err;
    }
    if (cause === 'deletion' && (await this.writeTerminating(md, message, ctx)) === 'conflict')
      return { requeue: true };
    return { requeueAfter: this.opts.pollMs };
  }

  private async finishCleanup(
    step: Extract<LifecycleStep, { do: 'removeFinalizer' }>,
    md: ModelDeployment,
    ctx: ReconcileContext,
  ): Promise<Result> {
    if (step.orphaned) {
      const o = step.orphaned;
      const group = this.opts.def.upstream.apiVersion.split('/')[0];
      const message =
        `cleanup of ${this.kind} ${refOf(o)} did not finish within ${formatDuration(this.opts.finalizerTimeoutMs)}: removing finalizer ${this.finalizer} anyway; ` +
        `the ${this.kind} may be left behind (orphaned): check it with kubectl get ${this.opts.def.upstreamResource}.${group} ${o.metadata.name} -n ${o.metadata.namespace}`;
      ctx.recorder.event(md, 'Warning', EventReason.FinalizerTimeout, message);
      ctx.log.error('finalizer timeout: upstream object may be orphaned', {
        object: refOf(o),
        finalizers: o.metadata.finalizers,
      });
    }
    if (step.foreign) ctx.log.info('an object of the same name is not ours; leaving it alone', { object: refOf(md) });
    if (step.cause === 'deletion') this.announceStorageDeletion(md, ctx);
    if (step.cause === 'release') {
      // the objects applied beside the upstream one (llm-d's Service) go too: the deployment outlives them,
      // so garbage collection would never take them (deletion leaves them to it, as the upstream object)
      await this.deleteExtras(md, ctx);
      // give up every status field we own: the provider now in charge writes its own
      if ((await writeOwnedStatus(ctx.client, md, {}, { fieldManager: ctx.client.fieldManager ?? '' })) === 'conflict')
        return { requeue: true };
    }
    const finalizers = (md.metadata.finalizers ?? []).filter((f) => f !== this.finalizer);
    const updated = await this.patchFinalizers(md, finalizers, ctx);
    if (!updated) return { requeue: true };
    this.deleteIssued.delete(refOf(md));
    return {};
  }

  /** deleting a deployment deletes its managed PVCs, and the model in them: said once, not done silently */
  private announceStorageDeletion(md: ModelDeployment, ctx: ReconcileContext): void {
    const message = storageDeletionMessage(md);
    if (!message) return;
    ctx.recorder.event(md, 'Normal', EventReason.DeletingStorage, message);
    ctx.log.info('managed storage goes with the deployment', { object: refOf(md), message });
  }

  private warnUnknownOverrides(md: ModelDeployment, ctx: ReconcileContext): void {
    const { warnings } = validateProviderOverrides(this.opts.def.name, md.spec.provider?.overrides);
    if (warnings.length === 0) return;
    const key = refOf(md);
    const uid = md.metadata.uid ?? '';
    const generation = md.metadata.generation ?? 0;
    const last = this.warned.get(key);
    if (last && last.uid === uid && last.generation === generation) return;
    this.warned.set(key, { uid, generation });
    ctx.recorder.event(md, 'Warning', EventReason.UnknownOverride, warnings.join('; '));
  }

  /** phase Terminating during cleanup, through the one status-write path */
  private async writeTerminating(
    md: ModelDeployment,
    message: string,
    ctx: ReconcileContext,
  ): Promise<'written' | 'unchanged' | 'conflict' | 'gone'> {
    const fieldManager = ctx.client.fieldManager ?? '';
    const before = ownedStatus(md, fieldManager) as ProviderStatus;
    const outcome: StatusOutcome = { kind: 'terminating', message };
    const { status, conditions } = computeProviderStatus(before, outcome, {
      kind: this.kind,
      now: this.opts.clock.now(),
      ...(md.metadata.generation !== undefined ? { generation: md.metadata.generation } : {}),
    });
    const result = await writeOwnedStatus(ctx.client, md, { ...status }, { fieldManager, before: { ...before } });
    if (result === 'written' && before.phase !== status.phase) {
      this.opts.metrics.phaseTransitions.inc({
        provider: this.opts.def.name,
        from_phase: before.phase ?? '',
        to_phase: status.phase ?? '',
      });
    }
    reportObservations(conditions.observations(), md, ctx.recorder, ctx.log, { events: result !== 'conflict' });
    return result;
  }
}

/** 300000 → "5m0s", 2500 → "2.5s" (Go's time.Duration spelling, as Kubernetes messages use) */
function formatDuration(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms)) * 1_000_000n);
}
