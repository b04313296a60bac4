// The simulated KEDA operator. A ScaledObject gets the HorizontalPodAutoscaler KEDA creates for it,
// `keda-hpa-<name>` (one metric per trigger), and Ready/Active/Fallback conditions. Given a Prometheus
// (`modelplane dev` passes its own), it polls the prometheus triggers every pollingInterval and scales the
// target as KEDA and its HPA would (keda-scaling.ts), to and from 0 included. Without one, triggers never
// activate and nothing is scaled: the HPA reports the target's current replicas within [min, max], as an
// HPA at rest does (its status is written here because the simulated cluster has no HPA controller).

import { ReverseIndex } from '@modelplane/apimachinery';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { controllerRef } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import {
  kedaScale,
  type ScaledObjectScaling,
  type ScaleResult,
  readTriggers,
  type TriggerReading,
} from './keda-scaling.ts';
import { type Deployment, type Json, ScaledObjects, SimDeployments, SimHPAs, type WithStatus } from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { applyChild, applyStatus } from './workload.ts';

export const KEDA_CONTROLLER = 'sim-keda';

interface Trigger {
  type: string;
  name?: string;
  metricType?: string;
  metadata?: Record<string, string>;
}

/** per ScaledObject: the HPA part's recent recommendations (for scale-down stabilization) */
type Recommendations = Map<string, Array<{ at: number; replicas: number }>>;

export function registerKedaSimulator(mgr: Manager, opts: SimulatorOptions): void {
  const targets = new ReverseIndex();
  const recommendations: Recommendations = new Map();
  mgr
    .controller(KEDA_CONTROLLER)
    .for(ScaledObjects, { predicates: [ignoreOwnStatusWrites(KEDA_CONTROLLER)] })
    .owns(SimHPAs)
    .watches(SimDeployments, (d) => targets.holdersOf(`${d.metadata.namespace}/${d.metadata.name}`))
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileScaledObject(req, ctx, opts, targets, recommendations));
}

/** the HPA metric KEDA generates for trigger `i` */
export function hpaMetric(so: string, t: Trigger, i: number): Json {
  if (t.type === 'cpu' || t.type === 'memory') {
    const utilization = (t.metricType ?? 'Utilization') === 'Utilization';
    const value = t.metadata?.value ?? '80';
    return {
      type: 'Resource',
      resource: {
        name: t.type,
        target: utilization
          ? { type: 'Utilization', averageUtilization: Number(value) }
          : { type: 'AverageValue', averageValue: value },
      },
    };
  }
  const target = t.metadata?.threshold ?? t.metadata?.targetValue ?? t.metadata?.value ?? '1';
  return {
    type: 'External',
    external: {
      metric: { name: externalMetricName(t, i), selector: { matchLabels: { 'scaledobject.keda.sh/name': so } } },
      target: { type: 'AverageValue', averageValue: target },
    },
  };
}

function externalMetricName(t: Trigger, i: number): string {
  return `s${i}-${t.name ?? t.type}`;
}

