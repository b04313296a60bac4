// The simulated KEDA operator. A ScaledObject gets the HorizontalPodAutoscaler KEDA creates for it,
// `keda-hpa-<name>` (one metric per trigger), and Ready/Active/Fallback conditions. No metrics exist in
// the simulated cluster, so triggers never activate and nothing is scaled: the HPA reports the target's
// current replicas within [min, max], as an HPA at rest does (its status is written here because the
// simulated cluster has no HPA controller).

import { ReverseIndex } from '@modelplane/apimachinery';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { controllerRef } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import { type Json, ScaledObjects, SimDeployments, SimHPAs, type WithStatus } from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { applyChild, applyStatus } from './workload.ts';

export const KEDA_CONTROLLER = 'sim-keda';

interface Trigger {
  type: string;
  name?: string;
  metricType?: string;
  metadata?: Record<string, string>;
}

export function registerKedaSimulator(mgr: Manager, opts: SimulatorOptions): void {
  const targets = new ReverseIndex();
  mgr
    .controller(KEDA_CONTROLLER)
    .for(ScaledObjects, { predicates: [ignoreOwnStatusWrites(KEDA_CONTROLLER)] })
    .owns(SimHPAs)
    .watches(SimDeployments, (d) => targets.holdersOf(`${d.metadata.namespace}/${d.metadata.name}`))
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileScaledObject(req, ctx, opts, targets));
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
) {
  const key = `${req.namespace}/${req.name}`;
  const so = await ctx.cache.get(ScaledObjects, req.name, req.namespace);
  if (!so) {
    targets.delete(key);
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (so.metadata.deletionTimestamp) return;
  const spec = (so.spec ?? {}) as {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicaCount?: number;
    maxReplicaCount?: number;
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
  const desired = Math.min(max, Math.max(min, target.spec?.replicas ?? min));
  if (wait === 0) {
    await applyStatus(ctx, hpa, {
      currentReplicas: current,
      desiredReplicas: desired,
      currentMetrics: [],
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
  await applyStatus(ctx, so, {
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
        : {
            type: 'Active',
            status: false,
            reason: 'ScalerNotActive',
            message: 'Scaling is not performed because triggers are not active',
          },
      fallback(),
    ]),
  });
  return wait > 0 ? { requeueAfter: wait } : undefined;
}

function fallback(): ConditionInput {
  return {
    type: 'Fallback',
    status: false,
    reason: 'NoFallbackFound',
    message: 'No fallbacks are active on this scaled object',
  };
}
