// The simulated KubeRay RayCluster controller. The head group and each worker group become a Deployment
// (KubeRay creates bare pods; a Deployment per group gives the same pods through the workload
// simulators), plus the `<cluster>-head-svc` Service. Status follows KubeRay: HeadPodReady,
// RayClusterProvisioned (True from the first time every pod is ready), desired/ready worker counts,
// desired CPU/memory/GPU, head pod and service, state "ready".

import { parseQuantity, type Quantity } from '@modelplane/apimachinery/quantity';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput, isTrue } from './conditions.ts';
import {
  type Container,
  type Pod,
  type PodSpec,
  type PodTemplate,
  RayClusters,
  SimDeployments,
  SimPods,
  SimServices,
  type WithStatus,
} from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { deploymentHealth, problemText, type WorkloadHealth } from './pod-health.ts';
import {
  applyChild,
  applyStatus,
  deploymentFor,
  dnsName,
  observeDeployment,
  serviceFor,
  simAnnotations,
} from './workload.ts';

export const RAYCLUSTER_CONTROLLER = 'sim-raycluster';
export const CLUSTER_LABEL = 'ray.io/cluster';
export const ORIGIN_CRD_LABEL = 'ray.io/originated-from-crd';
export const ORIGIN_NAME_LABEL = 'ray.io/originated-from-cr-name';
export const SERVE_LABEL = 'ray.io/serve';

interface WorkerGroup {
  groupName: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
  numOfHosts?: number;
  suspend?: boolean;
  template?: PodTemplate;
}

interface RayClusterSpec {
  suspend?: boolean;
  headGroupSpec?: { template?: PodTemplate };
  workerGroupSpecs?: WorkerGroup[];
}

interface GroupPlan {
  group: string;
  name: string;
  replicas: number;
  selector: Record<string, string>;
  deployment: ReturnType<typeof deploymentFor>;
}

export function registerRayClusterSimulator(mgr: Manager, _opts: SimulatorOptions): void {
  mgr
    .controller(RAYCLUSTER_CONTROLLER)
    .for(RayClusters, { predicates: [ignoreOwnStatusWrites(RAYCLUSTER_CONTROLLER)] })
    .owns(SimDeployments)
    .owns(SimServices)
    .watches(SimPods, (pod) => {
      const c = pod.metadata.labels?.[CLUSTER_LABEL];
      return c ? [{ namespace: pod.metadata.namespace ?? '', name: c }] : [];
    })
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileRayCluster(req, ctx));
}

export const headServiceName = (cluster: string) => dnsName(`${cluster}-head-svc`);
const servesRay = (rc: KubeObject) => rc.metadata.labels?.[ORIGIN_CRD_LABEL] === 'RayService';

function groupPlan(
  rc: KubeObject,
  group: string,
  nodeType: 'head' | 'worker',
  replicas: number,
  template: PodTemplate | undefined,
): GroupPlan {
  const cluster = rc.metadata.name ?? '';
  const name = dnsName(nodeType === 'head' ? `${cluster}-head` : `${cluster}-${group}-worker`);
  const selector = { [CLUSTER_LABEL]: cluster, 'ray.io/group': group, 'ray.io/node-type': nodeType };
  const origin = Object.fromEntries(
    Object.entries(rc.metadata.labels ?? {}).filter(([k]) => k === ORIGIN_CRD_LABEL || k === ORIGIN_NAME_LABEL),
  );
  const labels = {
    ...(template?.metadata?.labels ?? {}),
    ...origin,
    ...selector,
    'ray.io/is-ray-node': 'yes',
    'app.kubernetes.io/name': 'kuberay',
    'app.kubernetes.io/created-by': 'kuberay-operator',
    // every node runs a Serve proxy by default, so KubeRay marks them all as serve endpoints
    ...(servesRay(rc) ? { [SERVE_LABEL]: 'true' } : {}),
  };
  const annotations = { ...(template?.metadata?.annotations ?? {}), ...simAnnotations(rc) };
  const spec = (template?.spec ?? { containers: [] }) as PodSpec;
  const deployment = deploymentFor({
    owner: rc,
    name,
    labels: { ...origin, ...selector },
    selector,
    replicas,
    template: { metadata: { labels, annotations }, spec },
  });
  return { group, name, replicas, selector, deployment };
}

export function planRayCluster(rc: WithStatus): { head: GroupPlan; workers: GroupPlan[] } {
  const spec = (rc.spec ?? {}) as RayClusterSpec;
  const head = groupPlan(rc, 'headgroup', 'head', spec.suspend ? 0 : 1, spec.headGroupSpec?.template);
  const workers = (spec.workerGroupSpecs ?? []).map((g) => {
    const min = g.minReplicas ?? 0;
    const max = g.maxReplicas ?? Number.MAX_SAFE_INTEGER;
    const replicas =
      spec.suspend || g.suspend ? 0 : Math.min(max, Math.max(min, g.replicas ?? min)) * Math.max(1, g.numOfHosts ?? 1);
    return groupPlan(rc, g.groupName, 'worker', replicas, g.template);
  });
  return { head, workers };
}

/** the sum over `plans` of each pod's container requests (limits where no request) for `resource` */
function desiredResource(plans: GroupPlan[], pick: (resource: string) => boolean): string {
  let total: Quantity = parseQuantity('0');
  for (const p of plans) {
    for (const c of (p.deployment.spec?.template?.spec?.containers ?? []) as Container[]) {
      const amounts = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
      for (const [name, amount] of Object.entries(amounts)) {
        if (!pick(name)) continue;
        for (let i = 0; i < p.replicas; i++) total = total.add(parseQuantity(String(amount)));
      }
    }
  }
  return total.toString();
}

