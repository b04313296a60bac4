// Brings up the cluster for `modelplane dev` (embedded here; the real control plane in real-cluster.ts): the API server, the external projects' CRDs, the
// simulated nodes/storage/gateway, and the simulators of Kubernetes' and the external operators'
// controllers, all running against the API server through the normal client.
import { type ApiServer, type ApiServerOptions, ServiceEndpoints, startApiServer } from '@modelplane/apiserver';
import type { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import type { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import {
  claimPodNetwork,
  installSimulatedInfrastructure,
  type NodePoolSpec,
  startSimulatedKubelets,
} from '@modelplane/sim/cluster';
import { GatewayDataPlane } from '@modelplane/sim/gateway';
import { registerLlamaStackSimulator } from '@modelplane/sim/llamastack';
import { externalCrds, OPERATOR_NAMES, registerOperatorSimulators } from '@modelplane/sim/operators';
import { type SimRegistryServer, startSimRegistryServer } from '@modelplane/sim/registry/server';
import { serviceBackends } from '@modelplane/sim/service-backends';
import {
  type KubeletEndpoints,
  type KubeletTlsMaterial,
  PodLogStore,
  registerWorkloadSimulators,
  type WorkloadSimulator,
} from '@modelplane/sim/workloads';
import { operatorNamespaceFromEnv } from '../../common/runtime-config/index.ts';
import { kubeSecretSource, OciRegistryClient } from '../../controllers/aim/catalog/oci/client.ts';
import { DEFAULT_POD_NAMESPACE, startOperator } from '../../controllers/operator.ts';
import type { ControllerSet, WebhookEnv } from '../../controllers/registry.ts';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../controllers/sets.ts';
import { WEBHOOK_SERVICE } from '../../controllers/webhooks.ts';
import { allCrds } from '../crds.ts';
import { applyAutoscalerDefaults, type DevMetrics, prepareDevMetrics } from './autoscaling.ts';

export interface DevClusterOptions {
  port: number;
  dataDir?: string;
  auditLogFile?: string;
  log: Logger;
  /** run the operator's controller sets and the providers in this process (default true) */
  controllers?: boolean;
  /** which sets to run (default: every operator set and every provider) */
  sets?: readonly ControllerSet[];
  /** told when each start-up step is done (the terminal shows progress) */
  onStep?: (what: string, ms: number) => void;
  /** run a real Prometheus for the saturation autoscaler when it is installed (default false) */
  prometheus?: boolean;
  /**
   * `real`: a real KEDA acts on ScaledObjects (the caller starts it, with its own CRDs): no simulated KEDA
   * and no simulated ScaledObject CRD (default `simulated`)
   */
  keda?: 'simulated' | 'real';
  /** the simulated nodes (default DEFAULT_NODE_POOL: 2 CPU, 2 NVIDIA and 2 AMD nodes of 8 GPUs) */
  nodePool?: NodePoolSpec;
}

export interface DevCluster<S = ApiServer> {
  server: S;
  /**
   * local servers standing in for in-cluster Services: the embedded API server sends webhook calls there;
   * on the real control plane only the simulators read it (kube-apiserver resolves Services itself)
   */
  serviceEndpoints: ServiceEndpoints;
  /** the simulators' manager (admin credentials) */
  manager: Manager;
  /** the operator and each provider: one manager each, as separate processes would have */
  operators: Manager[];
  stop(): Promise<void>;
}

/** namespaces the operator's own objects live in: deploy/'s namespace and the AIM operator namespace */
export const OPERATOR_NAMESPACES = [DEFAULT_POD_NAMESPACE, operatorNamespaceFromEnv(process.env)];

export async function startApiServerOnly(
  opts: DevClusterOptions,
  extra: Pick<ApiServerOptions, 'podLogs' | 'serviceEndpoints'> = {},
): Promise<ApiServer> {
  return startApiServer({
    port: opts.port,
    ...(opts.auditLogFile ? { auditLogFile: opts.auditLogFile } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...extra,
  });
}

export async function startDevCluster(opts: DevClusterOptions): Promise<DevCluster> {
  const logs = new PodLogStore();
  // the webhook Service of deploy/ resolves to this process's webhook server once it listens
  const serviceEndpoints = new ServiceEndpoints();
  const server = await startApiServerOnly(opts, {
    podLogs: (ns, pod, container, o) => logs.get(ns, pod, container, o),
    serviceEndpoints,
  });
  try {
    const webhook = {
      port: 0,
      host: '127.0.0.1',
      onListening: (url: string) => void serviceEndpoints.register(DEFAULT_POD_NAMESPACE, WEBHOOK_SERVICE, 443, url),
    };
    const parts = await populateDevCluster(server, opts, { logs, serviceEndpoints, webhook: () => webhook });
    return { server, serviceEndpoints, ...parts, stop: () => parts.stop().then(() => server.close()) };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** what the dev cluster needs of its API server, embedded or real */
export interface DevClusterServer {
  readonly url: string;
  kubeconfigYaml(): string;
}

export interface DevClusterWiring {
  logs: PodLogStore;
  /** local servers standing in for in-cluster Services (the embedded API server dials them too) */
  serviceEndpoints: ServiceEndpoints;
  /** how the operator's webhook server listens and is made reachable from the API server (given the simulators' manager) */
  webhook(manager: Manager): WebhookEnv;
  /** the workload simulators to run (default all; a real control plane runs Kubernetes' own controllers) */
  workloads?: readonly WorkloadSimulator[];
  /**
   * TLS for the simulated kubelets' endpoints, given the nodes' addresses: a real kube-apiserver proxies
   * pods/log to them (the embedded one asks the log store directly and needs none)
   */
  kubeletTls?(ips: string[]): Promise<KubeletTlsMaterial>;
  /**
   * kube-controller-manager's own HPA controller scales HPAs (a real control plane): no simulated one, which
   * would fight it
   */
  realHpaController?: boolean;
}

/** what populateDevCluster started, filled in step by step, so a failed start stops exactly what is running */
interface Started {
  manager: Manager;
  operators: Manager[];
  podNetwork: Awaited<ReturnType<typeof claimPodNetwork>>;
  gatewayDataPlane: GatewayDataPlane;
  /** the ready pods behind a Service port, as kube-proxy would pick them */
  backends: ReturnType<typeof serviceBackends>;
  kubelets?: KubeletEndpoints;
  llamaStack?: { stop(): Promise<void> };
  metrics?: DevMetrics;
  registry?: SimRegistryServer;
}

async function stopStarted(s: Started): Promise<void> {
  await s.metrics?.stop();
  await Promise.all(s.operators.map((o) => o.stop()));
  await s.registry?.close();
  await s.manager.stop();
  await s.llamaStack?.stop();
  await s.kubelets?.stop();
  await s.gatewayDataPlane.close();
  await s.podNetwork.release();
}

/** runs one start-up step, logging and reporting (opts.onStep) how long it took */
type Step = <T>(what: string, fn: () => Promise<T>) => Promise<T>;

function timedStep(opts: DevClusterOptions): Step {
  return async (what, fn) => {
    const started = Date.now();
    const out = await fn();
    opts.log.info(what, { ms: Date.now() - started });
    opts.onStep?.(what, Date.now() - started);
    return out;
  };
}

/** CRDs, simulated infrastructure, simulators and (unless opts.controllers is false) the controllers, on `server` */
export async function populateDevCluster(
  server: DevClusterServer,
  opts: DevClusterOptions,
  wiring: DevClusterWiring,
): Promise<Pick<DevCluster, 'manager' | 'operators' | 'stop'>> {
  const manager = await Manager.create({
    kubeconfig: server.kubeconfigYaml(),
    name: 'modelplane-sim',
    logger: opts.log.child({ component: 'simulators' }),
  });
  const podNetwork = await claimPodNetwork();
  // the Gateways' traffic: requests to a Gateway's address reach the pods its routes name
  const backends = serviceBackends(manager);
  const gatewayDataPlane = new GatewayDataPlane(manager, {
    podNetwork: podNetwork.network,
    local: wiring.serviceEndpoints,
    log: opts.log.child({ component: 'gateway' }),
  });
  const started: Started = { manager, operators: [], podNetwork, gatewayDataPlane, backends };
  const step = timedStep(opts);
  try {
    await step('external CRDs installed', async () => {
      for (const crd of externalCrds())
        if (opts.keda !== 'real' || crd.spec.group !== 'keda.sh') await ensureCrd(manager.client, crd);
    });
    await step('modelplane CRDs installed', async () => {
      for (const crd of allCrds()) await ensureCrd(manager.client, crd);
    });
    const devMetrics = await startSimulators(started, opts, wiring, step);
    if (opts.controllers !== false) {
      await startControllers(server, started, opts, wiring, devMetrics, step);
      await applyAutoscalerDefaults(manager.client);
    }
    if (devMetrics.prometheusUrl) await startPrometheusInBackground(server, started, opts, devMetrics, step);
  } catch (err) {
    await stopStarted(started);
    throw err;
  }
  return { manager, operators: started.operators, stop: () => stopStarted(started) };
}

/**
 * The simulated cluster: kubelet endpoints (when the API server proxies pods/log to them), nodes, storage
 * class and gateway, the workload and operator simulators, and the operators' namespaces.
 */
async function startSimulators(
  started: Started,
  opts: DevClusterOptions,
  wiring: DevClusterWiring,
  step: Step,
): Promise<DevMetrics> {
  const { manager, podNetwork } = started;
  const endpoints = wiring.kubeletTls
    ? await startSimulatedKubelets(wiring.logs, wiring.kubeletTls, podNetwork.network, opts.nodePool)
    : undefined;
  started.kubelets = endpoints;
  await step('simulated nodes, storage class and gateway created', () =>
    installSimulatedInfrastructure(
      manager.client,
      opts.nodePool,
      podNetwork.network,
      endpoints && ((node) => endpoints.port(node)),
      { operatorDeployments: true },
    ),
  );
  registerWorkloadSimulators(manager, { logs: wiring.logs, ...(wiring.workloads ? { only: wiring.workloads } : {}) });
  const devMetrics = await prepareDevMetrics(
    manager,
    opts.prometheus === true,
    opts.log.child({ component: 'prometheus' }),
    { hpaSimulator: wiring.realHpaController !== true },
  );
  started.metrics = devMetrics;
  registerOperatorSimulators(manager, {
    gatewayAddresses: started.gatewayDataPlane,
    ...(opts.keda === 'real' ? { only: OPERATOR_NAMES.filter((n) => n !== 'keda') } : {}),
    // the simulated KEDA scales on its triggers where the simulated HPA does (never beside a real HPA
    // controller, which would fight it for the replicas)
    ...(devMetrics.prometheusUrl && wiring.realHpaController !== true
      ? { kedaPrometheus: { baseUrl: devMetrics.prometheusUrl } }
      : {}),
  });
  started.llamaStack = registerLlamaStackSimulator(manager, {
    endpoints: wiring.serviceEndpoints,
    logs: wiring.logs,
  });
  await step('simulators started', () => manager.start());
  for (const name of OPERATOR_NAMESPACES)
    await manager.client
      .withFieldManager('modelplane-dev')
      .apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return devMetrics;
}

/**
 * The simulated image registry, then the operator (every non-provider set, with the webhook) and each
 * provider in a manager of its own, as separate processes would run them.
 */
async function startControllers(
  server: DevClusterServer,
  started: Started,
  opts: DevClusterOptions,
  wiring: DevClusterWiring,
  devMetrics: DevMetrics,
  step: Step,
): Promise<void> {
  const registry = await step('simulated image registry started', () => startSimRegistryServer());
  started.registry = registry;
  await step('controllers started', async () => {
    const sets = opts.sets ?? [...CONTROLLER_SETS, ...PROVIDER_SETS];
    const core = sets.filter((s) => !PROVIDER_SETS.includes(s));
    const common = {
      kubeconfig: server.kubeconfigYaml(),
      operatorNamespace: operatorNamespaceFromEnv(process.env),
      podNamespace: DEFAULT_POD_NAMESPACE,
      // the client `modelplane run` uses, with docker.io answered by the simulated registry
      imageRegistry: (client: KubeClient) =>
        new OciRegistryClient({ mirrors: { 'docker.io': registry.url }, secrets: kubeSecretSource(client) }),
      // the simulated pods listen on loopback addresses: the operator reaches Services as kube-proxy would
      // (an address registered for the Service port, else a ready pod the Service selects)
      serviceUrl: async (ns: string, service: string, port: number) =>
        wiring.serviceEndpoints.resolve(ns, service, port) ?? (await started.backends(ns, service, port))[0],
    };
    if (core.length > 0)
      started.operators.push(
        await startOperator({
          ...common,
          webhook: wiring.webhook(started.manager),
          sets: core,
          log: opts.log.child({ component: 'operator' }),
          ...(devMetrics.prometheusUrl ? { httpPort: 0 } : {}),
        }),
      );
    for (const p of sets.filter((s) => PROVIDER_SETS.includes(s))) {
      started.operators.push(await startOperator({ ...common, sets: [p], log: opts.log.child({ component: p.name }) }));
    }
  });
}

/**
 * Prometheus, scraping the operator's /metrics (wva_*) and the gateway's queue of requests held for a model at
 * zero. In the background: the cluster is usable before Prometheus is (the autoscaler's safety net covers the
 * gap), and a Prometheus that does not start is logged, not fatal.
 */
async function startPrometheusInBackground(
  server: DevClusterServer,
  started: Started,
  opts: DevClusterOptions,
  devMetrics: DevMetrics,
  step: Step,
): Promise<void> {
  const operator = started.operators[0];
  const targets = [
    ...(operator?.url ? [{ job: 'modelplane-operator', url: operator.url }] : []),
    { job: 'modelplane-gateway', url: await started.gatewayDataPlane.held.serveMetrics() },
  ];
  void step('prometheus started', () => devMetrics.start(server.kubeconfigYaml(), targets)).catch((err: Error) =>
    opts.log.error('prometheus did not start; the saturation autoscaler has no metrics', { error: err.message }),
  );
}
