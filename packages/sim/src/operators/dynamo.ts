// The simulated NVIDIA Dynamo operator. Each service of a DynamoGraphDeployment becomes a Deployment
// `<graph>-<service>` (replicas × multinode nodes, the component's GPU/CPU/memory resources, its
// extraPodSpec and main container); frontends (and EPPs) also get a Service. status.state moves
// pending → deploying → successful, or failed with status.message naming the service and the pods'
// failure, which is where KubeAIRunway's status mapping takes the message from.

import type { EnvVar } from '@modelplane/apimachinery/builtin';
import { INDEX_OWNER } from '@modelplane/runtime/cache';
import { isNotFound } from '@modelplane/runtime/client';
import { ignoreOwnStatusWrites, type ReconcileContext, type Request } from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { commandModel, servingAnnotations } from '../inference/index.ts';
import { buildConditions } from './conditions.ts';
import {
  type Container,
  DynamoGraphDeployments,
  type Json,
  type PodSpec,
  SimDeployments,
  SimPods,
  SimServices,
  type WithStatus,
} from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { deploymentHealth, problemText, progressText, type WorkloadHealth } from './pod-health.ts';
import {
  applyChild,
  applyStatus,
  deploymentFor,
  dnsName,
  observeDeployment,
  type ServicePort,
  serviceFor,
  simAnnotations,
} from './workload.ts';

export const DYNAMO_CONTROLLER = 'sim-dynamo';
export const GRAPH_LABEL = 'nvidia.com/dynamo-graph-deployment-name';
export const COMPONENT_LABEL = 'nvidia.com/dynamo-component';
const DYNAMO_VERSION = '0.4.1';

interface ComponentSpec extends Json {
  componentType?: string;
  subComponentType?: string;
  replicas?: number;
  dynamoNamespace?: string;
  envFromSecret?: string;
  envs?: EnvVar[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  extraPodSpec?: Json & { mainContainer?: Container; containers?: Container[] };
  multinode?: { nodeCount?: number };
}

export function registerDynamoSimulator(mgr: Manager, opts: SimulatorOptions): void {
  mgr
    .controller(DYNAMO_CONTROLLER)
    .for(DynamoGraphDeployments, { predicates: [ignoreOwnStatusWrites(DYNAMO_CONTROLLER)] })
    .owns(SimDeployments)
    .owns(SimServices)
    .watches(SimPods, (pod) => {
      const g = pod.metadata.labels?.[GRAPH_LABEL];
      return g ? [{ namespace: pod.metadata.namespace ?? '', name: g }] : [];
    })
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileGraph(req, ctx, opts));
}

