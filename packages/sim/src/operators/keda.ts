// The simulated KEDA operator. A ScaledObject gets the HorizontalPodAutoscaler KEDA creates for it,
// `keda-hpa-<name>` (one metric per trigger), and Ready/Active/Fallback conditions. Given a Prometheus
// (`modelplane dev` passes its own), it polls the prometheus triggers every pollingInterval and scales the
// target as KEDA and its HPA would (keda-scaling.ts), to and from 0 included. Without one, triggers never
// activate and nothing is scaled: the HPA reports the target's current replicas within [min, max], as an
// HPA at rest does (its status is written here because the simulated cluster has no HPA controller).

import { ReverseIndex } from '@modelplane/apimachinery';
import type { HorizontalPodAutoscaler } from '@modelplane/apimachinery/builtin';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { controllerRef, type KubeObject } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import { scalingConditions } from './hpa.ts';
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

type KedaSpec = ScaledObjectScaling & {
  scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
  pollingInterval?: number;
  triggers?: Trigger[];
};
type ScaleTargetRef = { apiVersion: string; kind: string; name: string };
type Scaled = Awaited<ReturnType<typeof scaleOnTriggers>> | undefined;

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
  const spec = (so.spec ?? {}) as KedaSpec;
  const ref = {
    apiVersion: spec.scaleTargetRef?.apiVersion ?? 'apps/v1',
    kind: spec.scaleTargetRef?.kind ?? 'Deployment',
    name: spec.scaleTargetRef?.name ?? '',
  };
  // a Deployment event reconciles the ScaledObjects that scale it (it may appear after them)
  targets.set(key, [`${req.namespace}/${ref.name}`]);
  const target =
    ref.kind === 'Deployment' && ref.apiVersion === 'apps/v1'
      ? await ctx.cache.get(SimDeployments, ref.name, req.namespace)
      : undefined;
  if (!target) {
    await writeTargetMissing(ctx, so, ref);
    return;
  }
  const triggers = spec.triggers ?? [];
  const min = Math.max(1, spec.minReplicaCount ?? 0);
  const max = Math.max(min, spec.maxReplicaCount ?? 100);
  const hpa = await applyChild(ctx, SimHPAs, kedaHpa(so, ref, triggers, min, max));
  const wait = opts.clock.remaining(so, 'activation', opts.delays.kedaActivationMs);
  const lastActive = (so.status as { lastActiveTime?: string } | undefined)?.lastActiveTime;
  const scaled =
    wait === 0 && opts.kedaPrometheus
      ? await scaleOnTriggers(ctx, so, spec, target, opts, recommendations.get(key) ?? [], lastActive)
      : undefined;
  // the HPA part's recommendations of the last 10 minutes, for its scale-down stabilization
  if (scaled?.result.recommendation !== undefined)
    recommendations.set(key, [
      ...(recommendations.get(key) ?? []).filter((r) => Date.now() - r.at <= 600_000),
      { at: Date.now(), replicas: scaled.result.recommendation },
    ]);
  if (wait === 0) {
    // no prometheus trigger to read (cpu, the OpenTelemetry scaler…): an HPA at rest, as without a Prometheus
    const desired =
      scaled && scaled.readings.length > 0
        ? scaled.result.replicas
        : Math.min(max, Math.max(min, target.spec?.replicas ?? min));
    const current = target.status?.replicas ?? 0;
    const currentMetrics = scaled ? hpaMetrics(req.name, triggers, scaled.readings, current) : [];
    await writeHpaStatus(ctx, hpa, current, desired, currentMetrics);
  }
  await writeScaledObjectStatus(ctx, so, target, triggers, wait > 0, scaled, lastActive);
  if (wait > 0) return { requeueAfter: wait };
  // KEDA polls its triggers every pollingInterval (default 30 s)
  return opts.kedaPrometheus ? { requeueAfter: Math.max(1, spec.pollingInterval ?? 30) * 1000 } : undefined;
}

function scaledObjectConditions(so: WithStatus, conditions: ConditionInput[]) {
  return buildConditions(so.status?.conditions, conditions, { observedGeneration: so.metadata.generation ?? 1 });
}

