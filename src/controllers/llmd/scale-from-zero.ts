// Scale from zero (docs/autoscaling.md, "Scale from zero"): an HPA cannot leave 0 replicas, and a model at
// zero has no replica to report load, so the saturation engine never decides for it. As llm-d's autoscaler
// does, a separate loop looks only at models whose every variant is at 0 replicas, asks the metrics source
// how many requests wait for the model at the gateway (its flow-control queue), and when some do, scales the
// cheapest variant's Deployment to 1 through its /scale subresource. Its only API write is that one patch.
// It also records the wake-up as the variant's decision (desired 1), so wva_desired_replicas says 1 at once:
// KEDA, seeing the old 0, would otherwise take the model back to zero before its first pod reports metrics.
import { type KubeClient, Namespaces } from '@modelplane/runtime/client';
import type { EventRecorder } from '@modelplane/runtime/events';
import type { Logger } from '@modelplane/runtime/log';
import type { Runnable } from '@modelplane/runtime/manager';
import { CONTROLLER_INSTANCE_LABEL, DEFAULT_VARIANT_COST, EXCLUDE_ANNOTATION } from '../../apis/llmd/index.ts';
import type { DecisionStore } from './decisions.ts';
import { type CacheReader, isDeploymentRef } from './inputs.ts';
import { AutoscaledDeployments, type VariantAutoscaling, VariantAutoscalings } from './kinds.ts';
import type { MetricsSource } from './metrics-source/source.ts';
import { duplicateTargets } from './saturation/evidence.ts';

export const SCALE_FROM_ZERO_INTERVAL_MS = 1_000;

export interface ScaleFromZeroOptions {
  reader: CacheReader;
  client: KubeClient;
  source: MetricsSource;
  recorder: EventRecorder;
  log: Logger;
  /** where the wake-up is recorded as the variant's decision, and who is told (the VariantAutoscaling controller) */
  decisions?: DecisionStore;
  onDecision?: (key: string) => void;
  controllerInstance?: string;
  intervalMs?: number;
  /** the clock, in ms since the epoch (tests) */
  now?: () => number;
}

/** the variant to wake: the cheapest (then the first by name) whose Deployment exists */
export function variantToWake(
  variants: ReadonlyArray<{ name: string; cost: number; replicas: number | undefined }>,
): string | undefined {
  const present = variants.filter((v) => v.replicas !== undefined);
  if (present.length === 0 || present.some((v) => (v.replicas ?? 0) > 0)) return undefined;
  return [...present].sort((a, b) => a.cost - b.cost || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0]!.name;
}

export class ScaleFromZero implements Runnable {
  readonly name = 'scale-from-zero';
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private running: Promise<unknown> | undefined;

  constructor(private readonly opts: ScaleFromZeroOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      this.running = this.runOnce().catch((err: Error) =>
        this.opts.log.warn('scale-from-zero check failed; retrying', { error: err.message }),
      );
      await this.running;
      this.running = undefined;
      this.schedule();
    }, this.opts.intervalMs ?? SCALE_FROM_ZERO_INTERVAL_MS);
  }

  /** one pass; returns the VAs (`namespace/name`) whose Deployment it scaled to 1 */
  async runOnce(): Promise<string[]> {
    const vas = (await this.opts.reader.list(VariantAutoscalings)).filter(
      (va) =>
        !va.metadata.deletionTimestamp &&
        va.metadata.labels?.[CONTROLLER_INSTANCE_LABEL] === this.opts.controllerInstance &&
        isDeploymentRef(va),
    );
    const duplicates = duplicateTargets(
      vas.map((va) => ({
        key: `${va.metadata.namespace}/${va.metadata.name}`,
        namespace: va.metadata.namespace ?? '',
        targetKind: va.spec.scaleTargetRef.kind,
        targetName: va.spec.scaleTargetRef.name,
        ...(va.metadata.creationTimestamp ? { creationTimestamp: va.metadata.creationTimestamp } : {}),
      })),
    );
    const models = new Map<string, VariantAutoscaling[]>();
    for (const va of vas) {
      if (duplicates.has(`${va.metadata.namespace}/${va.metadata.name}`)) continue;
      const key = `${va.metadata.namespace}\u0000${va.spec.modelID}`;
      models.set(key, [...(models.get(key) ?? []), va]);
    }
    const woken: string[] = [];
    for (const members of models.values()) {
      const va = await this.wake(members);
      if (va) woken.push(va);
    }
    return woken;
  }

  private async wake(members: VariantAutoscaling[]): Promise<string | undefined> {
    const ns = members[0]!.metadata.namespace ?? '';
    const modelID = members[0]!.spec.modelID;
    if ((await this.opts.reader.get(Namespaces, ns))?.metadata.annotations?.[EXCLUDE_ANNOTATION] === 'true') return;
    const variants = await Promise.all(
      members.map(async (va) => {
        const d = await this.opts.reader.get(AutoscaledDeployments, va.spec.scaleTargetRef.name, ns);
        const cost = Number.parseFloat(va.spec.variantCost ?? DEFAULT_VARIANT_COST);
        return {
          va,
          name: va.metadata.name ?? '',
          cost: Number.isFinite(cost) ? cost : 10,
          replicas: d?.spec?.replicas,
        };
      }),
    );
    const name = variantToWake(variants);
    if (name === undefined) return;
    // the queue as KEDA's prometheus trigger sees it: KEDA evaluates its query at the current time cut to the
    // whole second, so a sample newer than that is invisible to its next poll, which would find the woken model
    // inactive, its cooldown long over, and take it straight back to 0 (docs/autoscaling.md, "Scale from zero")
    const queued = await this.opts.source.queuedRequests?.(
      ns,
      modelID,
      undefined,
      Math.floor((this.opts.now ?? Date.now)() / 1000),
    );
    if (!(queued !== undefined && queued > 0)) return;
    const { va } = variants.find((v) => v.name === name)!;
    const target = va.spec.scaleTargetRef.name;
    // the informer cache may lag the last wake-up (or KEDA's): read the target itself before waking it again,
    // so one wake-up is one decision, one event and one count
    const live = await this.opts.client.getOrUndefined(AutoscaledDeployments, target, ns);
    if (!live || (live.spec?.replicas ?? 0) > 0) return;
    await this.opts.client.patch(AutoscaledDeployments, target, ns, { spec: { replicas: 1 } }, 'merge', {
      subresource: 'scale',
    });
    const reason = `${queued} request(s) wait at the gateway for model ${modelID}, whose variants all have 0 replicas: Deployment ${ns}/${target} of ${name}, the cheapest variant, scaled to 1`;
    this.opts.log.info('scaling decision', {
      variantAutoscaling: `${ns}/${name}`,
      from: 0,
      to: 1,
      current: 0,
      action: 'scale-from-zero',
      reason,
    });
    this.opts.recorder.event(va, 'Normal', 'ScaledFromZero', reason, 'Scale');
    const before = this.opts.decisions?.latest(ns, name);
    this.opts.decisions?.record({
      name,
      target: 1,
      action: 'scale-from-zero',
      reason,
      outcome: 'optimized',
      namespace: ns,
      modelID,
      cycle: before?.cycle ?? 0,
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      current: 0,
      replicasWithMetrics: 0,
    });
    this.opts.onDecision?.(`${ns}/${name}`);
    return `${ns}/${name}`;
  }
}