async function reconcileScaledObject(
  req: Request,
  ctx: ReconcileContext,
  opts: SimulatorOptions,
  targets: ReverseIndex,
  recommendations: Recommendations,
) {
  const key = `${req.namespace}/${req.name}`;
  const so = await ctx.cache.get(ScaledObjects, req.name, req.namespace);
  if (!so) {
    targets.delete(key);
    recommendations.delete(key);
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (so.metadata.deletionTimestamp) return;
  const spec = (so.spec ?? {}) as ScaledObjectScaling & {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    pollingInterval?: number;
    triggers?: Trigger[];
  };
  const ref = {
    apiVersion: spec.scaleTargetRef?.apiVersion ?? 'apps/v1',
    kind: spec.scaleTargetRef?.kind ?? 'Deployment',
    name: spec.scaleTargetRef?.name ?? '',
  };
  targets.set(key, [`${req.namespace}/${ref.name}`]);
  const generation = so.metadata.generation ?? 1;
  const conds = (c: ConditionInput[]) => buildConditions(so.status?.conditions, c, { observedGeneration: generation });
  const target =
    ref.kind === 'Deployment' && ref.apiVersion === 'apps/v1'
      ? await ctx.cache.get(SimDeployments, ref.name, req.namespace)
      : undefined;
  if (!target) {
    const msg =
      ref.kind === 'Deployment'
        ? `ScaledObject doesn't have correct scaleTargetRef specification: Deployment ${req.namespace}/${ref.name} not found`
        : `scaleTargetRef kind ${ref.kind} is not supported by the simulated KEDA (only apps/v1 Deployments)`;
    await applyStatus(ctx, so, {
      ...(so.status ?? {}),
      conditions: conds([
        { type: 'Ready', status: false, reason: 'ScaledObjectCheckFailed', message: msg },
        { type: 'Active', status: 'Unknown', reason: 'ScaledObjectCheckFailed', message: msg },
        fallback(),
      ]),
    });
    return;
  }

  const triggers = spec.triggers ?? [];
  const min = Math.max(1, spec.minReplicaCount ?? 0);
  const max = Math.max(min, spec.maxReplicaCount ?? 100);
  const hpaName = `keda-hpa-${req.name}`;
  const hpa = await applyChild(ctx, SimHPAs, {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: hpaName,
      namespace: req.namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'keda-operator',
        'app.kubernetes.io/name': hpaName,
        'app.kubernetes.io/part-of': req.name,
        'scaledobject.keda.sh/name': req.name,
      },
      ownerReferences: [controllerRef(so)],
    },
    spec: {
      scaleTargetRef: ref,
      minReplicas: min,
      maxReplicas: max,
      metrics: triggers.map((t, i) => hpaMetric(req.name, t, i)),
    },
  });
  const wait = opts.clock.remaining(so, 'activation', opts.delays.kedaActivationMs);
  const current = target.status?.replicas ?? 0;
  const lastActive = (so.status as { lastActiveTime?: string } | undefined)?.lastActiveTime;
  const scaled =
    wait === 0 && opts.kedaPrometheus
      ? await scaleOnTriggers(ctx, so, spec, target, opts, recommendations.get(key) ?? [], lastActive)
      : undefined;
  if (scaled?.result.recommendation !== undefined)
    recommendations.set(key, [
      ...(recommendations.get(key) ?? []).filter((r) => Date.now() - r.at <= 600_000),
      { at: Date.now(), replicas: scaled.result.recommendation },
    ]);
  // no prometheus trigger to read (cpu, the OpenTelemetry scaler…): an HPA at rest, as without a Prometheus
  const desired =
    scaled && scaled.readings.length > 0
      ? scaled.result.replicas
      : Math.min(max, Math.max(min, target.spec?.replicas ?? min));
  if (wait === 0) {
    await applyStatus(ctx, hpa, {
      currentReplicas: current,
      desiredReplicas: desired,
      currentMetrics: scaled ? hpaMetrics(req.name, triggers, scaled.readings, current) : [],
      conditions: buildConditions((hpa.status as WithStatus['status'])?.conditions, [
        {
          type: 'AbleToScale',
          status: true,
          reason: 'ReadyForNewScale',
          message: 'recommended size matches current size',
        },
        {
          type: 'ScalingActive',
          status: true,
          reason: 'ValidMetricFound',
          message: 'the HPA was able to successfully calculate a replica count',
        },
        {
          type: 'ScalingLimited',
          status: false,
          reason: 'DesiredWithinRange',
          message: 'the desired count is within the acceptable range',
        },
      ]).map(({ observedGeneration: _o, ...c }) => c),
    });
  }
  const previousOriginal = (so.status as { originalReplicaCount?: number } | undefined)?.originalReplicaCount;
  const activeNow = scaled?.result.active === true;
  await applyStatus(ctx, so, {
    ...(activeNow ? { lastActiveTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}),
    ...(!activeNow && lastActive ? { lastActiveTime: lastActive } : {}),
    scaleTargetKind: 'apps/v1.Deployment',
    scaleTargetGVKR: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
    originalReplicaCount: previousOriginal ?? target.spec?.replicas ?? 1,
    hpaName,
    externalMetricNames: triggers
      .map((t, i) => (t.type === 'cpu' || t.type === 'memory' ? '' : externalMetricName(t, i)))
      .filter(Boolean),
    conditions: conds([
      {
        type: 'Ready',
        status: true,
        reason: 'ScaledObjectReady',
        message: 'ScaledObject is defined correctly and is ready for scaling',
      },
      wait > 0
        ? { type: 'Active', status: 'Unknown', reason: 'ScalerPending', message: 'Waiting for the first metrics poll' }
        : activeNow
          ? {
              type: 'Active',
              status: true,
              reason: 'ScalerActive',
              message: 'Scaling is performed because triggers are active',
            }
          : {
              type: 'Active',
              status: false,
              reason: 'ScalerNotActive',
              message: 'Scaling is not performed because triggers are not active',
            },
      fallback(),
    ]),
  });
  if (wait > 0) return { requeueAfter: wait };
  // KEDA polls its triggers every pollingInterval (default 30 s)
  return opts.kedaPrometheus ? { requeueAfter: Math.max(1, spec.pollingInterval ?? 30) * 1000 } : undefined;
}

