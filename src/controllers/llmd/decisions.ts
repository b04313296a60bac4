// The engine's decisions, handed to the VariantAutoscaling controller (which alone writes status, events and
// metrics), plus a bounded history per variant for charts (docs/autoscaling.md, "Decision history").
import type { ModelAnalysis } from './saturation/analyzer.ts';
import type { Decision, ModelOutcome } from './saturation/cycle.ts';
import type { Withheld } from './saturation/evidence.ts';

export interface VariantDecision extends Decision {
  readonly namespace: string;
  readonly modelID: string;
  /** the optimisation cycle that produced it (increases by one per cycle) */
  readonly cycle: number;
  readonly time: string;
  readonly current: number;
  readonly outcome: ModelOutcome;
  /** how many replicas had metrics, and the model's load, for charts */
  readonly replicasWithMetrics: number;
  readonly analysis?: Pick<
    ModelAnalysis,
    'avgSpareKv' | 'avgSpareQueue' | 'saturatedReplicas' | 'nonSaturatedReplicas'
  >;
  /** average KV-cache use and queue length over the variant's replicas with metrics */
  readonly load?: { readonly kvCacheUsage: number; readonly queueLength: number };
  /** how the metrics read went for this model: undefined = fine */
  readonly metricsProblem?: { readonly reason: 'MetricsMissing' | 'PrometheusError'; readonly message: string };
  /** outcome `withheld`: why the variant got no decision (its target is then the kept value, not published) */
  readonly withheld?: Withheld;
  /** invalid or stale samples of a variant decided from its other replicas */
  readonly sampleProblem?: Withheld;
  /**
   * withheld because its replicas report no sample at all: when the first cycle of this run saw it (RFC 3339),
   * and whether that is still within the grace a new replica's first scrape gets (docs/autoscaling.md,
   * "No decision without evidence")
   */
  readonly noSamplesSince?: string;
  readonly awaitingFirstSamples?: boolean;
}

/** one point of a variant's history: what a chart of replicas and load over time needs, without the words */
export interface DecisionPoint {
  readonly cycle: number;
  readonly time: string;
  readonly current: number;
  readonly desired: number;
  readonly action: VariantDecision['action'];
  readonly outcome: ModelOutcome;
  readonly kvCacheUsage?: number;
  readonly queueLength?: number;
}

export const DEFAULT_HISTORY_LIMIT = 240;

export class DecisionStore {
  private readonly latestByKey = new Map<string, VariantDecision>();
  private readonly historyByKey = new Map<string, DecisionPoint[]>();

  constructor(private readonly historyLimit = DEFAULT_HISTORY_LIMIT) {}

  record(d: VariantDecision): void {
    const key = `${d.namespace}/${d.name}`;
    this.latestByKey.set(key, Object.freeze(d));
    let h = this.historyByKey.get(key);
    if (!h) this.historyByKey.set(key, (h = []));
    const point: DecisionPoint = {
      cycle: d.cycle,
      time: d.time,
      current: d.current,
      desired: d.target,
      action: d.action,
      outcome: d.outcome,
      ...(d.load ? { kvCacheUsage: d.load.kvCacheUsage, queueLength: d.load.queueLength } : {}),
    };
    h.push(Object.freeze(point));
    // drop in chunks, so a full history does not copy itself on every cycle
    if (h.length > this.historyLimit + 32) h.splice(0, h.length - this.historyLimit);
  }

  latest(namespace: string, name: string): VariantDecision | undefined {
    return this.latestByKey.get(`${namespace}/${name}`);
  }

  /** oldest first, at most the history limit */
  history(namespace: string, name: string): readonly DecisionPoint[] {
    return (this.historyByKey.get(`${namespace}/${name}`) ?? []).slice(-this.historyLimit);
  }

  /** every variant with a decision, as `namespace/name` */
  keys(): string[] {
    return [...this.latestByKey.keys()];
  }

  forget(namespace: string, name: string): void {
    this.latestByKey.delete(`${namespace}/${name}`);
    this.historyByKey.delete(`${namespace}/${name}`);
  }
}
