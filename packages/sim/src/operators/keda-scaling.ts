// What the simulated KEDA does with a ScaledObject's prometheus triggers when `modelplane dev` gives it a
// Prometheus (the dev one stands in for every trigger's serverAddress, as it stands in for prometheus-adapter
// behind the simulated HPA): KEDA's own scale loop, which alone takes a target to and from 0, and the
// replica arithmetic of the HPA KEDA makes for 1..N (kube-controller-manager's on a cluster). So a
// ScaledObject on wva_desired_replicas with minReplicaCount 0 scales a model to zero and back in dev.
//
// KEDA's rules, followed here: a trigger is active when its value is above activationThreshold (default
// 0); a target at 0 with an active trigger goes to max(1, minReplicaCount); a target above 0 with no active
// trigger and minReplicaCount 0 goes to 0 once cooldownPeriod (default 300 s) has passed since the last
// active poll, or, when no poll was ever active, once initialCooldownPeriod (default 0) has passed since the
// ScaledObject's creation; a trigger whose
// query fails scales nothing. Otherwise the HPA arithmetic sizes it within [max(1, min), max], holding
// scale-downs for the HPA's scale-down stabilization window (default 300 s).
import { type PrometheusClientOptions, queryPrometheus } from '@modelplane/runtime/prometheus';
import { replicasFor } from './hpa.ts';

export interface PrometheusTrigger {
  type: string;
  metadata?: Record<string, string>;
}

export interface ScaledObjectScaling {
  minReplicaCount?: number;
  maxReplicaCount?: number;
  cooldownPeriod?: number;
  /** no scale to zero within this many seconds of the ScaledObject's creation (default 0) */
  initialCooldownPeriod?: number;
  advanced?: {
    horizontalPodAutoscalerConfig?: { behavior?: { scaleDown?: { stabilizationWindowSeconds?: number } } };
  };
}

export interface TriggerReading {
  /** the query's value; undefined when it failed */
  value?: number;
  error?: string;
  threshold: number;
  activationThreshold: number;
}

/** one poll of every prometheus trigger; other trigger types are not simulated and read nothing */
export async function readTriggers(
  triggers: readonly PrometheusTrigger[],
  prometheus: PrometheusClientOptions,
  signal?: AbortSignal,
): Promise<TriggerReading[]> {
  return Promise.all(
    triggers
      .filter((t) => t.type === 'prometheus' && t.metadata?.query)
      .map(async (t) => {
        const threshold = Number.parseFloat(t.metadata?.threshold ?? '');
        const activationThreshold = Number.parseFloat(t.metadata?.activationThreshold ?? '0');
        const base = {
          threshold: Number.isFinite(threshold) && threshold > 0 ? threshold : 1,
          activationThreshold: Number.isFinite(activationThreshold) ? activationThreshold : 0,
        };
        try {
          const r = await queryPrometheus(prometheus, t.metadata!.query!, signal);
          // KEDA's prometheus scaler: an empty result is 0 (ignoreNullValues defaults to true)
          const value = r.length === 0 ? 0 : Number(r[0]!.value[1]);
          if (!Number.isFinite(value)) return { ...base, error: `query returned ${r[0]!.value[1]}` };
          return { ...base, value };
        } catch (err) {
          return { ...base, error: (err as Error).message };
        }
      }),
  );
}

export interface ScaleInput {
  readings: readonly TriggerReading[];
  spec: ScaledObjectScaling;
  /** the target's spec.replicas */
  current: number;
  nowMs: number;
  /** the last poll with an active trigger (status.lastActiveTime), if any */
  lastActiveMs?: number;
  /** the ScaledObject's creation time */
  createdMs?: number;
  /** the HPA part's recent recommendations, oldest first, for scale-down stabilization */
  recommendations: ReadonlyArray<{ at: number; replicas: number }>;
}

export interface ScaleResult {
  active: boolean;
  /** the replicas to set (equal to current: no change) */
  replicas: number;
  /** who decided, for events and the HPA's status */
  by: 'keda' | 'hpa' | 'none';
  message: string;
  /** the HPA part's recommendation this poll, when it made one */
  recommendation?: number;
}

/** KEDA's scale decision for one poll; pure */
export function kedaScale(input: ScaleInput): ScaleResult {
  const { readings, spec, current, nowMs } = input;
  const min = Math.max(0, spec.minReplicaCount ?? 0);
  const max = Math.max(1, min, spec.maxReplicaCount ?? 100);
  const failed = readings.find((r) => r.error !== undefined);
  if (readings.length === 0)
    return { active: false, replicas: current, by: 'none', message: 'no prometheus trigger to evaluate' };
  if (failed) return { active: false, replicas: current, by: 'none', message: `trigger failed: ${failed.error}` };
  const active = readings.some((r) => (r.value ?? 0) > r.activationThreshold);
  if (current === 0) {
    if (!active) return { active, replicas: 0, by: 'none', message: 'no trigger is active; staying at 0' };
    return { active, replicas: Math.max(1, min), by: 'keda', message: 'a trigger is active: scaling from zero' };
  }
  if (!active && min === 0) {
    // as KEDA's scale executor: never active → initialCooldownPeriod after creation; else cooldownPeriod after
    // the last active poll
    const cooldownOver =
      input.lastActiveMs === undefined
        ? nowMs - (input.createdMs ?? Number.NEGATIVE_INFINITY) >= (spec.initialCooldownPeriod ?? 0) * 1000
        : nowMs - input.lastActiveMs >= (spec.cooldownPeriod ?? 300) * 1000;
    if (cooldownOver)
      return { active, replicas: 0, by: 'keda', message: 'no trigger active for the cooldown period: scaling to zero' };
  }
  const proposals = readings.map(
    (r) => replicasFor({ type: 'AverageValue', averageValue: r.threshold }, r.value ?? 0, current) ?? current,
  );
  const raw = Math.min(max, Math.max(1, min, ...proposals));
  const windowMs =
    (spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleDown?.stabilizationWindowSeconds ?? 300) * 1000;
  const recent = input.recommendations.filter((r) => nowMs - r.at <= windowMs).map((r) => r.replicas);
  const replicas = raw < current ? Math.max(raw, ...recent) : raw;
  return {
    active,
    replicas,
    by: 'hpa',
    recommendation: raw,
    message: `external metric ${readings.map((r) => r.value).join(', ')} against target ${readings.map((r) => r.threshold).join(', ')}`,
  };
}
