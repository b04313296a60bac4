// The simulated KAITO workspace controller. A Workspace first gets its GPU nodes (ResourceReady: after a
// provisioning delay, the nodes its resource.labelSelector matches), then its inference Deployment and
// Service (InferenceReady once the pods are Ready) or its tuning Job (JobStarted), and finally
// WorkspaceSucceeded. Failures end as WorkspaceSucceeded=False with the pods' reason in the message;
// while pods are merely pending, InferenceReady=False carries the message and WorkspaceSucceeded stays
// Unknown, which is what KubeAIRunway's status mapping reads as Deploying.

import {
  ignoreOwnStatusWrites,
  type ReconcileContext,
  type Request,
  type Result,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { type Selector, selectorFromObject } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import {
  planInference,
  tuningJob,
  WORKSPACE_LABEL,
  type WorkspaceInference,
  type WorkspaceResource,
} from './kaito-workload.ts';
import {
  type Json,
  SimDeployments,
  SimJobs,
  SimNodes,
  SimPods,
  SimServices,
  type WithStatus,
  Workspaces,
} from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { deploymentHealth, firstProblem, problemText, progressText } from './pod-health.ts';
import { applyChild, applyStatus, observeDeployment, selectorString } from './workload.ts';

export const KAITO_CONTROLLER = 'sim-kaito';

type State = 'Pending' | 'NotReady' | 'Ready' | 'Failed' | 'Running' | 'Succeeded';

export function registerKaitoSimulator(mgr: Manager, opts: SimulatorOptions): void {
  mgr
    .controller(KAITO_CONTROLLER)
    .for(Workspaces, { predicates: [ignoreOwnStatusWrites(KAITO_CONTROLLER)] })
    .owns(SimDeployments)
    .owns(SimServices)
    .owns(SimJobs)
    .watches(SimPods, (pod) => {
      const ws = pod.metadata.labels?.[WORKSPACE_LABEL];
      return ws ? [{ namespace: pod.metadata.namespace ?? '', name: ws }] : [];
    })
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileWorkspace(req, ctx, opts));
}

const resourcePending = (message: string): ConditionInput => ({
  type: 'ResourceReady',
  status: false,
  reason: 'workspaceResourceStatusPending',
  message,
});
const succeeded = (status: boolean | 'Unknown', reason: string, message: string): ConditionInput => ({
  type: 'WorkspaceSucceeded',
  status,
  reason,
  message,
});

function write(ctx: ReconcileContext, ws: WithStatus, conditions: ConditionInput[], state: State, extra: Json = {}) {
  const status = {
    ...extra,
    state,
    conditions: buildConditions(ws.status?.conditions, conditions, { observedGeneration: ws.metadata.generation ?? 1 }),
  };
  return applyStatus(ctx, ws, status);
}

