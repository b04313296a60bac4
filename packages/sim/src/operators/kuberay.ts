// The simulated KubeRay RayService controller. A RayService gets a RayCluster `<name>-raycluster-<hash of
// rayClusterConfig>` (the RayCluster simulator runs its pods); once the cluster is provisioned, the Serve
// applications of serveConfigV2 go DEPLOYING → RUNNING after a delay, the cluster becomes the active one,
// and `<name>-head-svc` / `<name>-serve-svc` point at it. A changed rayClusterConfig brings up a pending
// cluster and switches over when it serves (zero-downtime upgrade). Status: serviceStatus
// Pending/Running/Failed (docs/kubeairunway.md's vocabulary), conditions Ready and UpgradeInProgress, the
// application and Serve deployment statuses (DEPLOY_FAILED with the cluster's failure as the message).

import { createHash } from 'node:crypto';
import { INDEX_OWNER } from '@modelplane/runtime/cache';
import { isNotFound } from '@modelplane/runtime/client';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { controllerRef, type KubeObject } from '@modelplane/runtime/meta';
import { parse as parseYaml } from 'yaml';
import { servingAnnotations } from '../inference/index.ts';
import { buildConditions, type ConditionInput, isTrue } from './conditions.ts';
import { type Json, RayClusters, RayServices, SimPods, SimServices, type WithStatus } from './kinds.ts';
import { CLUSTER_LABEL, ORIGIN_CRD_LABEL, ORIGIN_NAME_LABEL, SERVE_LABEL } from './kuberay-cluster.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { applyChild, applyStatus, clone, dnsName, serviceFor, simAnnotations } from './workload.ts';

export const RAYSERVICE_CONTROLLER = 'sim-rayservice';

interface ServeApp {
  name: string;
  deployments: string[];
}

export function registerRayServiceSimulator(mgr: Manager, opts: SimulatorOptions): void {
  mgr
    .controller(RAYSERVICE_CONTROLLER)
    .for(RayServices, { predicates: [ignoreOwnStatusWrites(RAYSERVICE_CONTROLLER)] })
    .owns(RayClusters)
    .owns(SimServices)
    .watches(SimPods, (pod) => {
      const l = pod.metadata.labels ?? {};
      return l[ORIGIN_CRD_LABEL] === 'RayService' && l[ORIGIN_NAME_LABEL]
        ? [{ namespace: pod.metadata.namespace ?? '', name: l[ORIGIN_NAME_LABEL] }]
        : [];
    })
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileRayService(req, ctx, opts));
}

/** a stable JSON encoding (sorted keys), so the same config always hashes the same */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

