// From a model's analysis to one target replica count per variant (docs/autoscaling.md, "The algorithm",
// steps 6–7): the transition guard, at most one replica changed per model and cycle (the cheapest variant
// without pending replicas grows, the most expensive shrinks), the variants' min/max bounds and the
// scale-to-zero rule. Pure.
import type { ModelAnalysis, ReplicaMetrics } from './analyzer.ts';

export interface VariantState {
  /** the VariantAutoscaling's name (unique within the model's namespace) */
  readonly name: string;
  readonly cost: number;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  /** the target's replicas (Deployment status.replicas, else spec.replicas) */
  readonly current: number;
  /** ready replicas; current - ready are pending */
  readonly ready: number;
  /** the previous decision (status.desiredOptimizedAlloc.numReplicas), if any */
  readonly previousDesired?: number;
  /** the replicas with metrics */
  readonly replicas: readonly ReplicaMetrics[];
}

export type VariantAction =
  | 'scale-up'
  | 'scale-down'
  | 'no-change'
  | 'in-transition'
  | 'scale-to-zero'
  /** the scale-from-zero loop's wake-up (scale-from-zero.ts), not the engine's */
  | 'scale-from-zero';

export interface VariantTarget {
  readonly name: string;
  readonly target: number;
  readonly action: VariantAction;
  /** in words: why this variant got this target */
  readonly reason: string;
}

export interface ScaleToZeroInput {
  /** the retention window: the model must have been idle this long (docs/autoscaling.md, "Scale to zero") */
  readonly windowSeconds: number;
  /** requests the model served within the retention window (undefined: unknown, so never zero) */
  readonly requestsInWindow?: number;
  /**
   * the most requests running or waiting on any replica, or held at the gateway, at any sample within the
   * window (undefined: unknown, so never zero)
   */
  readonly peakInFlight?: number;
  /**
   * how long the engine has seen the model idle at every cycle (no request running or waiting on a replica,
   * none held at the gateway, its served count unchanged), counted from its last activity, from its newest
   * replica and from the engine's start: a window not watched whole proves nothing, so never zero before it
   */
  readonly idleSeconds?: number;
  readonly windowDescription: string;
  /** the scale-to-zero ConfigMap's (or WVA_SCALE_TO_ZERO's) say; false forbids it even with minReplicas 0 */
  readonly enabled?: boolean;
}

const byName = (a: VariantState, b: VariantState) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** step 6 and the bounds, then step 7 */
export function calculateTargets(
  variants: readonly VariantState[],
  analysis: ModelAnalysis,
  scaleToZero: ScaleToZeroInput,
  unmeasured?: string,
): VariantTarget[] {
  const transition = unmeasured ?? transitionOf(variants);
  const targets = transition ? inTransition(variants, transition) : decide(variants, analysis);
  return enforceScaleToZero(
    variants,
    targets.map((t, i) => bound(variants[i]!, t)),
    scaleToZero,
  );
}

function transitionOf(variants: readonly VariantState[]): string | undefined {
  for (const v of variants) {
    if (v.previousDesired !== undefined && v.previousDesired !== 0 && v.previousDesired !== v.current)
      return `${v.name} is moving from ${v.current} to the desired ${v.previousDesired} replicas`;
    if (v.replicas.length !== v.current)
      return `${v.name} has ${v.replicas.length} replicas with metrics of ${v.current}`;
  }
  return undefined;
}

function inTransition(variants: readonly VariantState[], why: string): VariantTarget[] {
  return variants.map((v) => {
    const keep =
      v.previousDesired !== undefined && v.previousDesired !== 0 && v.previousDesired !== v.current
        ? v.previousDesired
        : v.current;
    return {
      name: v.name,
      target: keep,
      action: 'in-transition',
      reason: `model in transition (${why}); keeping ${keep} replicas, no scaling decision this cycle`,
    };
  });
}

/**
 * The analysis reads each replica's maximum over the last minute, which remembers load that has ended: when
 * every replica reports that no request is running or waiting now, a fired scale-up trigger describes the
 * past, and nothing grows (docs/autoscaling.md, "No decision without evidence").
 */
export function idleNow(variants: readonly VariantState[]): boolean {
  const replicas = variants.flatMap((v) => v.replicas);
  return replicas.length > 0 && replicas.every((r) => r.inFlight === 0);
}

