// The VariantAutoscaling controller: the only writer of a VA's status, events and wva_* metrics. It runs on
// the reconcile engine with a fetch step that reads the target from the informer cache and the engine's
// latest decision from the decision store (docs/autoscaling.md, "The loop"). With CONTROLLER_INSTANCE set it
// handles only the VAs labelled for that instance (and without it only unlabelled ones), so two installs
// never write each other's conditions.

import {
  type Controller,
  ignoreOwnStatusWrites,
  type ReconcileContext,
  type Request,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { deepEqual } from '@modelplane/runtime/meta';
import { ACCELERATOR_LABEL, CONTROLLER_INSTANCE_LABEL } from '../../../apis/llmd/index.ts';
import { type DomainReconciler, fetch, Pipeline, PlanResult, pipelineReconciler } from '../../../engine/index.ts';
import type { DecisionStore, VariantDecision } from '../decisions.ts';
import { isDeploymentRef } from '../inputs.ts';
import { AutoscaledDeployments, type VariantAutoscaling, VariantAutoscalings } from '../kinds.ts';
import type { AutoscalerMetrics } from '../metrics.ts';
import { duplicateTargets } from '../saturation/evidence.ts';
import { setVariantStatus, type VAStatus, type VariantObservation } from './status.ts';

export const VA_CONTROLLER = 'variantautoscaling';
const TARGET_INDEX = 'scaleTargetRef';

export interface VariantControllerDeps {
  decisions: DecisionStore;
  metrics: AutoscalerMetrics;
  metricsSource: string;
  /** CONTROLLER_INSTANCE */
  controllerInstance?: string;
}

/** is this VA handled by this autoscaler instance? */
export const ownedByInstance = (va: VariantAutoscaling, instance: string | undefined) =>
  va.metadata.labels?.[CONTROLLER_INSTANCE_LABEL] === instance;

export function variantReconciler(
  deps: VariantControllerDeps,
  sameTarget: (va: VariantAutoscaling) => VariantAutoscaling[],
): DomainReconciler<VariantAutoscaling, VariantObservation, VariantObservation, unknown, VAStatus> {
  return {
    async fetchRemoteState({ object, reader }) {
      const ref = object.spec.scaleTargetRef;
      const ns = object.metadata.namespace!;
      const decision = deps.decisions.latest(ns, object.metadata.name ?? '');
      const target = isDeploymentRef(object)
        ? await fetch(reader, AutoscaledDeployments, ref.name, ns)
        : {
            unsupported: `spec.scaleTargetRef ${ref.apiVersion ?? ''} ${ref.kind} ${ref.name} is not supported; point it at an apps/v1 Deployment`,
          };
      const claims = sameTarget(object).map((va) => ({
        key: `${va.metadata.namespace}/${va.metadata.name}`,
        namespace: ns,
        targetKind: va.spec.scaleTargetRef.kind,
        targetName: va.spec.scaleTargetRef.name,
        ...(va.metadata.creationTimestamp ? { creationTimestamp: va.metadata.creationTimestamp } : {}),
      }));
      const duplicateOf = duplicateTargets(claims).get(`${ns}/${object.metadata.name}`);
      return {
        target,
        metricsSource: deps.metricsSource,
        ...(decision ? { decision } : {}),
        ...(duplicateOf ? { duplicateOf } : {}),
      };
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
  const mine = (va: VariantAutoscaling) => ownedByInstance(va, deps.controllerInstance);
  const byTarget = (ns: string | undefined, name: string) =>
    vas.store.byIndex(TARGET_INDEX, `${ns}/${name}`).filter((va) => mine(va) && !va.metadata.deletionTimestamp);
  const pipeline = new Pipeline({
    name: VA_CONTROLLER,
    reconciler: variantReconciler(deps, (va) => byTarget(va.metadata.namespace, va.spec.scaleTargetRef.name)),
    statusField: null,
    observedGeneration: false,
  });
  const runPipeline = pipelineReconciler(VariantAutoscalings, pipeline);
  const published = new Map<string, number>();
  const keyOf = (va: VariantAutoscaling) => `${va.metadata.namespace}/${va.metadata.name}`;
  const claimOf = (va: VariantAutoscaling) => ({
    kind: va.spec.scaleTargetRef.kind,
    name: va.spec.scaleTargetRef.name,
    claims: mine(va) && !va.metadata.deletionTimestamp,
  });
  return (
    mgr
      .controller(VA_CONTROLLER)
      // a VA labelled for another instance is that instance's: never reconciled here (an event passes when
      // either side of it is ours, so a VA relabelled away is seen once more and its series dropped)
      .for(VariantAutoscalings, {
        predicates: [
          ignoreOwnStatusWrites(VA_CONTROLLER),
          (ev) => mine(ev.obj) || (ev.type === 'update' && mine(ev.old)),
        ],
      })
      // a Deployment's changes, and a VA claiming or releasing a target, concern every VA of that target
      .watches(AutoscaledDeployments, (d) => byTarget(d.metadata.namespace, d.metadata.name ?? '').map(keyOf))
      .watches(VariantAutoscalings, (va) => byTarget(va.metadata.namespace, va.spec.scaleTargetRef.name).map(keyOf), {
        // what the other VAs of a target read of this one: whether it claims (ours, not deleting) and what
        predicates: [(ev) => ev.type !== 'update' || !deepEqual(claimOf(ev.old), claimOf(ev.obj))],
      })
      .withOptions({ levelBased: true })
      .complete(async (req: Request, ctx: ReconcileContext) => {
        const va = await ctx.cache.get(VariantAutoscalings, req.name, req.namespace);
        if (!va || !mine(va)) {
          deps.decisions.forget(req.namespace ?? '', req.name);
          deps.metrics.forget(req.namespace ?? '', req.name);
          published.delete(`${req.namespace}/${req.name}`);
          return;
        }
        const result = await runPipeline(req, ctx);
        const decision = deps.decisions.latest(req.namespace ?? '', req.name);
        if (decision) reportDecision(va, decision, deps, ctx, published);
        return result;
      })
  );
}

/**
 * The wva_* gauges on every reconcile; an event, a counter increment and a log line only when the decision
 * changes (the previous one is the last published, else the status's, else the current replicas), never on
 * every cycle that repeats it.
 */
function reportDecision(
  va: VariantAutoscaling,
  d: VariantDecision,
  deps: VariantControllerDeps,
  ctx: ReconcileContext,
  published: Map<string, number>,
): void {
  const accelerator = va.metadata.labels?.[ACCELERATOR_LABEL];
  const key = `${va.metadata.namespace}/${va.metadata.name}`;
  if (!accelerator || d.outcome === 'skipped') return;
  const v = { name: va.metadata.name ?? '', namespace: va.metadata.namespace!, accelerator };
  if (d.outcome === 'withheld') {
    const reason = d.withheld?.reason;
    // without a target there is nothing to scale: the series go; with replicas lacking metrics the last
    // published value stays, so the HPA or KEDA keeps it
    if (reason === 'TargetNotFound' || reason === 'DuplicateTarget' || reason === 'Excluded') {
      deps.metrics.forget(v.namespace, v.name);
      published.delete(key);
    } else {
      // the engine keeps the last decision (its own or the scale-from-zero loop's) as the withheld target, or
      // the replicas of a model woken since a decision of 0; a variant never decided exports nothing
      const last = published.get(key) ?? va.status?.desiredOptimizedAlloc?.numReplicas;
      if (last !== undefined) {
        deps.metrics.set(v, d.target, d.current);
        published.set(key, d.target);
        // woken by KEDA since a decision of 0: the decision changed, so it is said and counted once
        if (d.action === 'scale-from-zero' && last === 0 && d.target > 0) {
          deps.metrics.countScaling(v, 'up', d.action);
          const message = `desired replicas 0 → ${d.target} (current ${d.current}): ${d.reason}`;
          ctx.recorder.event(va, 'Normal', 'ScaledFromZero', message, 'Optimize');
        }
      }
    }
    return;
  }
  deps.metrics.set(v, d.target, d.current);
  const before = published.get(key) ?? va.status?.desiredOptimizedAlloc?.numReplicas ?? d.current;
  published.set(key, d.target);
  if (d.target === before) return;
  const direction = d.target > before ? 'up' : 'down';
  deps.metrics.countScaling(v, direction, d.action);
  // the scale-from-zero loop has already said it with its own ScaledFromZero event and log line
  if (d.action === 'scale-from-zero') return;
  const reason = d.action === 'scale-to-zero' ? 'ScaledToZero' : direction === 'up' ? 'ScaleUp' : 'ScaleDown';
  const message = `desired replicas ${before} → ${d.target} (current ${d.current}): ${d.reason}`;
  ctx.recorder.event(va, 'Normal', reason, message, 'Optimize');
  ctx.log.info('scaling decision changed', {
    variantAutoscaling: key,
    from: before,
    to: d.target,
    cycle: d.cycle,
    reason: d.reason,
  });
}