type ObservedGroup = { plan: GroupPlan; health: WorkloadHealth; pods: Pod[] };

async function reconcileRayCluster(req: Request, ctx: ReconcileContext) {
  const rc = await ctx.cache.get(RayClusters, req.name, req.namespace);
  if (!rc || rc.metadata.deletionTimestamp) return;
  const plan = planRayCluster(rc);
  const observed: ObservedGroup[] = [];
  for (const p of [plan.head, ...plan.workers]) {
    await applyChild(ctx, SimDeployments, p.deployment);
    const { deployment, pods } = await observeDeployment(ctx, req.namespace, p.name, p.selector);
    observed.push({ plan: p, health: deploymentHealth(deployment, pods, p.replicas), pods });
  }
  const svcName = headServiceName(req.name);
  const ports = headServicePorts(rc);
  const headLabels = { [CLUSTER_LABEL]: req.name, 'ray.io/node-type': 'head' };
  const svc = await applyChild(ctx, SimServices, serviceFor(rc, svcName, plan.head.selector, headLabels, ports));
  const [head, ...workers] = observed;
  const allReady = observed.every((o) => o.health.allReady);
  const fatal = observed.find((o) => !o.health.allReady && o.health.problem?.fatal)?.health.problem;
  const headPod = head!.pods.find((p) => p.status?.podIP);
  const groups = (rc.spec?.workerGroupSpecs as WorkerGroup[] | undefined) ?? [];
  const plans = observed.map((o) => o.plan);
  await applyStatus(ctx, rc, {
    observedGeneration: rc.metadata.generation ?? 1,
    ...(allReady ? { state: 'ready' } : fatal ? { state: 'failed', reason: problemText(fatal) } : {}),
    conditions: buildConditions(rc.status?.conditions, clusterConditions(rc, head!, allReady, fatal), {
      observedGeneration: rc.metadata.generation ?? 1,
    }),
    desiredWorkerReplicas: workers.reduce((n, w) => n + w.plan.replicas, 0),
    readyWorkerReplicas: workers.reduce((n, w) => n + w.health.ready, 0),
    availableWorkerReplicas: workers.reduce((n, w) => n + w.health.available, 0),
    minWorkerReplicas: groups.reduce((n, g) => n + (g.minReplicas ?? 0), 0),
    maxWorkerReplicas: groups.reduce((n, g) => n + (g.maxReplicas ?? g.replicas ?? 0), 0),
    desiredCPU: desiredResource(plans, (r) => r === 'cpu'),
    desiredMemory: desiredResource(plans, (r) => r === 'memory'),
    desiredGPU: desiredResource(plans, (r) => r.endsWith('/gpu')),
    desiredTPU: desiredResource(plans, (r) => r === 'google.com/tpu'),
    head: {
      serviceName: svcName,
      ...(svc.spec?.clusterIP ? { serviceIP: svc.spec.clusterIP } : {}),
      ...(headPod ? { podName: headPod.metadata.name, podIP: headPod.status?.podIP } : {}),
    },
    endpoints: Object.fromEntries(ports.map((p) => [p.name, String(p.port)])),
  });
}

/** the head Service's ports as KubeRay names them; `serve` only when the cluster runs Ray Serve */
function headServicePorts(rc: WithStatus) {
  return [
    { name: 'gcs-server', port: 6379, targetPort: 6379 },
    { name: 'dashboard', port: 8265, targetPort: 8265 },
    { name: 'client', port: 10001, targetPort: 10001 },
    { name: 'metrics', port: 8080, targetPort: 8080 },
    ...(servesRay(rc) ? [{ name: 'serve', port: 8000, targetPort: 8000 }] : []),
  ];
}

/**
 * HeadPodReady, RayClusterProvisioned (which stays True once every pod was ready the first time, as
 * KubeRay's does) and RayClusterReplicaFailure when a group has a fatal problem.
 */
function clusterConditions(
  rc: WithStatus,
  head: ObservedGroup,
  allReady: boolean,
  fatal: WorkloadHealth['problem'],
): ConditionInput[] {
  const headCond: ConditionInput = head.health.allReady
    ? { type: 'HeadPodReady', status: true, reason: 'HeadPodRunningAndReady', message: 'Head pod is running and ready' }
    : {
        type: 'HeadPodReady',
        status: false,
        reason: head.pods.length === 0 ? 'HeadPodNotFound' : 'HeadPodNotReady',
        message: head.health.problem ? problemText(head.health.problem) : 'Head pod is not ready',
      };
  const provisioned = allReady || isTrue(rc.status?.conditions, 'RayClusterProvisioned');
  const provCond: ConditionInput = provisioned
    ? {
        type: 'RayClusterProvisioned',
        status: true,
        reason: 'AllPodRunningAndReadyFirstTime',
        message: 'All Ray Pods are ready for the first time',
      }
    : {
        type: 'RayClusterProvisioned',
        status: false,
        reason: 'RayClusterPodsProvisioning',
        message: 'RayCluster Pods are being provisioned for first time',
      };
  if (!fatal) return [headCond, provCond];
  const failure = { type: 'RayClusterReplicaFailure', status: true, reason: fatal.reason, message: problemText(fatal) };
  return [headCond, provCond, failure];
}