function decide(variants: readonly VariantState[], analysis: ModelAnalysis): VariantTarget[] {
  const targets = variants.map<VariantTarget>((v) => ({
    name: v.name,
    target: v.replicas.length,
    action: 'no-change',
    reason: analysis.reason,
  }));
  if (analysis.shouldScaleUp && idleNow(variants)) {
    return targets.map((t) => ({
      ...t,
      reason: `${analysis.reason}; but no request is running or waiting on any replica now (the trigger reflects the last minute's peak), so nothing grows`,
    }));
  }
  if (analysis.shouldScaleUp) {
    const up = cheapestGrowable(variants);
    for (let i = 0; i < variants.length; i++) {
      const v = variants[i]!;
      if (v === up)
        targets[i] = {
          name: v.name,
          target: v.replicas.length + 1,
          action: 'scale-up',
          reason: `${analysis.reason}; +1 on ${v.name}, the cheapest variant (cost ${v.cost}) without pending replicas`,
        };
      else
        targets[i] = {
          ...targets[i]!,
          reason: up
            ? `${analysis.reason}; ${up.name} grows instead (cheaper, or earlier by name)`
            : `${analysis.reason}; but no variant can grow (pending replicas or at maxReplicas)`,
        };
    }
  } else if (analysis.scaleDownSafe) {
    const down = mostExpensiveShrinkable(variants);
    for (let i = 0; i < variants.length; i++) {
      const v = variants[i]!;
      if (v === down)
        targets[i] = {
          name: v.name,
          target: v.replicas.length - 1,
          action: 'scale-down',
          reason: `${analysis.reason}; -1 on ${v.name}, the most expensive variant (cost ${v.cost}) above its floor`,
        };
      else
        targets[i] = {
          ...targets[i]!,
          reason: down
            ? `${analysis.reason}; ${down.name} shrinks instead`
            : `${analysis.reason}; but no variant is above its floor`,
        };
    }
  }
  return targets;
}

/** the cheapest variant with no pending replicas and room below maxReplicas; ties: first by name */
function cheapestGrowable(variants: readonly VariantState[]): VariantState | undefined {
  let best: VariantState | undefined;
  for (const v of variants) {
    if (v.current - v.ready > 0 || v.replicas.length + 1 > v.maxReplicas) continue;
    if (!best || v.cost < best.cost || (v.cost === best.cost && byName(v, best) < 0)) best = v;
  }
  return best;
}

/** the most expensive variant whose target is above 1 and its minReplicas; ties: last by name */
function mostExpensiveShrinkable(variants: readonly VariantState[]): VariantState | undefined {
  let best: VariantState | undefined;
  for (const v of variants) {
    if (v.replicas.length <= Math.max(1, v.minReplicas)) continue;
    if (!best || v.cost > best.cost || (v.cost === best.cost && byName(v, best) > 0)) best = v;
  }
  return best;
}

function bound(v: VariantState, t: VariantTarget): VariantTarget {
  if (t.target > v.maxReplicas)
    return { ...t, target: v.maxReplicas, reason: `${t.reason}; capped at maxReplicas ${v.maxReplicas}` };
  if (t.target < v.minReplicas)
    return { ...t, target: v.minReplicas, reason: `${t.reason}; raised to minReplicas ${v.minReplicas}` };
  return t;
}

/**
 * Step 7. Scale to zero is allowed for the variants whose minReplicas is 0; when every variant allows it and
 * the model was idle for the whole window (no request served, none running, waiting or held at the gateway
 * at any sample, and the window watched whole), all go to 0. Otherwise the model never drops to zero: if the
 * total would be 0, the cheapest variant keeps 1.
 */
function enforceScaleToZero(
  variants: readonly VariantState[],
  targets: VariantTarget[],
  s: ScaleToZeroInput,
): VariantTarget[] {
  const allowed = variants.length > 0 && variants.every((v) => v.minReplicas === 0) && s.enabled !== false;
  const busy = allowed ? busyInWindow(s) : undefined;
  if (allowed && busy === undefined) {
    return targets.map((t) => ({
      name: t.name,
      target: 0,
      action: 'scale-to-zero',
      reason: `no request served, running, waiting or held at the gateway for the model in ${s.windowDescription}, and every variant allows 0 replicas: scaling to zero`,
    }));
  }
  if (targets.reduce((sum, t) => sum + t.target, 0) > 0)
    return allowed ? targets.map((t) => ({ ...t, reason: `${t.reason}; not scaling to zero: ${busy}` })) : targets;
  const cheapest = [...variants].sort((a, b) => a.cost - b.cost || byName(a, b))[0];
  if (!cheapest) return targets;
  const why = allowed
    ? busy
    : s.enabled === false
      ? 'scale to zero is disabled for the model by the scale-to-zero configuration'
      : 'scale to zero is not allowed';
  return targets.map((t) =>
    t.name === cheapest.name
      ? { ...t, target: 1, reason: `${t.reason}; keeping 1 replica on ${t.name}, the cheapest variant: ${why}` }
      : t,
  );
}

/** why the model may not go to zero yet, or undefined when it was idle for the whole window */
export function busyInWindow(s: ScaleToZeroInput): string | undefined {
  const known = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n >= 0;
  const w = s.windowDescription;
  if (!known(s.requestsInWindow)) return `the count of requests served in ${w} is unknown`;
  if (s.requestsInWindow > 0) return `the model served ${s.requestsInWindow} request(s) in ${w}`;
  if (!known(s.peakInFlight)) return `whether requests ran or waited in ${w} is unknown`;
  if (s.peakInFlight > 0) return `up to ${s.peakInFlight} request(s) ran, waited or were held at the gateway in ${w}`;
  if (!known(s.idleSeconds) || !(s.idleSeconds >= s.windowSeconds))
    // no running count in the words: a reason that changed every cycle would rewrite the status every cycle
    return `the window is not over: the model has been watched idle for less than ${s.windowSeconds} s`;
  return undefined;
}
