// The saturation engine's loop (docs/autoscaling.md, "The loop"): every GLOBAL_OPT_INTERVAL it reads the
// config cache and the informer cache, asks the metrics source for replica load, runs the pure cycle and
// hands the decisions to the VariantAutoscaling controller. It never calls the API server: it holds no
// client at all. A changed interval reschedules the next cycle at once.
import type { Logger } from '@modelplane/runtime/log';
import type { Runnable } from '@modelplane/runtime/manager';
import type { ConfigCache } from './config/cache.ts';
import type { DecisionStore, VariantDecision } from './decisions.ts';
import { type CacheReader, type GatheredModel, gatherInputs } from './inputs.ts';
import type { MetricsSource } from './metrics-source/source.ts';
import { optimizeModel } from './saturation/cycle.ts';

export const DEFAULT_SCALE_TO_ZERO_WINDOW_SECONDS = 600;

export interface SaturationEngineOptions {
  reader: CacheReader;
  config: ConfigCache;
  source: MetricsSource;
  decisions: DecisionStore;
  /** told the VAs (`namespace/name`) that got a new decision */
  onDecisions: (keys: string[]) => void;
  log: Logger;
  saturationConfigMapName: string;
  controllerInstance?: string;
  scaleToZeroWindowSeconds?: number;
  /** WVA_SCALE_TO_ZERO, when set */
  scaleToZeroEnv?: boolean;
  now?: () => Date;
}

export interface CycleReport {
  cycle: number;
  models: number;
  variants: number;
  durationMs: number;
  /** new variants (created under a minute ago) whose replicas report no metrics yet */
  awaitingFirstMetrics: number;
}

/** how soon a new variant still waiting for its first metrics is looked at again (instead of a whole interval) */
export const FIRST_METRICS_RETRY_MS = 2_000;
const NEW_VARIANT_MS = 60_000;
/**
 * How long replicas may report no sample at all before that is a problem (a Warning): a new pod is first
 * scraped within a scrape interval, and a sample counts for 60 s (DEFAULT_STALE_AFTER_SECONDS).
 */
export const FIRST_SAMPLES_GRACE_MS = 60_000;

export class SaturationEngine implements Runnable {
  readonly name = 'saturation-engine';
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = true;
  private cycle = 0;
  private lastStart = 0;
  private failures = 0;
  private unsubscribe: (() => void) | undefined;
  private abort = new AbortController();
  /** per model: since when it has been seen idle, its replicas and its served count at the last cycle */
  private readonly watched = new Map<string, { idleSince: number; pods: ReadonlySet<string>; servedTotal?: number }>();

  constructor(private readonly opts: SaturationEngineOptions) {}

  get cycles(): number {
    return this.cycle;
  }