/** one poll of the triggers and KEDA's (or its HPA's) scaling of the target; the patch goes through /scale */
async function scaleOnTriggers(
  ctx: ReconcileContext,
  so: WithStatus,
  spec: ScaledObjectScaling & { triggers?: Trigger[] },
  target: Deployment,
  opts: SimulatorOptions,
  recommendations: ReadonlyArray<{ at: number; replicas: number }>,
  lastActive: string | undefined,
): Promise<{ result: ScaleResult; readings: TriggerReading[] }> {
  const readings = await readTriggers(spec.triggers ?? [], opts.kedaPrometheus!, ctx.signal);
  const current = target.spec?.replicas ?? 1;
  const lastActiveMs = lastActive ? Date.parse(lastActive) : Number.NaN;
  const createdMs = Date.parse(so.metadata.creationTimestamp ?? '');
  const result = kedaScale({
    readings,
    spec,
    current,
    nowMs: Date.now(),
    ...(Number.isFinite(lastActiveMs) ? { lastActiveMs } : {}),
    ...(Number.isFinite(createdMs) ? { createdMs } : {}),
    recommendations,
  });
  if (result.replicas !== current) {
    await ctx.client.patch(
      SimDeployments,
      target.metadata.name ?? '',
      target.metadata.namespace,
      { spec: { replicas: result.replicas } },
      'merge',
      { subresource: 'scale' },
    );
    const reason =
      result.by === 'hpa'
        ? 'SuccessfulRescale'
        : result.replicas === 0
          ? 'KEDAScaleTargetDeactivated'
          : 'KEDAScaleTargetActivated';
    ctx.recorder.event(so, 'Normal', reason, `${current} → ${result.replicas}: ${result.message}`, 'Scale');
  }
  return { result, readings };
}

/** the HPA's currentMetrics for the triggers just read (AverageValue per replica, as the HPA shows it) */
function hpaMetrics(so: string, triggers: Trigger[], readings: TriggerReading[], current: number): Json[] {
  const prometheus = triggers.map((t, i) => ({ t, i })).filter(({ t }) => t.type === 'prometheus' && t.metadata?.query);
  return prometheus.flatMap(({ t, i }, k) => {
    const value = readings[k]?.value;
    if (value === undefined) return [];
    const metric = hpaMetric(so, t, i) as { external: { metric: unknown } };
    return [
      {
        type: 'External',
        external: {
          metric: metric.external.metric,
          current: { averageValue: String(Math.round((value / Math.max(1, current)) * 1000) / 1000) },
        },
      },
    ];
  });
}

function fallback(): ConditionInput {
  return {
    type: 'Fallback',
    status: false,
    reason: 'NoFallbackFound',
    message: 'No fallbacks are active on this scaled object',
  };
}