/** Ready=False as KEDA words it: the target Deployment is missing, or the kind is one the simulator cannot scale. */
function writeTargetMissing(ctx: ReconcileContext, so: WithStatus, ref: ScaleTargetRef) {
  const ns = so.metadata.namespace ?? '';
  const msg =
    ref.kind === 'Deployment'
      ? `ScaledObject doesn't have correct scaleTargetRef specification: Deployment ${ns}/${ref.name} not found`
      : `scaleTargetRef kind ${ref.kind} is not supported by the simulated KEDA (only apps/v1 Deployments)`;
  return applyStatus(ctx, so, {
    ...(so.status ?? {}),
    conditions: scaledObjectConditions(so, [
      { type: 'Ready', status: false, reason: 'ScaledObjectCheckFailed', message: msg },
      { type: 'Active', status: 'Unknown', reason: 'ScaledObjectCheckFailed', message: msg },
      fallback(),
    ]),
  });
}

/** The `keda-hpa-<name>` HorizontalPodAutoscaler KEDA creates: one metric per trigger, labelled as KEDA labels it. */
function kedaHpa(so: WithStatus, ref: ScaleTargetRef, triggers: Trigger[], min: number, max: number): KubeObject {
  const name = so.metadata.name ?? '';
  const hpaName = `keda-hpa-${name}`;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: hpaName,
      namespace: so.metadata.namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'keda-operator',
        'app.kubernetes.io/name': hpaName,
        'app.kubernetes.io/part-of': name,
        'scaledobject.keda.sh/name': name,
      },
      ownerReferences: [controllerRef(so)],
    },
    spec: {
      scaleTargetRef: ref,
      minReplicas: min,
      maxReplicas: max,
      metrics: triggers.map((t, i) => hpaMetric(name, t, i)),
    },
  };
}

/** the HPA's status (no HPA controller in the simulated cluster writes it); HPA conditions carry no generation */
function writeHpaStatus(
  ctx: ReconcileContext,
  hpa: HorizontalPodAutoscaler,
  current: number,
  desired: number,
  currentMetrics: Json[],
) {
  const active = 'the HPA was able to successfully calculate a replica count';
  return applyStatus(ctx, hpa, {
    currentReplicas: current,
    desiredReplicas: desired,
    currentMetrics,
    conditions: buildConditions(
      (hpa.status as WithStatus['status'])?.conditions,
      scalingConditions(active, false, 'DesiredWithinRange'),
    ).map(({ observedGeneration: _o, ...c }) => c),
  });
}

/**
 * The ScaledObject's status: Ready, Active (Unknown until the first poll, then whether a trigger is active, and
 * lastActiveTime with it), the HPA and the metrics KEDA serves for it, and the replicas it found the target at.
 */
function writeScaledObjectStatus(
  ctx: ReconcileContext,
  so: WithStatus,
  target: Deployment,
  triggers: Trigger[],
  pending: boolean,
  scaled: Scaled,
  lastActive: string | undefined,
) {
  const previousOriginal = (so.status as { originalReplicaCount?: number } | undefined)?.originalReplicaCount;
  const activeNow = scaled?.result.active === true;
  return applyStatus(ctx, so, {
    ...(activeNow ? { lastActiveTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}),
    ...(!activeNow && lastActive ? { lastActiveTime: lastActive } : {}),
    scaleTargetKind: 'apps/v1.Deployment',
    scaleTargetGVKR: { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments' },
    originalReplicaCount: previousOriginal ?? target.spec?.replicas ?? 1,
    hpaName: `keda-hpa-${so.metadata.name ?? ''}`,
    externalMetricNames: triggers
      .map((t, i) => (t.type === 'cpu' || t.type === 'memory' ? '' : externalMetricName(t, i)))
      .filter(Boolean),
    conditions: scaledObjectConditions(so, [
      {
        type: 'Ready',
        status: true,
        reason: 'ScaledObjectReady',
        message: 'ScaledObject is defined correctly and is ready for scaling',
      },
      pending
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