  /** runs the first cycle now and the next ones every interval (a leader-only Runnable of the manager) */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    let interval = this.opts.config.snapshot().optimizationIntervalMs;
    this.unsubscribe = this.opts.config.onChange((s) => {
      if (s.optimizationIntervalMs === interval) return;
      this.opts.log.info('optimization interval changed; the next cycle follows the new interval', {
        fromMs: interval,
        toMs: s.optimizationIntervalMs,
      });
      interval = s.optimizationIntervalMs;
      if (!this.running) this.schedule(Math.max(0, this.lastStart + interval - Date.now()));
    });
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  /** one cycle; the loop calls it, and tests may too */
  async runCycle(): Promise<CycleReport> {
    const started = performance.now();
    const snapshot = this.opts.config.snapshot();
    const cycle = ++this.cycle;
    const gathered = await gatherInputs(this.opts.reader, snapshot, this.opts.source, {
      saturationConfigMapName: this.opts.saturationConfigMapName,
      ...(this.opts.controllerInstance ? { controllerInstance: this.opts.controllerInstance } : {}),
      scaleToZeroWindowSeconds: this.opts.scaleToZeroWindowSeconds ?? DEFAULT_SCALE_TO_ZERO_WINDOW_SECONDS,
      ...(this.opts.scaleToZeroEnv !== undefined ? { scaleToZeroEnv: this.opts.scaleToZeroEnv } : {}),
      signal: this.abort.signal,
    });
    const time = (this.opts.now?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const keys: string[] = [];
    let variants = 0;
    const nowMs = this.opts.now?.().getTime() ?? Date.now();
    const awaitingFirstMetrics = gathered
      .flatMap((g) => g.withheld)
      .filter(
        (w) =>
          w.current > 0 &&
          (w.withheld.reason === 'MetricsMissing' || w.withheld.reason === 'MetricsStale') &&
          w.createdMs !== undefined &&
          nowMs - w.createdMs < NEW_VARIANT_MS,
      ).length;
    this.trackWatched(gathered, nowMs);
    for (const g of gathered) {
      for (const d of this.decide(g, cycle, time, nowMs)) {
        this.logChange(d);
        this.opts.decisions.record(d);
        keys.push(`${d.namespace}/${d.name}`);
        variants++;
      }
    }
    const durationMs = performance.now() - started;
    this.opts.log.debug('optimization cycle done', {
      cycle,
      models: gathered.length,
      variants,
      durationMs: Math.round(durationMs * 10) / 10,
      configVersion: snapshot.version,
    });
    if (keys.length) this.opts.onDecisions(keys);
    return { cycle, models: gathered.length, variants, durationMs, awaitingFirstMetrics };
  }

  /** every change of a published target is logged with its reason: the trail each replica change follows */
  private logChange(d: VariantDecision): void {
    const before = this.opts.decisions.latest(d.namespace, d.name);
    if (d.outcome === 'skipped') return;
    // a withheld variant keeps its target; it moves only when a woken model leaves a decision of 0
    if (d.outcome === 'withheld' && !(before && before.target === 0 && d.target > 0)) return;
    // a withheld decision's target is published too (the gauge keeps it), so it is where a change starts from
    const from = before && before.outcome !== 'skipped' ? before.target : d.current;
    if (from === d.target) return;
    this.opts.log.info('scaling decision', {
      variantAutoscaling: `${d.namespace}/${d.name}`,
      cycle: d.cycle,
      from,
      to: d.target,
      current: d.current,
      action: d.action,
      reason: d.reason,
    });
  }

  /**
   * Scale to zero needs the whole retention window watched idle (docs/autoscaling.md, "Scale to zero"). A
   * model's watch starts when it first has replicas with metrics, again whenever a replica appears (a new
   * replica's counter may begin after requests it served) and at the engine's start; its last activity is
   * the last cycle that saw a request running or waiting on a replica, one held at the gateway, or its served
   * count change. Each cycle comes after what it sees, so a model idle this long was idle since at least then.
   */
  private trackWatched(gathered: readonly GatheredModel[], nowMs: number): void {
    const seen = new Set<string>();
    for (const g of gathered) {
      const key = `${g.input.namespace}\u0000${g.input.modelID}`;
      const replicas = g.input.variants.flatMap((v) => v.replicas);
      if (replicas.length === 0) continue;
      seen.add(key);
      const pods = new Set(replicas.map((r) => r.pod));
      const before = this.watched.get(key);
      const a = g.activity;
      const busy =
        !before ||
        [...pods].some((p) => !before.pods.has(p)) ||
        replicas.some((r) => r.inFlight !== 0) ||
        a?.servedTotal === undefined ||
        a.servedTotal !== before.servedTotal ||
        (a.queued ?? 0) !== 0;
      this.watched.set(key, {
        idleSince: busy ? nowMs : before.idleSince,
        pods,
        ...(a?.servedTotal !== undefined ? { servedTotal: a.servedTotal } : {}),
      });
    }
    for (const key of this.watched.keys()) if (!seen.has(key)) this.watched.delete(key);
  }

  private decide(g: GatheredModel, cycle: number, time: string, nowMs: number): VariantDecision[] {
    const since = this.watched.get(`${g.input.namespace}\u0000${g.input.modelID}`)?.idleSince;
    const result = optimizeModel(
      since === undefined
        ? g.input
        : { ...g.input, scaleToZero: { ...g.input.scaleToZero, idleSeconds: (nowMs - since) / 1000 } },
    );
    if (result.outcome === 'skipped')
      this.opts.log.info('saturation config not loaded for model, skipping optimization', {
        namespace: g.input.namespace,
        modelID: g.input.modelID,
      });
    const analysis = result.analysis
      ? {
          avgSpareKv: result.analysis.avgSpareKv,
          avgSpareQueue: result.analysis.avgSpareQueue,
          saturatedReplicas: result.analysis.saturatedReplicas,
          nonSaturatedReplicas: result.analysis.nonSaturatedReplicas,
        }
      : undefined;
    const head = { namespace: g.input.namespace, modelID: g.input.modelID, cycle, time };
    const withheld: VariantDecision[] = g.withheld.map((w) => {
      // no new decision: the last one stands (the store's is newer than the status the cache holds), except a
      // 0 under a model that was woken since (by KEDA or the scale-from-zero loop): kept, it would have KEDA
      // take the model back to 0 before its first replica reports metrics
      const last = this.opts.decisions.latest(g.input.namespace, w.name)?.target ?? w.previousDesired;
      const woken = last === 0 && w.current > 0 && w.withheld.reason === 'MetricsMissing';
      return {
        name: w.name,
        target: woken ? w.current : (last ?? w.current),
        action: woken ? ('scale-from-zero' as const) : ('no-change' as const),
        reason: woken
          ? `the model was woken from 0 to ${w.current} replicas; keeping ${w.current} until they report metrics (${w.withheld.message})`
          : w.withheld.message,
        outcome: 'withheld',
        ...head,
        current: w.current,
        replicasWithMetrics: 0,
        withheld: w.withheld,
        ...this.noSamplesRun(g.input.namespace, w, time),
      };
    });
    const decided = result.decisions.map((d) => {
      const extra = g.extras.get(d.name);
      const state = g.input.variants.find((v) => v.name === d.name);
      return {
        ...d,
        ...head,
        current: extra?.current ?? 0,
        replicasWithMetrics: state?.replicas.length ?? 0,
        ...(analysis ? { analysis } : {}),
        ...(extra?.load ? { load: extra.load } : {}),
        ...(g.metricsProblem ? { metricsProblem: g.metricsProblem } : {}),
        ...(extra?.sampleProblem ? { sampleProblem: extra.sampleProblem } : {}),
      };
    });
    return [...decided, ...withheld];
  }

  /**
   * A variant whose replicas report no sample at all: since when (the first cycle of this run, carried from
   * the previous decision) and whether it is still within FIRST_SAMPLES_GRACE_MS, so a healthy start or a
   * new replica waits quietly and only a run that lasts says so as a Warning.
   */
  private noSamplesRun(
    namespace: string,
    w: { name: string; current: number; withheld: VariantDecision['withheld'] },
    time: string,
  ): Pick<VariantDecision, 'noSamplesSince' | 'awaitingFirstSamples'> {
    if (!w.withheld?.noSamples || w.current === 0) return {};
    const since = this.opts.decisions.latest(namespace, w.name)?.noSamplesSince ?? time;
    const waited = Date.parse(time) - Date.parse(since);
    return { noSamplesSince: since, awaitingFirstSamples: Number.isFinite(waited) && waited < FIRST_SAMPLES_GRACE_MS };
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    this.lastStart = Date.now();
    const cycle = this.runCycle();
    this.running = cycle;
    let next: number;
    try {
      const report = await cycle;
      this.failures = 0;
      const interval = this.opts.config.snapshot().optimizationIntervalMs;
      // a new variant's first pods: look again soon, so its first decision does not wait a whole interval
      next = report.awaitingFirstMetrics > 0 ? Math.min(interval, FIRST_METRICS_RETRY_MS) : interval;
    } catch (err) {
      // a failed cycle (not a model's metrics: those take the safety net) retries soon: 100 ms doubling to 4 s
      this.failures++;
      next = Math.min(4_000, 100 * 2 ** (this.failures - 1));
      if (!this.stopped) this.opts.log.error('optimization cycle failed; retrying', { error: err, retryInMs: next });
    } finally {
      this.running = undefined;
    }
    this.schedule(Math.max(0, this.lastStart + next - Date.now()));
  }
}
