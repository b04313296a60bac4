// The provider reconcile: the I/O around the pure pieces (lifecycle.ts decides, plan.ts plans, status.ts
// computes the owned status). Reads come from the informer cache; writes are the finalizer patch (JSON
// merge patch with the resourceVersion as an optimistic lock, never a full update), the server-side apply
// of the upstream object and of our part of the status, and the upstream delete.
//
// Why not the engine's Pipeline: its status model is a roll-up of components into engine conditions
// (ConfigValid, DependenciesReachable, <Component>Ready) and its apply sets no blockOwnerDeletion, while
// docs/kubeairunway.md fixes both the provider's conditions (ProviderCompatible, ResourceCreated, Ready only, shared
// with the core) and the ownerReference, and a provider must refuse to take over a foreign object of the
// same name and order delete-before-recreate. The engine's pieces still do their jobs here: the
// ConditionManager and its event reporting, ownedStatus (our managedFields slice of the shared status),
// needsApply (no write when nothing changed) and categorize (which failures are retried).
import {
  type ModelDeployment,
  ModelDeployments,
  providerFinalizer,
} from '../../../apis/kubeairunway/index.ts';
import { type Clock, categorize, ownedStatus, reportObservations, SettleWindow, writeOwnedStatus } from '../../../engine/index.ts';
import {
  deepEqual,
  isConflict,
  isNoKindMatch,
  isNotFound,
  type KubeObject,
  needsApply,
  type ReconcileContext,
  type Reconciler,
  type Result,
} from '../../../kube/index.ts';
import { defaultModelDeployment } from '../validation/index.ts';
import type { MappedStatus, ProviderDefinition } from './definition.ts';
import { refOf } from './desired.ts';
import { type CleanupCause, cleanupTimedOut, decideLifecycle, type LifecycleStep, selectedProvider, type UpstreamView } from './lifecycle.ts';
import type { ProviderMetrics } from './metrics.ts';
import { EventReason } from './names.ts';
import { crdMissingMessage, planSync, type SyncPlan } from './plan.ts';
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
}

/** what became of a status write */
type StatusWrite = 'written' | 'conflict' | { heldMs: number };

/** how often a rejected apply (422, 403) is tried again when nothing else changes */
const APPLY_RETRY_MS = 60_000;

export class ProviderReconciler {
  /** per deployment (ns/name): the generation whose unknown-override warning was evented */
  private readonly warned = new Map<string, { uid: string; generation: number }>();
  /** per deployment (ns/name): the upstream object we asked to delete and why (one event per delete) */
  private readonly deleteIssued = new Map<string, { uid: string; message: string }>();

  private readonly settle: SettleWindow | undefined;