/** Dynamo's component resources (cpu, memory, gpu, custom) as container resources */
function containerResources(r: ComponentSpec['resources'], fallback: Container['resources']): Container['resources'] {
  if (!r) return fallback;
  const convert = (side: Record<string, unknown> | undefined) => {
    if (!side) return undefined;
    const out: Record<string, string> = {};
    if (side.cpu !== undefined && side.cpu !== '') out.cpu = String(side.cpu);
    if (side.memory !== undefined && side.memory !== '') out.memory = String(side.memory);
    if (side.gpu !== undefined && side.gpu !== '' && String(side.gpu) !== '0')
      out[String(side.gpuType ?? 'nvidia.com/gpu')] = String(side.gpu);
    for (const [k, v] of Object.entries((side.custom as Record<string, unknown> | undefined) ?? {})) out[k] = String(v);
    return out;
  };
  const requests = convert(r.requests);
  const limits = convert(r.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

function mergeEnv(...lists: Array<EnvVar[] | undefined>): EnvVar[] {
  const byName = new Map<string, EnvVar>();
  for (const list of lists) for (const e of list ?? []) byName.set(e.name, e);
  return [...byName.values()];
}

function componentType(name: string, svc: ComponentSpec): string {
  if (svc.componentType) return svc.componentType === 'main' ? 'frontend' : svc.componentType;
  return /frontend/i.test(name) ? 'frontend' : 'worker';
}

const labelValue = (v: string) =>
  v
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '') || 'x';

const FRONTEND_PORT = 8000;

/** the model Dynamo's frontend lists: the one its workers register (their --served-model-name, else --model) */
function workerModel(dgd: WithStatus): string | undefined {
  const services = ((dgd.spec as { services?: Record<string, ComponentSpec> } | undefined)?.services ?? {}) as Record<
    string,
    ComponentSpec
  >;
  for (const [name, svc] of Object.entries(services)) {
    const main = svc.extraPodSpec?.mainContainer;
    const model = componentType(name, svc) === 'frontend' || !main ? undefined : commandModel(main);
    if (model) return model;
  }
  return undefined;
}

export function planComponent(dgd: WithStatus, serviceName: string, svc: ComponentSpec) {
  const graph = dgd.metadata.name ?? '';
  const spec = (dgd.spec ?? {}) as { backendFramework?: string; envs?: EnvVar[] };
  const type = componentType(serviceName, svc);
  const name = dnsName(`${graph}-${serviceName}`);
  const backend = spec.backendFramework === 'trtllm' ? 'tensorrtllm' : (spec.backendFramework ?? 'vllm');
  const { mainContainer, containers: sidecars, ...podFields } = svc.extraPodSpec ?? {};
  const main = mainContainer ?? ({ name: 'main' } as Container);
  const ports: ServicePort[] =
    type === 'frontend'
      ? [{ name: 'http', port: 8000, targetPort: 8000 }]
      : type === 'epp'
        ? [{ name: 'grpc', port: 9002, targetPort: 9002 }]
        : [];
  const container: Container = {
    ...main,
    name: 'main',
    image: main.image ?? `nvcr.io/nvidia/ai-dynamo/${backend}-runtime:${DYNAMO_VERSION}`,
    env: mergeEnv(spec.envs, svc.envs, main.env),
    ...(svc.envFromSecret ? { envFrom: [...(main.envFrom ?? []), { secretRef: { name: svc.envFromSecret } }] } : {}),
    ...(ports.length > 0 && !main.ports
      ? { ports: ports.map((p) => ({ containerPort: p.targetPort as number, name: p.name, protocol: 'TCP' })) }
      : {}),
  };
  const resources = containerResources(svc.resources, main.resources);
  if (resources) container.resources = resources;
  const selector = { [GRAPH_LABEL]: labelValue(graph), [COMPONENT_LABEL]: labelValue(serviceName) };
  const labels = {
    ...(svc.labels ?? {}),
    ...selector,
    'nvidia.com/dynamo-component-type': labelValue(type),
    ...(svc.subComponentType ? { 'nvidia.com/dynamo-sub-component-type': labelValue(svc.subComponentType) } : {}),
    'nvidia.com/dynamo-namespace': labelValue(svc.dynamoNamespace ?? `${dgd.metadata.namespace}-${graph}`),
  };
  const podSpec: PodSpec = { ...podFields, containers: [container, ...(sidecars ?? [])] };
  const replicas = Math.max(0, svc.replicas ?? 1) * Math.max(1, svc.multinode?.nodeCount ?? 1);
  const model = type === 'frontend' ? workerModel(dgd) : undefined;
  const annotations = {
    ...(model ? servingAnnotations(model, FRONTEND_PORT) : {}),
    ...(svc.annotations ?? {}),
    ...simAnnotations(dgd),
  };
  const deployment = deploymentFor({
    owner: dgd,
    name,
    labels,
    selector,
    replicas,
    template: { metadata: { labels, annotations }, spec: podSpec },
  });
  const service = ports.length > 0 ? serviceFor(dgd, name, labels, selector, ports) : undefined;
  return { name, type, deployment, service, selector, replicas };
}

type ObservedComponent = { service: string; plan: ReturnType<typeof planComponent>; health: WorkloadHealth };
type GraphState = 'pending' | 'deploying' | 'successful' | 'failed';
const NOT_READY = 'some_resources_are_not_ready';

/** status.state and status.message with the one Ready condition that mirrors them, as the Dynamo operator writes */
function writeGraphStatus(
  ctx: ReconcileContext,
  dgd: WithStatus,
  state: GraphState,
  ready: boolean,
  reason: string,
  message: string,
  extra: Json = {},
) {
  const generation = dgd.metadata.generation ?? 1;
  return applyStatus(ctx, dgd, {
    ...extra,
    observedGeneration: generation,
    state,
    message,
    conditions: buildConditions(dgd.status?.conditions, [{ type: 'Ready', status: ready, reason, message }], {
      observedGeneration: generation,
    }),
  });
}

async function reconcileGraph(req: Request, ctx: ReconcileContext, opts: SimulatorOptions) {
  const dgd = await ctx.cache.get(DynamoGraphDeployments, req.name, req.namespace);
  if (!dgd) {
    opts.clock.forget(req.namespace, req.name);
    return;
  }
  if (dgd.metadata.deletionTimestamp) return;
  const services = Object.entries((dgd.spec?.services ?? {}) as Record<string, ComponentSpec>).sort(([a], [b]) =>
    a.localeCompare(b),
  );
  if (services.length === 0) {
    const message = 'spec.services is empty: the graph has no components to deploy';
    await writeGraphStatus(ctx, dgd, 'failed', false, NOT_READY, message);
    return;
  }
  const wait = opts.clock.remaining(dgd, 'init', opts.delays.dynamoInitMs);
  if (wait > 0) {
    await writeGraphStatus(ctx, dgd, 'pending', false, NOT_READY, 'initializing the graph deployment');
    return { requeueAfter: wait };
  }
  const observed: ObservedComponent[] = [];
  for (const [serviceName, svc] of services) {
    const plan = planComponent(dgd, serviceName, svc);
    await applyChild(ctx, SimDeployments, plan.deployment);
    if (plan.service) await applyChild(ctx, SimServices, plan.service);
    const { deployment, pods } = await observeDeployment(ctx, req.namespace, plan.name, plan.selector);
    observed.push({ service: serviceName, plan, health: deploymentHealth(deployment, pods, plan.replicas) });
  }
  await pruneRemovedComponents(ctx, dgd, new Set(observed.map((o) => o.plan.name)));
  await writeObservedGraph(ctx, dgd, observed);
}

/**
 * The graph's state from its components': failed when one has a fatal problem (the message names it),
 * successful when all are ready, deploying otherwise (the message names each component still waiting).
 */
async function writeObservedGraph(ctx: ReconcileContext, dgd: WithStatus, observed: ObservedComponent[]) {
  const servicesStatus = Object.fromEntries(
    observed.map(({ service, plan, health }) => [
      service,
      {
        componentKind: 'Deployment',
        componentName: plan.name,
        replicas: health.desired,
        updatedReplicas: health.updated,
        readyReplicas: health.ready,
        availableReplicas: health.available,
      },
    ]),
  );
  const frontend = observed.find((o) => o.plan.type === 'frontend' && o.plan.service);
  const extra: Json = {
    services: servicesStatus,
    ...(frontend ? { endpoint: { service: frontend.plan.name, port: 8000 } } : {}),
  };
  const failed = observed.find((o) => !o.health.allReady && o.health.problem?.fatal);
  if (failed?.health.problem) {
    const message = `${failed.service}: ${problemText(failed.health.problem)}`;
    await writeGraphStatus(ctx, dgd, 'failed', false, NOT_READY, message, extra);
  } else if (observed.every((o) => o.health.allReady)) {
    await writeGraphStatus(ctx, dgd, 'successful', true, 'all_resources_are_ready', 'All resources are ready', extra);
  } else {
    const waiting = observed
      .filter((o) => !o.health.allReady)
      .map(
        (o) => `${o.service}: ${o.health.problem ? problemText(o.health.problem) : progressText(o.health, o.service)}`,
      );
    const message = `Resources not ready: ${waiting.join('; ')}`;
    await writeGraphStatus(ctx, dgd, 'deploying', false, NOT_READY, message, extra);
  }
}

/** deletes the Deployments and Services of components no longer in the graph */
async function pruneRemovedComponents(ctx: ReconcileContext, dgd: WithStatus, keep: Set<string>): Promise<void> {
  const ns = dgd.metadata.namespace ?? '';
  const owned = { namespace: ns, index: { name: INDEX_OWNER, value: dgd.metadata.uid ?? '' } };
  const prune = async <T extends KubeObject>(kind: KindRef<T>) => {
    for (const child of await ctx.cache.list(kind, owned)) {
      if (keep.has(child.metadata.name ?? '')) continue;
      await ctx.client.delete(kind, child.metadata.name ?? '', ns).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  };
  await prune(SimDeployments);
  await prune(SimServices);
}
