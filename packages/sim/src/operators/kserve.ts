// The simulated KServe controller (RawDeployment mode). An InferenceService gets a `<name>-predictor`
// Deployment and Service; its status follows the predictor pods: PredictorReady once the Deployment's
// pods are Ready (or False with the pods' failure reason), IngressReady once the route is "configured",
// Ready when both are, plus url, address, components.predictor and modelStatus the way KServe reports them.
// With `serving.kserve.io/autoscalerClass: keda` it also creates the predictor's KEDA ScaledObject.

import { isNotFound } from '@modelplane/runtime/client';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import {
  InferenceServices,
  type Json,
  ScaledObjects,
  SimDeployments,
  SimPods,
  SimServices,
  type WithStatus,
} from './kinds.ts';
import { ISVC_LABEL, type PlanError, planPredictor, planScaledObject } from './kserve-predictor.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { deploymentHealth, problemText, progressText, type WorkloadHealth } from './pod-health.ts';
import { applyChild, applyStatus, observeDeployment } from './workload.ts';

export const KSERVE_CONTROLLER = 'sim-kserve';

export function registerKServeSimulator(mgr: Manager, opts: SimulatorOptions): void {
  mgr
    .controller(KSERVE_CONTROLLER)
    .for(InferenceServices, { predicates: [ignoreOwnStatusWrites(KSERVE_CONTROLLER)] })
    .owns(SimDeployments)
    .owns(SimServices)
    .owns(ScaledObjects)
    .watches(SimPods, (pod) => {
      const isvc = pod.metadata.labels?.[ISVC_LABEL];
      return isvc && pod.metadata.labels?.component === 'predictor'
        ? [{ namespace: pod.metadata.namespace ?? '', name: isvc }]
        : [];
    })
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileInferenceService(req, ctx, opts));
}

async function reconcileInferenceService(req: Request, ctx: ReconcileContext, opts: SimulatorOptions) {
  const isvc = await ctx.cache.get(InferenceServices, req.name, req.namespace);
  if (!isvc) {
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (isvc.metadata.deletionTimestamp) return;
  const plan = planPredictor(isvc);
  if ('error' in plan) {
    await applyStatus(ctx, isvc, invalidSpecStatus(isvc, plan.error));
    return;
  }
  await applyChild(ctx, SimDeployments, plan.deployment);
  const service = await applyChild(ctx, SimServices, plan.service);
  await reconcileScaledObject(ctx, isvc, planScaledObject(isvc, plan), plan.deployment.metadata.name ?? '');
  const { deployment, pods } = await observeDeployment(
    ctx,
    req.namespace,
    plan.deployment.metadata.name ?? '',
    plan.selector,
  );
  const health = deploymentHealth(deployment, pods, plan.deployment.spec?.replicas);
  const ingressWait = opts.clock.remaining(isvc, 'ingress', opts.delays.kserveIngressMs);
  await applyStatus(
    ctx,
    isvc,
    statusFor(isvc, health, ingressWait === 0, service !== undefined, plan.runtime, opts.ingressDomain),
  );
  return ingressWait > 0 ? { requeueAfter: ingressWait } : undefined;
}

/** creates the KEDA ScaledObject when the autoscaler class is keda, and removes ours when it no longer is */
async function reconcileScaledObject(
  ctx: ReconcileContext,
  isvc: WithStatus,
  desired: KubeObject | undefined,
  name: string,
): Promise<void> {
  if (desired) {
    await applyChild(ctx, ScaledObjects, desired);
    return;
  }
  const live = await ctx.cache.get(ScaledObjects, name, isvc.metadata.namespace);
  if (live?.metadata.ownerReferences?.some((o) => o.uid === isvc.metadata.uid)) {
    await ctx.client.delete(ScaledObjects, name, isvc.metadata.namespace).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
}

function urls(isvc: WithStatus, ingressDomain: string) {
  const { name, namespace } = isvc.metadata;
  return {
    external: `http://${name}-${namespace}.${ingressDomain}`,
    predictorExternal: `http://${name}-predictor-${namespace}.${ingressDomain}`,
    internal: `http://${name}-predictor.${namespace}.svc.cluster.local`,
  };
}

function statusFor(
  isvc: WithStatus,
  h: WorkloadHealth,
  ingressReady: boolean,
  serviceExists: boolean,
  runtime: string | undefined,
  ingressDomain: string,
): Json {
  const predictor: ConditionInput = h.allReady
    ? { type: 'PredictorReady', status: true, reason: 'PredictorReady' }
    : h.problem
      ? { type: 'PredictorReady', status: false, reason: h.problem.reason, message: problemText(h.problem) }
      : {
          type: 'PredictorReady',
          status: false,
          reason: 'MinimumReplicasUnavailable',
          message: `Deployment does not have minimum availability: ${progressText(h, 'predictor')}`,
        };
  const ingress: ConditionInput = ingressReady
    ? { type: 'IngressReady', status: true, reason: 'IngressReady' }
    : {
        type: 'IngressReady',
        status: false,
        reason: 'IngressNotConfigured',
        message: 'waiting for the ingress to be configured',
      };
  const notReady = [predictor, ingress].find((c) => c.status !== true);
  const ready: ConditionInput = notReady
    ? {
        type: 'Ready',
        status: false,
        reason: notReady.reason,
        ...(notReady.message ? { message: notReady.message } : {}),
      }
    : { type: 'Ready', status: true, reason: 'Ready' };
  const u = urls(isvc, ingressDomain);
  const address = { url: u.internal };
  const fatal = h.problem?.fatal === true && !h.allReady;
  return {
    observedGeneration: isvc.metadata.generation ?? 1,
    deploymentMode: 'RawDeployment',
    conditions: buildConditions(isvc.status?.conditions, [ingress, predictor, ready], { knative: true }),
    ...(ingressReady ? { url: u.external } : {}),
    ...(serviceExists ? { address } : {}),
    components: {
      predictor: { ...(ingressReady ? { url: u.predictorExternal } : {}), ...(serviceExists ? { address } : {}) },
    },
    ...(runtime ? { servingRuntimeName: runtime, clusterServingRuntimeName: runtime } : {}),
    modelStatus: {
      transitionStatus: h.allReady ? 'UpToDate' : fatal ? 'BlockedByFailedLoad' : 'InProgress',
      states: {
        activeModelState: h.allReady ? 'Loaded' : fatal ? 'FailedToLoad' : 'Pending',
        targetModelState: 'Loaded',
      },
      copies: { totalCopies: h.ready, ...(fatal ? { failedCopies: h.desired - h.ready } : {}) },
      ...(fatal && h.problem
        ? {
            lastFailureInfo: {
              reason: 'ModelLoadFailed',
              location: h.problem.pod,
              message: problemText(h.problem),
              ...(h.problem.exitCode !== undefined ? { exitCode: h.problem.exitCode } : {}),
            },
          }
        : {}),
    },
  };
}

function invalidSpecStatus(isvc: WithStatus, err: PlanError): Json {
  const failed = (type: string): ConditionInput => ({ type, status: false, reason: err.reason, message: err.message });
  return {
    observedGeneration: isvc.metadata.generation ?? 1,
    deploymentMode: 'RawDeployment',
    conditions: buildConditions(
      isvc.status?.conditions,
      [{ type: 'IngressReady', status: 'Unknown', reason: err.reason }, failed('PredictorReady'), failed('Ready')],
      { knative: true },
    ),
    modelStatus: {
      transitionStatus: 'InvalidSpec',
      states: { activeModelState: '', targetModelState: 'FailedToLoad' },
      lastFailureInfo: { reason: err.reason, message: err.message },
    },
  };
}
