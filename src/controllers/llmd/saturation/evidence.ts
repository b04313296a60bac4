// No decision without evidence (docs/autoscaling.md, "No decision without evidence"): which samples are
// usable, which variants get no decision and why, and which VariantAutoscaling owns a target that several
// claim. Pure: the engine loop and the VariantAutoscaling controller call it with what they read.
import type { PodLoad } from '../metrics-source/source.ts';
import type { ReplicaMetrics } from './analyzer.ts';

/** why a variant gets no decision this cycle (each is also the reason of the condition that says so) */
export type WithheldReason = 'TargetNotFound' | 'DuplicateTarget' | 'MetricsMissing' | 'MetricsStale' | 'Excluded';

export interface Withheld {
  readonly reason: WithheldReason;
  readonly message: string;
  /** replicas exist and none reports a sample at all: what a new replica looks like before its first scrape */
  readonly noSamples?: boolean;
}

/** a sample older than this is stale (the analysis reads the maximum over the last minute) */
export const DEFAULT_STALE_AFTER_SECONDS = 60;

export type SampleCheck =
  | { readonly kind: 'ok'; readonly metrics: ReplicaMetrics }
  | { readonly kind: 'missing' }
  | { readonly kind: 'dropped'; readonly why: string }
  | { readonly kind: 'stale'; readonly why: string };

const fmt = (v: number) => (Number.isNaN(v) ? 'NaN' : String(v));

/**
 * One pod's samples. A NaN, infinite, negative or (for the KV cache) above-1 value makes the whole pod count
 * as without metrics, named, rather than half-counted: a poisoned replica must not look idle.
 */
export function checkSample(pod: string, load: PodLoad | undefined, staleAfterSeconds: number): SampleCheck {
  if (!load) return { kind: 'missing' };
  const { kvCacheUsage: kv, queueLength: q, sampleAgeSeconds: age } = load;
  if (age !== undefined && age > staleAfterSeconds)
    return {
      kind: 'stale',
      why: `pod ${pod}: newest sample is ${Math.round(age)}s old (stale after ${staleAfterSeconds}s)`,
    };
  if (kv === undefined && q === undefined) return { kind: 'missing' };
  if (kv !== undefined && !(Number.isFinite(kv) && kv >= 0 && kv <= 1))
    return { kind: 'dropped', why: `pod ${pod}: vllm:kv_cache_usage_perc = ${fmt(kv)} (must be a number in 0..1)` };
  if (q !== undefined && !(Number.isFinite(q) && q >= 0))
    return { kind: 'dropped', why: `pod ${pod}: vllm:num_requests_waiting = ${fmt(q)} (must be a number >= 0)` };
  const inFlight =
    load.inFlight !== undefined && Number.isFinite(load.inFlight) && load.inFlight >= 0 ? load.inFlight : undefined;
  return {
    kind: 'ok',
    metrics: { pod, kvCacheUsage: kv ?? 0, queueLength: q ?? 0, ...(inFlight !== undefined ? { inFlight } : {}) },
  };
}

export interface VariantSamples {
  readonly replicas: readonly ReplicaMetrics[];
  /** named invalid samples (their pods count as without metrics) */
  readonly dropped: readonly string[];
  /** named stale samples */
  readonly stale: readonly string[];
}

export function checkSamples(
  pods: readonly string[],
  load: ReadonlyMap<string, PodLoad>,
  staleAfterSeconds: number,
): VariantSamples {
  const replicas: ReplicaMetrics[] = [];
  const dropped: string[] = [];
  const stale: string[] = [];
  for (const pod of pods) {
    const c = checkSample(pod, load.get(pod), staleAfterSeconds);
    if (c.kind === 'ok') replicas.push(c.metrics);
    else if (c.kind === 'dropped') dropped.push(c.why);
    else if (c.kind === 'stale') stale.push(c.why);
  }
  return { replicas, dropped, stale };
}

/** the problem with a variant's samples that still has some usable ones (undefined: none) */
export function sampleProblem(s: VariantSamples): Withheld | undefined {
  if (s.stale.length) return { reason: 'MetricsStale', message: `stale metrics: ${s.stale.join('; ')}` };
  if (s.dropped.length)
    return { reason: 'MetricsMissing', message: `invalid samples dropped: ${s.dropped.join('; ')}` };
  return undefined;
}

/**
 * A variant whose target exists and has `current` replicas: no decision when it has no replica, or no
 * replica with usable metrics.
 */
export function withheldForSamples(
  target: string,
  current: number,
  s: VariantSamples,
  source: string,
): Withheld | undefined {
  if (current === 0)
    return {
      reason: 'MetricsMissing',
      message: `${target} has 0 replicas, so no replica reports metrics and no decision is made; a request waiting at the gateway scales it from zero`,
    };
  if (s.replicas.length > 0) return undefined;
  const problem = sampleProblem(s);
  if (problem)
    return {
      reason: problem.reason,
      message: `none of the ${current} replicas of ${target} has usable metrics: ${problem.message}`,
    };
  return {
    reason: 'MetricsMissing',
    message: `none of the ${current} replicas of ${target} reports vllm:kv_cache_usage_perc or vllm:num_requests_waiting in ${source}; no decision is made until one does`,
    noSamples: true,
  };
}

export interface TargetClaim {
  /** `namespace/name` of the VariantAutoscaling */
  readonly key: string;
  readonly namespace: string;
  readonly targetKind: string;
  readonly targetName: string;
  readonly creationTimestamp?: string;
}

/**
 * For every VariantAutoscaling whose target another one claimed first, the key of that first one. The
 * earliest created wins (ties: the first by name), so the VA applied later is the one told.
 */
export function duplicateTargets(claims: readonly TargetClaim[]): Map<string, string> {
  const byTarget = new Map<string, TargetClaim[]>();
  for (const c of claims) {
    const t = `${c.namespace}/${c.targetKind}/${c.targetName}`;
    const list = byTarget.get(t);
    if (list) list.push(c);
    else byTarget.set(t, [c]);
  }
  const out = new Map<string, string>();
  for (const list of byTarget.values()) {
    if (list.length < 2) continue;
    list.sort(
      (a, b) =>
        (a.creationTimestamp ?? '').localeCompare(b.creationTimestamp ?? '') ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    for (const c of list.slice(1)) out.set(c.key, list[0]!.key);
  }
  return out;
}

export function duplicateMessage(target: string, owner: string): Withheld {
  return {
    reason: 'DuplicateTarget',
    message: `${target} is already the target of VariantAutoscaling ${owner} (created earlier); this one gets no decision. Delete one of them or point spec.scaleTargetRef at another Deployment`,
  };
}