  constructor(private readonly opts: ProviderReconcilerOptions) {
    this.settle = opts.settleWindowMs > 0 ? new SettleWindow(opts.clock, opts.settleWindowMs) : undefined;
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
      const upstream = await this.readUpstream(md, ctx);
      const step = decideLifecycle({ md, provider: this.opts.def.name, upstream, now: this.opts.clock.now(), finalizerTimeoutMs: this.opts.finalizerTimeoutMs, pollMs: this.opts.pollMs });
      return await this.carryOut(step, md, upstream, ctx);
    } catch (err) {
      this.opts.metrics.reconciliationErrors.inc({ provider: this.opts.def.name, error_type: isConflict(err) ? 'Conflict' : categorize(err).category });
      throw err;
    }
  };

  private async readUpstream(md: ModelDeployment, ctx: ReconcileContext): Promise<UpstreamView> {
    try {
      const object = await ctx.cache.get(this.opts.def.upstream, md.metadata.name ?? '', md.metadata.namespace);
      return object ? { state: 'present', object } : { state: 'absent' };
    } catch (err) {
      if (isNoKindMatch(err)) return { state: 'crdMissing' };
      throw err;
    }
  }

  private async carryOut(step: LifecycleStep, md: ModelDeployment, upstream: UpstreamView, ctx: ReconcileContext): Promise<Result> {
    switch (step.do) {
      case 'ignore':
      case 'paused':
        return {};
      case 'addFinalizer': {
        const updated = await this.patchFinalizers(md, [...(md.metadata.finalizers ?? []), this.finalizer], ctx);
        return updated ? this.sync(updated, upstream, ctx) : { requeue: true };
      }
      case 'sync':
        return this.sync(md, upstream, ctx);
      case 'deleteUpstream':
        return this.deleteUpstream(step.cause, md, step.object, ctx);
      case 'waitForUpstream': {
        if (step.cause === 'deletion') {
          const finalizers = step.object.metadata.finalizers ?? [];
          const message = `waiting for ${this.kind} ${refOf(step.object)} to be deleted${finalizers.length ? ` (finalizers: ${finalizers.join(', ')})` : ''}`;
          if ((await this.writeStatus(md, { kind: 'terminating', message }, ctx)) === 'conflict') return { requeue: true };
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
  private async patchFinalizers(md: ModelDeployment, finalizers: string[], ctx: ReconcileContext): Promise<ModelDeployment | undefined> {
    try {
      const patch = { metadata: { resourceVersion: md.metadata.resourceVersion, finalizers } };
      return await ctx.client.patch(ModelDeployments, md.metadata.name ?? '', md.metadata.namespace, patch, 'merge');
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async sync(md: ModelDeployment, upstream: UpstreamView, ctx: ReconcileContext): Promise<Result> {
    // the webhook defaults stored objects; this covers deployments admitted while it was bypassed
    const effective = defaultModelDeployment(md);
    const plan = planSync(this.opts.def, effective, upstream);
    if ('warnings' in plan) this.warnUnknownOverrides(md, plan.warnings, ctx);
    const { outcome, requeueAfter, wrote } = await this.execute(plan, effective, ctx);
    const written = await this.writeStatus(md, outcome, ctx, wrote === true);
    if (written === 'conflict') return { requeue: true };
    if (typeof written === 'object') return { requeueAfter: Math.min(requeueAfter ?? written.heldMs, written.heldMs) };
    return requeueAfter !== undefined ? { requeueAfter } : {};
  }

  private async execute(plan: SyncPlan, md: ModelDeployment, ctx: ReconcileContext): Promise<{ outcome: StatusOutcome; requeueAfter?: number; wrote?: boolean }> {
    switch (plan.kind) {
      case 'incompatible':
        return { outcome: { kind: 'incompatible', messages: plan.messages } };
      case 'invalidOverrides':
        return { outcome: { kind: 'failed', reason: 'InvalidOverrides', message: plan.messages.join('; ') } };
      case 'transformFailed':
        return { outcome: { kind: 'failed', reason: 'TransformFailed', message: plan.message } };
      case 'conflict':
        return { outcome: { kind: 'failed', reason: 'ResourceConflict', message: plan.message } };
      case 'crdMissing':
        return { outcome: { kind: 'pending', reason: 'CRDNotInstalled', message: plan.message }, requeueAfter: this.opts.discoveryRetryMs };
      case 'waitForDeletion': {
        // our own recreate keeps saying so until the new object exists
        const issued = this.deleteIssued.get(refOf(md));
        const ours = issued?.uid === plan.object.metadata.uid;
        const outcome: StatusOutcome = ours
          ? { kind: 'replacing', reason: 'RecreatingResource', message: issued!.message }
          : { kind: 'replacing', reason: 'WaitingForDeletion', message: plan.message };
        return { outcome, requeueAfter: this.opts.pollMs };
      }
      case 'recreate':
        await this.deleteForRecreate(md, plan.object, plan.message, ctx);
        return { outcome: { kind: 'replacing', reason: 'RecreatingResource', message: plan.message }, requeueAfter: this.opts.pollMs };
      case 'apply':
        return this.apply(md, plan.desired, plan.live, ctx);
    }
  }

  private async apply(md: ModelDeployment, desired: KubeObject, live: KubeObject | undefined, ctx: ReconcileContext): Promise<{ outcome: StatusOutcome; requeueAfter?: number; wrote?: boolean }> {
    let object = live;
    let wrote = false;
    // force: the provider is the authority for the fields it sets, so a `kubectl edit` of them is reverted
    if (!live || needsApply(desired, live, ctx.client.fieldManager ?? '')) {
      try {
        object = await ctx.client.apply(desired, { force: true });
        wrote = true;
      } catch (err) {
        if (isNoKindMatch(err)) return { outcome: { kind: 'pending', reason: 'CRDNotInstalled', message: crdMissingMessage(this.opts.def) }, requeueAfter: this.opts.discoveryRetryMs };
        const c = categorize(err);
        if (c.category === 'Infrastructure') throw err;
        // a spec fix arrives as a watch event; a fixed RBAC rule or upstream CRD does not, so look again
        return { outcome: { kind: 'failed', reason: 'ApplyFailed', message: `apply ${this.kind} ${refOf(desired)}: ${c.message}` }, requeueAfter: APPLY_RETRY_MS };
      }
    }
    return { outcome: { kind: 'created', object: object!, mapped: this.mapStatus(object!, md) }, wrote };
  }

  private mapStatus(object: KubeObject, md: ModelDeployment): MappedStatus {
    try {
      return this.opts.def.mapStatus(object, md);
    } catch (err) {
      return { phase: 'Deploying', message: `cannot read the ${this.kind} status: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  private async deleteForRecreate(md: ModelDeployment, object: KubeObject, message: string, ctx: ReconcileContext): Promise<void> {
    const key = refOf(md);
    if (this.deleteIssued.get(key)?.uid === object.metadata.uid) return;
    ctx.recorder.event(md, 'Warning', EventReason.RecreatingResource, message);
    ctx.log.info('identity fields changed, recreating the upstream object', { object: refOf(object), message });
    await this.deleteObject(object, ctx);
    this.deleteIssued.set(key, { uid: object.metadata.uid ?? '', message });
  }

  /** deletes exactly this object (uid precondition); already gone counts as done */
  private async deleteObject(object: KubeObject, ctx: ReconcileContext): Promise<void> {
    try {
      await ctx.client.delete(this.opts.def.upstream, object.metadata.name ?? '', object.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(object.metadata.uid ? { preconditions: { uid: object.metadata.uid } } : {}),
      });
    } catch (err) {
      if (!isNotFound(err) && !isNoKindMatch(err) && !isConflict(err)) throw err;
    }
  }

  private async deleteUpstream(cause: CleanupCause, md: ModelDeployment, object: KubeObject, ctx: ReconcileContext): Promise<Result> {
    const key = refOf(md);
    const message = `deleting ${this.kind} ${refOf(object)}`;
    if (this.deleteIssued.get(key)?.uid !== object.metadata.uid) {
      if (cause === 'release') {
        const to = selectedProvider(md);
        ctx.recorder.event(md, 'Warning', EventReason.ProviderChanged, `provider.name changed from ${this.opts.def.name} to ${to}: deleting ${this.kind} ${refOf(object)} (the ${to} provider creates its own resource)`);
      } else {
        ctx.recorder.event(md, 'Normal', EventReason.DeletingResource, message);
      }
    }
    try {
      await this.deleteObject(object, ctx);
      this.deleteIssued.set(key, { uid: object.metadata.uid ?? '', message });
    } catch (err) {
      if (cleanupTimedOut({ md, now: this.opts.clock.now(), finalizerTimeoutMs: this.opts.finalizerTimeoutMs }, cause, object)) {
        return this.finishCleanup({ do: 'removeFinalizer', cause, orphaned: object }, md, ctx);
      }
      throw err;
    }
    if (cause === 'deletion' && (await this.writeStatus(md, { kind: 'terminating', message }, ctx)) === 'conflict') return { requeue: true };
    return { requeueAfter: this.opts.pollMs };
  }

  private async finishCleanup(step: Extract<LifecycleStep, { do: 'removeFinalizer' }>, md: ModelDeployment, ctx: ReconcileContext): Promise<Result> {
    if (step.orphaned) {
      const o = step.orphaned;
      const group = this.opts.def.upstream.apiVersion.split('/')[0];
      const message =
        `cleanup of ${this.kind} ${refOf(o)} did not finish within ${formatDuration(this.opts.finalizerTimeoutMs)}: removing finalizer ${this.finalizer} anyway; ` +
        `the ${this.kind} may be left behind (orphaned): check it with kubectl get ${this.opts.def.upstreamResource}.${group} ${o.metadata.name} -n ${o.metadata.namespace}`;
      ctx.recorder.event(md, 'Warning', EventReason.FinalizerTimeout, message);
      ctx.log.error('finalizer timeout: upstream object may be orphaned', { object: refOf(o), finalizers: o.metadata.finalizers });
    }
    if (step.foreign) ctx.log.info('an object of the same name is not ours; leaving it alone', { object: refOf(md) });
    if (step.cause === 'release') {
      // give up every status field we own: the provider now in charge writes its own
      if (!(await this.writeOwnedStatus(md, {}, ctx))) return { requeue: true };
    }
    const finalizers = (md.metadata.finalizers ?? []).filter((f) => f !== this.finalizer);
    const updated = await this.patchFinalizers(md, finalizers, ctx);
    if (!updated) return { requeue: true };
    this.deleteIssued.delete(refOf(md));
    return {};
  }

  private warnUnknownOverrides(md: ModelDeployment, warnings: readonly string[], ctx: ReconcileContext): void {
    if (warnings.length === 0) return;
    const key = refOf(md);
    const uid = md.metadata.uid ?? '';
    const generation = md.metadata.generation ?? 0;
    const last = this.warned.get(key);
    if (last && last.uid === uid && last.generation === generation) return;
    this.warned.set(key, { uid, generation });
    ctx.recorder.event(md, 'Warning', EventReason.UnknownOverride, warnings.join('; '));
  }

  /**
   * computes and writes our status: 'conflict' when the write lost a race (the watch brings the newer
   * object); held when a Deploying status right after `wroteUpstream` waits out the settle window, in
   * which an upstream operator that answers at once lets the next reconcile write Running instead
   */
  private async writeStatus(md: ModelDeployment, outcome: StatusOutcome, ctx: ReconcileContext, wroteUpstream = false): Promise<StatusWrite> {
    const before = ownedStatus(md, ctx.client.fieldManager ?? '') as ProviderStatus;
    const { status, conditions } = computeProviderStatus(before, outcome, {
      kind: this.kind,
      now: this.opts.clock.now(),
      ...(md.metadata.generation !== undefined ? { generation: md.metadata.generation } : {}),
    });
    const key = md.metadata.uid ?? refOf(md);
    if (this.settle && !deepEqual(before, status) && outcome.kind === 'created' && status.phase === 'Deploying') {
      const heldMs = this.settle.hold(key, md.metadata.generation, wroteUpstream);
      if (heldMs !== undefined) return { heldMs };
    }
    this.settle?.release(key);
    const persisted = await this.writeOwnedStatus(md, status, ctx, before);
    if (persisted && before.phase !== status.phase && status.phase === 'Failed') {
      const reason = outcome.kind === 'failed' ? outcome.reason : outcome.kind === 'incompatible' ? 'IncompatibleConfiguration' : 'DeploymentFailed';
      this.opts.metrics.reconciliationErrors.inc({ provider: this.opts.def.name, error_type: reason });
    }
    reportObservations(conditions.observations(), md, ctx.recorder, ctx.log, { events: persisted });
    return persisted ? 'written' : 'conflict';
  }

  private async writeOwnedStatus(md: ModelDeployment, status: ProviderStatus, ctx: ReconcileContext, before = ownedStatus(md, ctx.client.fieldManager ?? '') as ProviderStatus): Promise<boolean> {
    const result = await writeOwnedStatus(ctx.client, md, { ...status }, { fieldManager: ctx.client.fieldManager ?? '', before: { ...before } });
    if (result === 'conflict') return false;
    if (result === 'written' && before.phase !== status.phase) {
      this.opts.metrics.phaseTransitions.inc({ provider: this.opts.def.name, from_phase: before.phase ?? '', to_phase: status.phase ?? '' });
    }
    return true;
  }
}

/** 300000 → "5m0s", 2500 → "2.5s" (Go's time.Duration spelling, as Kubernetes messages use) */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${ms / 1000}s`;
  const m = Math.floor(ms / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${m}m${s}s`;
}
