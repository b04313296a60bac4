// The VariantAutoscaling controller: the only writer of a VA's status, events and wva_* metrics. It runs on
// the reconcile engine with a fetch step that reads the target from the informer cache and the engine's
// latest decision from the decision store (docs/autoscaling.md, "The loop").

import {
  type Controller,
  ignoreOwnStatusWrites,
  type ReconcileContext,
  type Request,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { ACCELERATOR_LABEL } from '../../../apis/llmd/index.ts';
import { type DomainReconciler, fetch, Pipeline, PlanResult, pipelineReconciler } from '../../../engine/index.ts';
import type { DecisionStore, VariantDecision } from '../decisions.ts';
import { AutoscaledDeployments, type VariantAutoscaling, VariantAutoscalings } from '../kinds.ts';
import type { AutoscalerMetrics } from '../metrics.ts';
import { setVariantStatus, type VAStatus, type VariantObservation } from './status.ts';

export const VA_CONTROLLER = 'variantautoscaling';
const TARGET_INDEX = 'scaleTargetRef';

export interface VariantControllerDeps {
  decisions: DecisionStore;
  metrics: AutoscalerMetrics;
  metricsSource: string;
}

export function variantReconciler(
  deps: VariantControllerDeps,
): DomainReconciler<VariantAutoscaling, VariantObservation, VariantObservation, unknown, VAStatus> {
  return {
    async fetchRemoteState({ object, reader }) {
      const ref = object.spec.scaleTargetRef;
      const ns = object.metadata.namespace!;
      const decision = deps.decisions.latest(ns, object.metadata.name ?? '');
      const supported = ref.kind === 'Deployment' && (ref.apiVersion ?? 'apps/v1') === 'apps/v1';
      const target = supported
        ? await fetch(reader, AutoscaledDeployments, ref.name, ns)
        : {
            unsupported: `spec.scaleTargetRef.kind ${ref.apiVersion ?? ''} ${ref.kind} is not supported; use an apps/v1 Deployment`,
          };
      return { target, metricsSource: deps.metricsSource, ...(decision ? { decision } : {}) };
    },
    planResources: () => new PlanResult(),
    setStatus: (status, cm, obs, { object }) => setVariantStatus(object, obs, status, cm),
  };
}

export async function registerVariantAutoscalingController(
  mgr: Manager,
  deps: VariantControllerDeps,
): Promise<Controller> {
  await mgr.cache.indexField(VariantAutoscalings, TARGET_INDEX, (o) => {
    const ref = (o as VariantAutoscaling).spec?.scaleTargetRef;
    return ref ? [`${o.metadata.namespace}/${ref.name}`] : [];
  });
  const vas = await mgr.cache.informer(VariantAutoscalings);
  const pipeline = new Pipeline({
    name: VA_CONTROLLER,
    reconciler: variantReconciler(deps),
    statusField: null,
    observedGeneration: false,
  });
  const runPipeline = pipelineReconciler(VariantAutoscalings, pipeline);
  const counted = new Map<string, number>();
  return mgr
    .controller(VA_CONTROLLER)
    .for(VariantAutoscalings, { predicates: [ignoreOwnStatusWrites(VA_CONTROLLER)] })
    .watches(AutoscaledDeployments, (d) =>
      vas.store
        .byIndex(TARGET_INDEX, `${d.metadata.namespace}/${d.metadata.name}`)
        .map((va) => `${va.metadata.namespace}/${va.metadata.name}`),
    )
    .withOptions({ levelBased: true })
    .complete(async (req: Request, ctx: ReconcileContext) => {
      const va = await ctx.cache.get(VariantAutoscalings, req.name, req.namespace);
      if (!va) {
        deps.decisions.forget(req.namespace ?? '', req.name);
        deps.metrics.forget(req.namespace ?? '', req.name);
        counted.delete(`${req.namespace}/${req.name}`);
        return;
      }
      const result = await runPipeline(req, ctx);
      const decision = deps.decisions.latest(req.namespace ?? '', req.name);
      if (decision) reportDecision(va, decision, deps, ctx, counted);
      return result;
    });
}

/** metrics every time, and one event + counter increment per cycle whose decision changes the replicas */
function reportDecision(
  va: VariantAutoscaling,
  d: VariantDecision,
  deps: VariantControllerDeps,
  ctx: ReconcileContext,
  counted: Map<string, number>,
): void {
  const accelerator = va.metadata.labels?.[ACCELERATOR_LABEL];
  if (!accelerator) return;
  const v = { name: va.metadata.name ?? '', namespace: va.metadata.namespace!, accelerator };
  deps.metrics.set(v, d.target, d.current);
  const key = `${v.namespace}/${v.name}`;
  if ((counted.get(key) ?? 0) >= d.cycle) return;
  counted.set(key, d.cycle);
  if (d.target === d.current || d.outcome !== 'optimized') return;
  const direction = d.target > d.current ? 'up' : 'down';
  deps.metrics.countScaling(v, direction, d.action);
  const reason = d.action === 'scale-to-zero' ? 'ScaledToZero' : direction === 'up' ? 'ScaleUp' : 'ScaleDown';
  ctx.recorder.event(va, 'Normal', reason, `desired replicas ${d.current} → ${d.target}: ${d.reason}`, 'Optimize');
}
