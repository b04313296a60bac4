// Creates the VariantAutoscaling of every ModelDeployment and AIMService annotated llm-d.ai/managed: "true"
// (docs/autoscaling.md, "Asking for autoscaling"), owned by it, and removes it when the annotation goes.
// Runs on the reconcile engine; it writes no status on the parent (the parent's own controllers own that),
// and reports problems as Warning events on the parent.

import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { type KindRef, kindRef } from '@modelplane/runtime/meta';
import { AIM_API_VERSION } from '../../../apis/aim/index.ts';
import { ModelDeployments } from '../../../apis/kubeairunway/index.ts';
import {
  type DomainReconciler,
  fetch,
  fetchList,
  Pipeline,
  PlanResult,
  pipelineReconciler,
} from '../../../engine/index.ts';
import { AutoscaledDeployments, VariantAutoscalings } from '../kinds.ts';
import { type Parent, parentLabel, planVariantAutoscaling, type ServingDeployment, wantsAutoscaling } from './plan.ts';

export const DISCOVERY_CONTROLLER = 'variantautoscaling-discovery';

const AIMServiceParents = kindRef<Parent>(AIM_API_VERSION, 'AIMService');
const ModelDeploymentParents = ModelDeployments as unknown as KindRef<Parent>;

interface Observed {
  deployments: readonly ServingDeployment[];
  /** our VariantAutoscaling, if there is one owned by this parent */
  owned?: { name: string; namespace: string };
}

const reconciler: DomainReconciler<Parent, Observed> = {
  async fetchRemoteState({ object, reader }) {
    const ns = object.metadata.namespace ?? '';
    const [list, va] = await Promise.all([
      fetchList(reader, AutoscaledDeployments, { namespace: ns }),
      fetch(reader, VariantAutoscalings, object.metadata.name ?? '', ns),
    ]);
    const ownedByUs =
      va.ok() && va.value.metadata.ownerReferences?.some((r) => r.controller && r.uid === object.metadata.uid);
    return {
      deployments: list.ok() ? (list.value as ServingDeployment[]) : [],
      ...(ownedByUs ? { owned: { name: object.metadata.name ?? '', namespace: ns } } : {}),
    };
  },
  planResources({ object }, obs) {
    const plan = new PlanResult();
    const outcome = planVariantAutoscaling(object, obs.deployments);
    if ('va' in outcome) plan.apply(outcome.va);
    else if ('off' in outcome && obs.owned)
      plan.delete({ apiVersion: VariantAutoscalings.apiVersion, kind: VariantAutoscalings.kind, metadata: obs.owned });
    // an invalid annotation changes nothing (the existing VariantAutoscaling stays); the controller events it
    return plan;
  },
  // the parent's status belongs to its own controllers
  setStatus() {},
};

/** registers one discovery controller per parent kind the cluster serves (a missing CRD is skipped, logged) */
export async function registerDiscoveryControllers(mgr: Manager, log: Logger): Promise<void> {
  for (const [kind, name] of [
    [ModelDeploymentParents, 'modeldeployment'],
    [AIMServiceParents, 'aimservice'],
  ] as const) {
    try {
      await mgr.client.list(kind, { limit: 1 });
    } catch (err) {
      log.info(`saturation autoscaling for ${kind.kind}s is off: the kind is not served here`, {
        error: (err as Error).message,
      });
      continue;
    }
    const parents = await mgr.cache.informer(kind);
    const run = pipelineReconciler(
      kind,
      new Pipeline({ name: `${DISCOVERY_CONTROLLER}-${name}`, reconciler, statusField: null }),
    );
    mgr
      .controller(`${DISCOVERY_CONTROLLER}-${name}`)
      .for(kind)
      .owns(VariantAutoscalings)
      .watches(AutoscaledDeployments, (d) => {
        const labels = (d as ServingDeployment).spec?.template?.metadata?.labels ?? {};
        return parents.store
          .list()
          .filter(
            (p) => p.metadata.namespace === d.metadata.namespace && labels[parentLabel(p)[0]] === parentLabel(p)[1],
          )
          .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
      })
      .withOptions({ fieldManager: DISCOVERY_CONTROLLER })
      .complete(async (req, ctx) => {
        const result = await run(req, ctx);
        const parent = await ctx.cache.get(kind, req.name, req.namespace);
        if (parent && wantsAutoscaling(parent)) {
          const outcome = planVariantAutoscaling(
            parent,
            (await ctx.cache.list(AutoscaledDeployments, { namespace: req.namespace ?? '' })) as ServingDeployment[],
          );
          if ('invalid' in outcome)
            ctx.recorder.event(
              parent,
              'Warning',
              'InvalidAutoscalingAnnotation',
              `${outcome.invalid}; the VariantAutoscaling is left as it was`,
              'Validate',
            );
        }
        return result;
      });
  }
}
