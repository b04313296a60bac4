// The simulated HorizontalPodAutoscaler controller (kube-controller-manager's, for `modelplane dev`): every
// sync period it reads each HPA's External metrics from Prometheus (where prometheus-adapter would get them
// on a cluster), computes the replicas with the HPA algorithm (tolerance 0.1; AverageValue: ceil(value /
// target); Value: ceil(current × value / target)), holds scale-downs for the stabilization window, and
// scales the target Deployment within [minReplicas, maxReplicas]. Resource metrics are not simulated; HPAs
// KEDA owns are left to the KEDA simulator. This is what closes the saturation autoscaler's loop in dev
// (docs/autoscaling.md, "Actuation").

import type { ReconcileContext, Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { type PrometheusClientOptions, promqlString, queryPrometheus } from '@modelplane/runtime/prometheus';
import { buildConditions, type ConditionInput } from './conditions.ts';
import { SimDeployments } from './kinds.ts';
import { applyStatus } from './workload.ts';

export const HPA_CONTROLLER = 'horizontal-pod-autoscaler';
const TOLERANCE = 0.1;

interface MetricTarget {
  type: 'Value' | 'AverageValue' | 'Utilization';
  value?: string | number;
  averageValue?: string | number;
}

interface HpaMetric {
  type: string;
  external?: { metric: { name: string; selector?: { matchLabels?: Record<string, string> } }; target: MetricTarget };
}

interface Hpa extends KubeObject {
  spec?: {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: HpaMetric[];
    behavior?: {
      scaleDown?: { stabilizationWindowSeconds?: number };
      scaleUp?: { stabilizationWindowSeconds?: number };
    };
  };
  status?: {
    conditions?: Array<{
      type: string;
      status: string;
      reason?: string;
      message?: string;
      lastTransitionTime?: string;
    }>;
    lastScaleTime?: string;
  };
}

const Hpas = kindRef<Hpa>('autoscaling/v2', 'HorizontalPodAutoscaler');

export interface HpaSimulatorOptions {
  prometheus: PrometheusClientOptions;
  /** how often each HPA is evaluated (kube's default is 15 s) */
  syncPeriodMs?: number;
}

/** the replicas one metric asks for, as the HPA computes them */
export function replicasFor(target: MetricTarget, value: number, current: number): number | undefined {
  const q = (v: string | number | undefined) => (v === undefined ? undefined : Number.parseFloat(String(v)));
  if (target.type === 'AverageValue') {
    const t = q(target.averageValue);
    if (!t) return undefined;
    const ratio = value / (t * Math.max(1, current));
    return Math.abs(ratio - 1) <= TOLERANCE && current > 0 ? current : Math.ceil(value / t);
  }
  if (target.type === 'Value') {
    const t = q(target.value);
    if (!t) return undefined;
    const ratio = value / t;
    return Math.abs(ratio - 1) <= TOLERANCE ? current : Math.ceil(current * ratio);
  }
  return undefined;
}

export function registerHpaSimulator(mgr: Manager, opts: HpaSimulatorOptions): void {
  const period = opts.syncPeriodMs ?? 3_000;
  const recommendations = new Map<string, Array<{ at: number; replicas: number }>>();
  mgr
    .controller(HPA_CONTROLLER)
    .for(Hpas)
    .complete(async (req, ctx) => {
      await syncHpa(req, ctx, opts, recommendations);
      return { requeueAfter: period };
    });
}

export type Recommendations = Map<string, Array<{ at: number; replicas: number }>>;

async function syncHpa(req: Request, ctx: ReconcileContext, opts: HpaSimulatorOptions, recs: Recommendations) {
  const key = `${req.namespace}/${req.name}`;
  const hpa = await ctx.cache.get(Hpas, req.name, req.namespace);
  if (!hpa || hpa.metadata.labels?.['app.kubernetes.io/managed-by'] === 'keda-operator') return void recs.delete(key);
  const ref = hpa.spec?.scaleTargetRef;
  const deployment =
    ref?.kind === 'Deployment' ? await ctx.cache.get(SimDeployments, ref.name ?? '', req.namespace) : undefined;
  if (!deployment) {
    const message = `the HPA controller was unable to get the target's current scale: deployments.apps "${ref?.name}" not found`;
    const conditions = hpaConditions(hpa, [{ type: 'AbleToScale', status: false, reason: 'FailedGetScale', message }]);
    await applyStatus(ctx, hpa, { currentReplicas: 0, desiredReplicas: 0, conditions });
    return;
  }
  const current = deployment.spec?.replicas ?? 1;
  // as kube-controller-manager's HPA controller: a target at 0 replicas is left there (scaling from zero
  // is someone else's job: KEDA, or the autoscaler's scale-from-zero)
  if (current === 0) {
    const message = 'scaling is disabled since the replica count of the target is zero';
    const conditions = hpaConditions(hpa, [
      { type: 'ScalingActive', status: false, reason: 'ScalingDisabled', message },
    ]);
    await applyStatus(ctx, hpa, { currentReplicas: 0, desiredReplicas: 0, conditions });
    return;
  }
  const { proposals, currentMetrics, failure } = await readExternalMetrics(hpa, current, opts, ctx.signal);
  if (proposals.length === 0) {
    await writeNoProposal(ctx, hpa, current, currentMetrics, failure);
    return;
  }
  const min = hpa.spec?.minReplicas ?? 1;
  const max = hpa.spec?.maxReplicas ?? current;
  const now = Date.now();
  const raw = Math.min(max, Math.max(min, Math.max(...proposals)));
  const desired = stabilized(hpa, recs, key, now, raw, current);
  if (desired !== current) {
    await ctx.client.patch(
      SimDeployments,
      deployment.metadata.name ?? '',
      req.namespace,
      { spec: { replicas: desired } },
      'merge',
      { subresource: 'scale' },
    );
    const message = `New size: ${desired}; reason: external metric above target`;
    ctx.recorder.event(hpa, 'Normal', 'SuccessfulRescale', message, 'Scale');
  }
  await applyStatus(ctx, hpa, {
    currentReplicas: current,
    desiredReplicas: desired,
    currentMetrics,
    ...(desired !== current
      ? { lastScaleTime: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z') }
      : hpa.status?.lastScaleTime
        ? { lastScaleTime: hpa.status.lastScaleTime }
        : {}),
    conditions: scaledConditions(hpa, raw, min, max),
  });
}

/** HPA conditions carry no observedGeneration (autoscaling/v2 has none). */
function hpaConditions(hpa: Hpa, conditions: Parameters<typeof buildConditions>[1]) {
  return buildConditions(hpa.status?.conditions as never, conditions).map(({ observedGeneration: _o, ...x }) => x);
}

/**
 * Each External metric's value from Prometheus (summed over its selector, as prometheus-adapter serves it) and
 * the replicas it asks for; the last query failure, if any, names why a metric has no proposal.
 */
async function readExternalMetrics(hpa: Hpa, current: number, opts: HpaSimulatorOptions, signal: AbortSignal) {
  const proposals: number[] = [];
  const currentMetrics: unknown[] = [];
  let failure: string | undefined;
  for (const m of hpa.spec?.metrics ?? []) {
    if (m.type !== 'External' || !m.external) continue;
    const sel = m.external.metric.selector?.matchLabels ?? {};
    const promql = `sum(${m.external.metric.name}{${Object.entries(sel)
      .map(([k, v]) => `${k}=${promqlString(v)}`)
      .join(',')}})`;
    try {
      const r = await queryPrometheus(opts.prometheus, promql, signal);
      if (r.length === 0) throw new Error(`no series for ${promql}`);
      const value = Number(r[0]!.value[1]);
      const replicas = replicasFor(m.external.target, value, current);
      if (replicas !== undefined) proposals.push(replicas);
      currentMetrics.push({
        type: 'External',
        external: {
          metric: m.external.metric,
          current:
            m.external.target.type === 'AverageValue'
              ? { averageValue: String(Math.round((value / Math.max(1, current)) * 1000) / 1000) }
              : { value: String(value) },
        },
      });
    } catch (err) {
      failure = (err as Error).message;
    }
  }
  return { proposals, currentMetrics, failure };
}

function writeNoProposal(
  ctx: ReconcileContext,
  hpa: Hpa,
  current: number,
  currentMetrics: unknown[],
  failure: string | undefined,
) {
  return applyStatus(ctx, hpa, {
    currentReplicas: current,
    desiredReplicas: current,
    currentMetrics,
    conditions: hpaConditions(hpa, [
      {
        type: 'AbleToScale',
        status: true,
        reason: 'SucceededGetScale',
        message: "the HPA controller was able to get the target's current scale",
      },
      {
        type: 'ScalingActive',
        status: false,
        reason: 'FailedGetExternalMetric',
        message: `the HPA was unable to compute the replica count: ${failure ?? 'no External metric to act on'}`,
      },
    ]),
  });
}

/**
 * Scale-down stabilization: the recommendation is recorded, and a scale-down goes only as low as the highest
 * recommendation within the window (behavior.scaleDown.stabilizationWindowSeconds, 300 s by default).
 */
export function stabilized(
  hpa: Pick<Hpa, 'spec'>,
  recs: Recommendations,
  key: string,
  now: number,
  raw: number,
  current: number,
) {
  const window = (hpa.spec?.behavior?.scaleDown?.stabilizationWindowSeconds ?? 300) * 1000;
  const history = (recs.get(key) ?? []).filter((r) => now - r.at <= window);
  history.push({ at: now, replicas: raw });
  recs.set(key, history);
  return raw < current ? Math.max(...history.map((r) => r.replicas)) : raw;
}

function scaledConditions(hpa: Hpa, raw: number, min: number, max: number) {
  const reason = raw === max ? 'TooManyReplicas' : raw === min ? 'TooFewReplicas' : 'DesiredWithinRange';
  const active = 'the HPA was able to successfully calculate a replica count from external metric';
  return hpaConditions(hpa, scalingConditions(active, raw === min || raw === max, reason));
}

/**
 * The conditions of an HPA that computed a replica count: AbleToScale, ScalingActive (`activeMessage` says
 * from what) and ScalingLimited (`limited`, for `reason`). The simulated KEDA's HPA reports the same.
 */
export function scalingConditions(activeMessage: string, limited: boolean, reason: string): ConditionInput[] {
  return [
    {
      type: 'AbleToScale',
      status: true,
      reason: 'ReadyForNewScale',
      message: 'recommended size matches current size',
    },
    { type: 'ScalingActive', status: true, reason: 'ValidMetricFound', message: activeMessage },
    {
      type: 'ScalingLimited',
      status: limited,
      reason,
      message: 'the desired count is within the acceptable range',
    },
  ];
}