async function reconcileWorkspace(req: Request, ctx: ReconcileContext, opts: SimulatorOptions) {
  const ws = await ctx.cache.get(Workspaces, req.name, req.namespace);
  if (!ws) {
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (ws.metadata.deletionTimestamp) return;
  const resource = (ws.resource ?? {}) as WorkspaceResource;
  const inference = ws.inference as WorkspaceInference | undefined;
  const tuning = ws.tuning as Json | undefined;
  if (!inference === !tuning) {
    const msg = 'exactly one of inference and tuning must be specified';
    await write(ctx, ws, [succeeded(false, 'workspaceFailed', msg)], 'Failed');
    return;
  }
  const placed = await placeOnNodes(ctx, ws, resource, opts);
  if ('done' in placed) return placed.done;
  const extra = { workerNodes: placed.workerNodes, targetNodeCount: placed.count };
  if (tuning) return reconcileTuning(ctx, ws, resource, tuning, RESOURCE_READY, extra);
  return reconcileInference(req, ctx, ws, resource, inference!, extra);
}

const RESOURCE_READY: ConditionInput = {
  type: 'ResourceReady',
  status: true,
  reason: 'workspaceResourceStatusSuccess',
  message: 'workspace resource is ready',
};

/**
 * The workspace's resource: its GPU nodes, after the provisioning delay. The simulated cluster has no node
 * auto-provisioning, so the nodes resource.labelSelector matches are all there is; preferredNodes first.
 * Returns the nodes, or `done` with what the reconcile returns once it has written why there are none yet.
 */
async function placeOnNodes(
  ctx: ReconcileContext,
  ws: WithStatus,
  resource: WorkspaceResource,
  opts: SimulatorOptions,
): Promise<{ workerNodes: string[]; count: number } | { done: Result | undefined }> {
  const count = Math.max(1, resource.count ?? 1);
  const wait = opts.clock.remaining(ws, 'resource', opts.delays.kaitoResourceMs);
  if (wait > 0) {
    const msg = `provisioning ${count} node(s)${resource.instanceType ? ` of instance type ${resource.instanceType}` : ''}`;
    await write(ctx, ws, [resourcePending(msg), succeeded('Unknown', 'workspacePending', msg)], 'Pending');
    return { done: { requeueAfter: wait } };
  }
  let selector: Selector;
  try {
    selector = selectorFromObject(resource.labelSelector ?? {});
  } catch (err) {
    const msg = `resource.labelSelector: ${(err as Error).message}`;
    await write(ctx, ws, [succeeded(false, 'workspaceFailed', msg)], 'Failed');
    return { done: undefined };
  }
  const preferred = new Set(resource.preferredNodes ?? []);
  const nodes = (await ctx.cache.list(SimNodes))
    .filter((n) => selector.matches(n.metadata.labels))
    .map((n) => n.metadata.name ?? '')
    .sort((a, b) => Number(preferred.has(b)) - Number(preferred.has(a)) || a.localeCompare(b));
  if (nodes.length === 0) {
    const msg = `no node matches resource.labelSelector {${selectorString(resource.labelSelector?.matchLabels ?? {})}} and node auto-provisioning is not available in the simulated cluster`;
    const resourceFailed = {
      type: 'ResourceReady',
      status: false,
      reason: 'workspaceResourceStatusFailed',
      message: msg,
    };
    await write(ctx, ws, [resourceFailed, succeeded(false, 'workspaceFailed', msg)], 'Failed');
    return { done: undefined };
  }
  return { workerNodes: nodes.slice(0, count), count };
}

/** Inference: the Deployment and Service, then InferenceReady and the workspace's state from the pods' health. */
async function reconcileInference(
  req: Request,
  ctx: ReconcileContext,
  ws: WithStatus,
  resource: WorkspaceResource,
  inference: WorkspaceInference,
  extra: Json,
) {
  const plan = planInference(ws, resource, inference);
  if ('error' in plan) {
    await writeInference(ctx, ws, 'Failed', extra, false, 'workspaceInferenceStatusFailed', plan.error);
    return;
  }
  await applyChild(ctx, SimDeployments, plan.deployment);
  await applyChild(ctx, SimServices, plan.service);
  const { deployment, pods } = await observeDeployment(ctx, req.namespace, req.name, plan.selector);
  const h = deploymentHealth(deployment, pods, plan.deployment.spec?.replicas);
  if (h.allReady) {
    const msg = 'inference has been deployed successfully';
    await writeInference(ctx, ws, 'Ready', extra, true, 'workspaceInferenceStatusSuccess', msg);
  } else if (h.problem?.fatal) {
    await writeInference(ctx, ws, 'Failed', extra, false, 'workspaceInferenceStatusFailed', problemText(h.problem));
  } else {
    const msg = h.problem
      ? problemText(h.problem)
      : `inference deployment ${req.name} is not ready: ${progressText(h, 'inference')}`;
    await writeInference(ctx, ws, 'NotReady', extra, false, 'workspaceInferenceStatusNotReady', msg);
  }
}

/**
 * ResourceReady, InferenceReady as given, and WorkspaceSucceeded following the state: True when Ready, False
 * (with the same message) when Failed, Unknown while the pods come up.
 */
function writeInference(
  ctx: ReconcileContext,
  ws: WithStatus,
  state: 'Ready' | 'Failed' | 'NotReady',
  extra: Json,
  ready: boolean,
  reason: string,
  message: string,
) {
  const workspace =
    state === 'Ready'
      ? succeeded(true, 'workspaceSucceeded', 'workspace succeeds')
      : state === 'Failed'
        ? succeeded(false, 'workspaceFailed', message)
        : succeeded('Unknown', 'workspacePending', 'waiting for inference to be ready');
  const inferenceReady: ConditionInput = { type: 'InferenceReady', status: ready, reason, message };
  return write(ctx, ws, [RESOURCE_READY, inferenceReady, workspace], state, extra);
}

async function reconcileTuning(
  ctx: ReconcileContext,
  ws: WithStatus,
  resource: WorkspaceResource,
  tuning: Json,
  resourceReady: ConditionInput,
  extra: Json,
) {
  const ns = ws.metadata.namespace ?? '';
  const name = ws.metadata.name ?? '';
  const job = await applyChild(ctx, SimJobs, tuningJob(ws, resource, tuning));
  const started: ConditionInput = {
    type: 'JobStarted',
    status: true,
    reason: 'workspaceTuningJobStarted',
    message: `tuning job ${name} started`,
  };
  const st = job.status ?? {};
  const failedCond = st.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if ((st.succeeded ?? 0) > 0) {
    await write(
      ctx,
      ws,
      [resourceReady, started, succeeded(true, 'workspaceSucceeded', 'tuning job completed successfully')],
      'Succeeded',
      extra,
    );
  } else if (failedCond) {
    const pods = await ctx.cache.list(SimPods, {
      namespace: ns,
      labelSelector: selectorString({ [WORKSPACE_LABEL]: name }),
    });
    const p = firstProblem(pods);
    const msg = `tuning job ${name} failed: ${failedCond.message ?? failedCond.reason ?? 'Failed'}${p ? `; ${problemText(p)}` : ''}`;
    await write(ctx, ws, [resourceReady, started, succeeded(false, 'workspaceFailed', msg)], 'Failed', extra);
  } else {
    await write(
      ctx,
      ws,
      [resourceReady, started, succeeded('Unknown', 'workspacePending', 'tuning job is running')],
      'Running',
      extra,
    );
  }
}