export function clusterNameFor(rs: WithStatus): string {
  const h = createHash('sha256')
    .update(canonical(rs.spec?.rayClusterConfig ?? {}))
    .digest();
  const suffix = [...h.subarray(0, 5)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
  return `${dnsName(rs.metadata.name ?? '', 46)}-raycluster-${suffix}`;
}

export function serveApps(config: string | undefined): ServeApp[] {
  if (!config?.trim()) return [];
  const doc = parseYaml(config) as {
    applications?: Array<{ name?: string; deployments?: Array<{ name?: string }> }>;
  } | null;
  if (doc === null || typeof doc !== 'object') throw new Error('serveConfigV2 must be a YAML mapping');
  if (doc.applications !== undefined && !Array.isArray(doc.applications))
    throw new Error('serveConfigV2.applications must be a list');
  return (doc.applications ?? []).map((a, i) => {
    const name = a.name ?? (i === 0 ? 'default' : `app${i}`);
    const deployments = (a.deployments ?? []).map((d) => d.name).filter((d): d is string => !!d);
    return { name, deployments: deployments.length > 0 ? deployments : [name] };
  });
}

/** the model Ray Serve LLM's OpenAI app lists: the first llm config's model_loading_config.model_id */
export function serveModel(config: string | undefined): string | undefined {
  const find = (v: unknown): string | undefined => {
    if (Array.isArray(v)) return v.map(find).find(Boolean);
    if (v === null || typeof v !== 'object') return undefined;
    const id = (v as { model_loading_config?: { model_id?: unknown } }).model_loading_config?.model_id;
    return typeof id === 'string' && id ? id : Object.values(v).map(find).find(Boolean);
  };
  try {
    return find(parseYaml(config ?? ''));
  } catch {
    return undefined;
  }
}

/** the RayService's sim annotations, plus (for a Serve LLM app) what its Serve proxies answer on port 8000 */
export function rayClusterAnnotations(rs: WithStatus): { annotations?: Record<string, string> } {
  const model = serveModel(rs.spec?.serveConfigV2 as string | undefined);
  const annotations = { ...(model ? servingAnnotations(model, RAY_SERVE_PORT) : {}), ...simAnnotations(rs) };
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}

const RAY_SERVE_PORT = 8000;

type AppState = 'DEPLOYING' | 'RUNNING' | 'DEPLOY_FAILED' | 'UNHEALTHY';

function appStatuses(apps: ServeApp[], state: AppState, message: string): Json {
  const dep = state === 'RUNNING' ? 'HEALTHY' : state === 'DEPLOYING' ? 'UPDATING' : 'UNHEALTHY';
  return Object.fromEntries(
    apps.map((a) => [
      a.name,
      {
        status: state,
        message,
        serveDeploymentStatuses: Object.fromEntries(a.deployments.map((d) => [d, { status: dep, message }])),
      },
    ]),
  );
}

interface ClusterView {
  name: string;
  status?: Json;
  ready: boolean;
  failure?: string;
}

function viewOf(name: string, rc: WithStatus | undefined): ClusterView {
  const conds = rc?.status?.conditions;
  const ready = isTrue(conds, 'RayClusterProvisioned') && isTrue(conds, 'HeadPodReady');
  const failure =
    rc?.status?.state === 'failed'
      ? String(rc.status.reason ?? 'the Ray cluster failed')
      : conds?.find((c) => c.type === 'RayClusterReplicaFailure' && c.status === 'True')?.message;
  const status = rc?.status ? clone(rc.status) : undefined;
  if (status) delete status.lastUpdateTime;
  return { name, ready, ...(status ? { status } : {}), ...(failure && !ready ? { failure } : {}) };
}

async function reconcileRayService(req: Request, ctx: ReconcileContext, opts: SimulatorOptions) {
  const rs = await ctx.cache.get(RayServices, req.name, req.namespace);
  if (!rs) {
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (rs.metadata.deletionTimestamp) return;
  let apps: ServeApp[];
  try {
    if (!rs.spec?.rayClusterConfig) throw new Error('spec.rayClusterConfig is required');
    apps = serveApps(rs.spec.serveConfigV2 as string | undefined);
  } catch (err) {
    const msg = `invalid RayService spec: ${(err as Error).message}`;
    await writeRayService(ctx, rs, { serviceStatus: 'Failed', numServeEndpoints: 0 }, [
      { type: 'Ready', status: false, reason: 'RayServiceValidationFailed', message: msg },
    ]);
    return;
  }
  const owned = await ctx.cache.list(RayClusters, {
    namespace: req.namespace,
    index: { name: INDEX_OWNER, value: rs.metadata.uid ?? '' },
  });
  const desiredName = clusterNameFor(rs);
  const desired = await applyChild(ctx, RayClusters, desiredCluster(rs, desiredName));
  const pending = await advancePendingCluster(ctx, rs, opts, apps, owned, desired);
  const { activeName } = pending;
  const endpoints = activeName ? await applyServeServices(ctx, rs, activeName) : 0;
  const activeView = activeName
    ? viewOf(
        activeName,
        owned.find((c) => c.metadata.name === activeName) ?? (activeName === desiredName ? desired : undefined),
      )
    : undefined;
  // applications already serving on the active cluster turn UNHEALTHY when its pods fail
  const activeUnhealthy = activeView?.failure;
  const activeApps = activeView
    ? appStatuses(
        apps,
        activeUnhealthy ? 'UNHEALTHY' : 'RUNNING',
        activeUnhealthy ? `The Ray cluster is unhealthy: ${activeUnhealthy}` : '',
      )
    : undefined;
  const failed = (!activeName && pending.state === 'DEPLOY_FAILED') || activeUnhealthy !== undefined;
  const ready = activeName !== undefined && endpoints > 0;
  const conditions = rayServiceConditions({ ready, failed, activeName, desiredName, pending, activeUnhealthy });
  await writeRayService(
    ctx,
    rs,
    {
      serviceStatus: ready ? 'Running' : failed ? 'Failed' : 'Pending',
      numServeEndpoints: endpoints,
      // an empty status block is left out rather than applied as {}: kube-apiserver's server-side apply turns
      // a map whose fields this manager gave up into null, which the schema refuses (docs/real-kubernetes.md)
      ...(activeView
        ? {
            activeServiceStatus: {
              rayClusterName: activeView.name,
              ...(activeView.status ? { rayClusterStatus: activeView.status } : {}),
              ...(activeApps ? { applicationStatuses: activeApps } : {}),
            },
          }
        : {}),
      ...(activeName !== desiredName
        ? {
            pendingServiceStatus: {
              rayClusterName: desiredName,
              ...(pending.view.status ? { rayClusterStatus: pending.view.status } : {}),
              ...(pending.apps ? { applicationStatuses: pending.apps } : {}),
            },
          }
        : {}),
    },
    conditions,
  );
  return pending.wait > 0 ? { requeueAfter: pending.wait } : undefined;
}

function writeRayService(ctx: ReconcileContext, rs: WithStatus, status: Json, conditions: ConditionInput[]) {
  const generation = rs.metadata.generation ?? 1;
  return applyStatus(ctx, rs, {
    ...status,
    observedGeneration: generation,
    conditions: buildConditions(rs.status?.conditions, conditions, { observedGeneration: generation }),
  });
}

/** the RayCluster rayClusterConfig asks for, named after its hash so a changed config is a new cluster */
function desiredCluster(rs: WithStatus, name: string): KubeObject {
  return {
    apiVersion: 'ray.io/v1',
    kind: 'RayCluster',
    metadata: {
      name,
      namespace: rs.metadata.namespace,
      labels: { [ORIGIN_CRD_LABEL]: 'RayService', [ORIGIN_NAME_LABEL]: rs.metadata.name ?? '' },
      ...rayClusterAnnotations(rs),
      ownerReferences: [controllerRef(rs)],
    },
    spec: rs.spec?.rayClusterConfig as Json,
  };
}

interface PendingCluster {
  /** the cluster serving traffic after this step, if any */
  activeName: string | undefined;
  view: ClusterView;
  state: AppState | undefined;
  apps: Json | undefined;
  /** how long until the pending cluster's applications are deployed */
  wait: number;
}

/**
 * The zero-downtime upgrade: while the desired cluster is not the active one, its applications deploy once it
 * is provisioned (after the Serve deploy delay), fail with its failure, and once RUNNING it becomes the active
 * cluster and the RayService's other clusters are deleted.
 */
async function advancePendingCluster(
  ctx: ReconcileContext,
  rs: WithStatus,
  opts: SimulatorOptions,
  apps: ServeApp[],
  owned: WithStatus[],
  desired: WithStatus,
): Promise<PendingCluster> {
  const desiredName = desired.metadata.name ?? '';
  const recordedActive = (rs.status?.activeServiceStatus as { rayClusterName?: string } | undefined)?.rayClusterName;
  const activeName = owned.some((c) => c.metadata.name === recordedActive) ? recordedActive : undefined;
  const view = viewOf(desiredName, desired);
  const result: PendingCluster = { activeName, view, state: undefined, apps: undefined, wait: 0 };
  if (activeName === desiredName) return result;
  if (view.failure) {
    result.state = 'DEPLOY_FAILED';
    result.apps = appStatuses(apps, 'DEPLOY_FAILED', `Deploying the applications failed: ${view.failure}`);
  } else if (view.ready) {
    result.wait = opts.clock.remaining(rs, `serve:${desiredName}`, opts.delays.rayServeDeployMs);
    result.state = result.wait > 0 ? 'DEPLOYING' : 'RUNNING';
    result.apps = appStatuses(apps, result.state, result.wait > 0 ? 'Deploying app' : '');
  }
  if (result.state !== 'RUNNING') return result;
  // switch traffic to the new cluster and retire the old ones
  result.activeName = desiredName;
  const ns = rs.metadata.namespace ?? '';
  for (const c of owned) {
    if (c.metadata.name === desiredName) continue;
    await ctx.client.delete(RayClusters, c.metadata.name ?? '', ns).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  return result;
}

/** `<name>-head-svc` and `<name>-serve-svc` on the active cluster; returns how many Serve endpoints are Ready */
async function applyServeServices(ctx: ReconcileContext, rs: WithStatus, activeName: string): Promise<number> {
  const name = rs.metadata.name ?? '';
  const ns = rs.metadata.namespace ?? '';
  const selector = { [CLUSTER_LABEL]: activeName };
  const headSvc = serviceFor(rs, dnsName(`${name}-head-svc`), selector, { ...selector, 'ray.io/node-type': 'head' }, [
    { name: 'gcs-server', port: 6379, targetPort: 6379 },
    { name: 'dashboard', port: 8265, targetPort: 8265 },
    { name: 'client', port: 10001, targetPort: 10001 },
    { name: 'serve', port: 8000, targetPort: 8000 },
  ]);
  await applyChild(ctx, SimServices, headSvc);
  const serveSelector = { ...selector, [SERVE_LABEL]: 'true' };
  const serveSvc = serviceFor(rs, dnsName(`${name}-serve-svc`), selector, serveSelector, [
    { name: 'serve', port: 8000, targetPort: 8000 },
  ]);
  await applyChild(ctx, SimServices, serveSvc);
  const pods = await ctx.cache.list(SimPods, {
    namespace: ns,
    labelSelector: `${CLUSTER_LABEL}=${activeName},${SERVE_LABEL}=true`,
  });
  return pods.filter((p) => !p.metadata.deletionTimestamp && isTrue(p.status?.conditions, 'Ready')).length;
}

/** Ready (Serve endpoints on the active cluster, else why not) and UpgradeInProgress (two clusters at once) */
function rayServiceConditions(s: {
  ready: boolean;
  failed: boolean;
  activeName: string | undefined;
  desiredName: string;
  pending: PendingCluster;
  activeUnhealthy: string | undefined;
}): ConditionInput[] {
  const { ready, failed, activeName, desiredName, activeUnhealthy } = s;
  const readyCond: ConditionInput = ready
    ? {
        type: 'Ready',
        status: true,
        reason: 'NonZeroServeEndpoints',
        message: 'Number of serve endpoints is greater than 0',
      }
    : activeName
      ? { type: 'Ready', status: false, reason: 'ZeroServeEndpoints', message: 'No Serve endpoint is ready' }
      : {
          type: 'Ready',
          status: false,
          reason: 'Initializing',
          message: failed
            ? `Deploying the applications failed: ${s.pending.view.failure}`
            : `waiting for RayCluster ${desiredName} to serve the applications`,
        };
  if (!ready && activeUnhealthy) readyCond.message = `The Ray cluster is unhealthy: ${activeUnhealthy}`;
  const upgradeCond: ConditionInput =
    activeName !== undefined && activeName !== desiredName
      ? {
          type: 'UpgradeInProgress',
          status: true,
          reason: 'BothActivePendingClustersExist',
          message: `switching from RayCluster ${activeName} to ${desiredName}`,
        }
      : {
          type: 'UpgradeInProgress',
          status: false,
          reason: activeName ? 'NoPendingCluster' : 'NoActiveCluster',
          message: activeName ? 'No pending cluster' : 'No active cluster',
        };
  return [readyCond, upgradeCond];
}
