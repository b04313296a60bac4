// The V1 saturation analysis of one model (docs/autoscaling.md, "The algorithm", steps 1–5): which
// replicas are saturated, the average spare capacity of the others, and whether to scale up or whether
// removing one replica would be safe. Pure arithmetic over metrics already fetched.
import type { SaturationConfig } from '../config/parse.ts';

/** one replica's load, as Prometheus reports it over the last minute */
export interface ReplicaMetrics {
  readonly pod: string;
  /** vllm:kv_cache_usage_perc, 0..1 (a missing series counts as 0) */
  readonly kvCacheUsage: number;
  /** vllm:num_requests_waiting (a missing series counts as 0) */
  readonly queueLength: number;
  /** requests running or waiting on the replica now (its newest samples); undefined when unknown */
  readonly inFlight?: number;
}

export interface ModelAnalysis {
  readonly totalReplicas: number;
  readonly saturatedReplicas: number;
  readonly nonSaturatedReplicas: number;
  /** average kvCacheThreshold - kv over the non-saturated replicas of every variant (0 if none) */
  readonly avgSpareKv: number;
  /** average queueLengthThreshold - q over the same replicas (0 if none) */
  readonly avgSpareQueue: number;
  readonly shouldScaleUp: boolean;
  readonly scaleDownSafe: boolean;
  /** the spare capacity the remaining replicas would have after removing one (undefined: fewer than 2) */
  readonly afterRemoval?: { readonly spareKv: number; readonly spareQueue: number };
  /** which trigger fired, or why nothing did, with the numbers */
  readonly reason: string;
}

export function isSaturated(m: ReplicaMetrics, c: SaturationConfig): boolean {
  return m.kvCacheUsage >= c.kvCacheThreshold || m.queueLength >= c.queueLengthThreshold;
}

/** steps 1–5 over every replica with metrics of every variant of the model */
export function analyzeModel(replicas: readonly ReplicaMetrics[], c: SaturationConfig): ModelAnalysis {
  let n = 0;
  let spareKvSum = 0;
  let spareQSum = 0;
  for (const r of replicas) {
    if (isSaturated(r, c)) continue;
    n++;
    spareKvSum += c.kvCacheThreshold - r.kvCacheUsage;
    spareQSum += c.queueLengthThreshold - r.queueLength;
  }
  const avgSpareKv = n > 0 ? spareKvSum / n : 0;
  const avgSpareQueue = n > 0 ? spareQSum / n : 0;
  const kvLow = avgSpareKv < c.kvSpareTrigger;
  const queueLow = avgSpareQueue < c.queueSpareTrigger;
  const shouldScaleUp = kvLow || queueLow;
  const afterRemoval = n >= 2 ? spareAfterRemoval(avgSpareKv, avgSpareQueue, n, c) : undefined;
  const scaleDownSafe =
    afterRemoval !== undefined &&
    afterRemoval.spareKv >= c.kvSpareTrigger &&
    afterRemoval.spareQueue >= c.queueSpareTrigger;
  const base = {
    totalReplicas: replicas.length,
    saturatedReplicas: replicas.length - n,
    nonSaturatedReplicas: n,
    avgSpareKv,
    avgSpareQueue,
    shouldScaleUp,
    scaleDownSafe,
  };
  return {
    ...base,
    ...(afterRemoval ? { afterRemoval } : {}),
    reason: describe(base, afterRemoval, kvLow, queueLow, c),
  };
}

/** the load of N replicas spread over N-1: spare = threshold - load·N/(N-1) */
function spareAfterRemoval(avgSpareKv: number, avgSpareQueue: number, n: number, c: SaturationConfig) {
  const scale = n / (n - 1);
  return {
    spareKv: c.kvCacheThreshold - (c.kvCacheThreshold - avgSpareKv) * scale,
    spareQueue: c.queueLengthThreshold - (c.queueLengthThreshold - avgSpareQueue) * scale,
  };
}

const fmt = (x: number) => String(Math.round(x * 1000) / 1000);

function describe(
  a: Pick<
    ModelAnalysis,
    | 'totalReplicas'
    | 'saturatedReplicas'
    | 'nonSaturatedReplicas'
    | 'avgSpareKv'
    | 'avgSpareQueue'
    | 'shouldScaleUp'
    | 'scaleDownSafe'
  >,
  after: ModelAnalysis['afterRemoval'],
  kvLow: boolean,
  queueLow: boolean,
  c: SaturationConfig,
): string {
  const counts = `${a.saturatedReplicas} of ${a.totalReplicas} replicas saturated`;
  const spare = `average spare KV cache ${fmt(a.avgSpareKv)}, average spare queue ${fmt(a.avgSpareQueue)}`;
  if (a.shouldScaleUp) {
    const fired = [
      kvLow ? `spare KV cache ${fmt(a.avgSpareKv)} < kvSpareTrigger ${fmt(c.kvSpareTrigger)}` : '',
      queueLow ? `spare queue ${fmt(a.avgSpareQueue)} < queueSpareTrigger ${fmt(c.queueSpareTrigger)}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return `scale-up trigger fired: ${fired} (${counts})`;
  }
  if (a.scaleDownSafe && after)
    return `scale-down is safe: with one replica fewer the spare KV cache would be ${fmt(after.spareKv)} and the spare queue ${fmt(after.spareQueue)} (${counts}; ${spare})`;
  if (!after) return `no change: ${spare}; scale-down needs at least 2 non-saturated replicas (${counts})`;
  return `no change: ${spare}; with one replica fewer the spare KV cache would be ${fmt(after.spareKv)} and the spare queue ${fmt(after.spareQueue)}, below the triggers (${counts})`;
}
