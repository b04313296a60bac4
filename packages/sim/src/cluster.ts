// The simulated cluster's fixed infrastructure: Nodes (CPU, NVIDIA and AMD GPU nodes labelled the way their
// device plugins and feature discovery label them), a default StorageClass, and the Gateways the design docs (docs/)'
// routing examples point at. Applied through the normal client, like any other object.
import { INFERENCE_GATEWAY_LABEL } from '@modelplane/apimachinery/wellknown';
import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { simOperatorObjects } from './operator-deployments.ts';

export { SIM_OPERATORS, simOperatorObjects } from './operator-deployments.ts';

import { Nodes } from './workloads/kinds.ts';
import { type KubeletEndpoints, type KubeletTlsMaterial, startKubeletEndpoints } from './workloads/kubelet-endpoint.ts';
import type { PodLogStore } from './workloads/pod-logs.ts';

export interface NodePoolSpec {
  cpuNodes: number;
  nvidiaNodes: number;
  amdNodes: number;
  gpusPerNode: number;
}

export const DEFAULT_NODE_POOL: NodePoolSpec = { cpuNodes: 2, nvidiaNodes: 2, amdNodes: 2, gpusPerNode: 8 };

/**
 * Pod IPs are loopback addresses `<podNetwork>.<node>.<n>`, so a simulated pod can really listen on its IP
 * (the inference simulator). Each dev cluster claims its own 127.N network (claimPodNetwork), so clusters
 * running side by side never hand out the same IP.
 */
export const DEFAULT_POD_NETWORK = '127.244';

export const SIM_GATEWAY = { namespace: 'gateways', name: 'inference-gateway', className: 'modelplane-sim' };
/** the KServe gateway docs/aim.md's namespace example routes to; served by the same simulated class */
export const SIM_KSERVE_GATEWAY = { namespace: 'kgateway-system', name: 'kserve-gateway' };
export const DEFAULT_STORAGE_CLASS = 'standard';

function node(name: string, labels: Record<string, string>, index: number, podNetwork: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': labels['node.kubernetes.io/instance-type'] ?? 'sim-standard',
        ...labels,
      },
    },
    spec: { podCIDR: `${podNetwork}.${index}.0/24`, podCIDRs: [`${podNetwork}.${index}.0/24`] },
  };
}

/** the kubelet's port a node reports when no simulated kubelet endpoint is running (the kubelet's default) */
export const DEFAULT_KUBELET_PORT = 10250;

/** a node's InternalIP: the first address of its pod range, a loopback address its kubelet endpoint can listen on */
export function simulatedNodeIP(podNetwork: string, index: number): string {
  return `${podNetwork}.${index}.1`;
}

function nodeStatus(capacity: Record<string, string>, index: number, podNetwork: string): Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    capacity,
    allocatable: capacity,
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
      {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'KubeletHasSufficientMemory',
        message: 'kubelet has sufficient memory available',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
      {
        type: 'DiskPressure',
        status: 'False',
        reason: 'KubeletHasNoDiskPressure',
        message: 'kubelet has no disk pressure',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
      {
        type: 'PIDPressure',
        status: 'False',
        reason: 'KubeletHasSufficientPID',
        message: 'kubelet has sufficient PID available',
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      },
    ],
    addresses: [
      { type: 'InternalIP', address: simulatedNodeIP(podNetwork, index) },
      { type: 'Hostname', address: `sim-node-${index}` },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: DEFAULT_KUBELET_PORT } },
    nodeInfo: {
      architecture: 'amd64',
      operatingSystem: 'linux',
      osImage: 'modelplane simulated node',
      kernelVersion: '6.1.0-sim',
      containerRuntimeVersion: 'containerd://1.7.0-sim',
      kubeletVersion: 'v1.32.0',
      kubeProxyVersion: 'v1.32.0',
      machineID: `sim${index}`,
      systemUUID: `sim-${index}`,
      bootID: `boot-${index}`,
    },
  };
}

/** Node objects (without status) and the status each gets, for the given pool. */
export function simulatedNodes(
  pool: NodePoolSpec = DEFAULT_NODE_POOL,
  podNetwork = DEFAULT_POD_NETWORK,
): Array<{ node: KubeObject; status: Record<string, unknown> }> {
  const out: Array<{ node: KubeObject; status: Record<string, unknown> }> = [];
  let i = 0;
  const base = { cpu: '32', memory: '128Gi', pods: '110', 'ephemeral-storage': '500Gi' };
  const gpus = String(pool.gpusPerNode);
  for (let n = 0; n < pool.cpuNodes; n++) {
    const cap = base;
    out.push({
      node: node(`cpu-node-${n + 1}`, { 'node.kubernetes.io/instance-type': 'sim-cpu-32' }, i, podNetwork),
      status: nodeStatus(cap, i++, podNetwork),
    });
  }
  for (let n = 0; n < pool.nvidiaNodes; n++) {
    const cap = { ...base, cpu: '96', memory: '1024Gi', 'nvidia.com/gpu': gpus };
    const labels = {
      'node.kubernetes.io/instance-type': 'sim-h100-8',
      'nvidia.com/gpu.present': 'true',
      'nvidia.com/gpu.count': gpus,
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'nvidia.com/gpu.memory': '81559',
      'nvidia.com/gpu.family': 'hopper',
      'nvidia.com/cuda.driver.major': '550',
      'feature.node.kubernetes.io/pci-10de.present': 'true',
    };
    out.push({ node: node(`nvidia-node-${n + 1}`, labels, i, podNetwork), status: nodeStatus(cap, i++, podNetwork) });
  }
  for (let n = 0; n < pool.amdNodes; n++) {
    const cap = { ...base, cpu: '96', memory: '1536Gi', 'amd.com/gpu': gpus };
    const labels = {
      'node.kubernetes.io/instance-type': 'sim-mi300x-8',
      'amd.com/gpu.device-id': '74a1',
      'amd.com/gpu.vram': '192G',
      'amd.com/gpu.family': 'AI',
      'amd.com/gpu.product-name': 'AMD_Instinct_MI300X_OAM',
      'feature.node.kubernetes.io/amd-gpu': 'true',
      'feature.node.kubernetes.io/pci-1002.present': 'true',
    };
    out.push({ node: node(`amd-node-${n + 1}`, labels, i, podNetwork), status: nodeStatus(cap, i++, podNetwork) });
  }
  return out;
}

/**
 * The simulated nodes' kubelet endpoints (serving `logs`), for an API server that proxies pods/log to
 * kubelets (kube-apiserver); `tls` issues their certificate for the nodes' InternalIPs. Start them before
 * installSimulatedInfrastructure, which writes their ports into the Nodes.
 */
export async function startSimulatedKubelets(
  logs: PodLogStore,
  tls: (ips: string[]) => Promise<KubeletTlsMaterial>,
  podNetwork = DEFAULT_POD_NETWORK,
  pool: NodePoolSpec = DEFAULT_NODE_POOL,
): Promise<KubeletEndpoints> {
  const nodes = simulatedNodes(pool, podNetwork).map(({ node: n, status }) => ({
    name: n.metadata.name!,
    ip: (status.addresses as Array<{ type: string; address: string }>).find((a) => a.type === 'InternalIP')!.address,
  }));
  return startKubeletEndpoints(logs, await tls(nodes.map((n) => n.ip)), nodes);
}

export function defaultStorageClass(): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: DEFAULT_STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'sim.modelplane.io/hostpath',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    allowVolumeExpansion: true,
  };
}

export function simGatewayObjects(): KubeObject[] {
  const gateway = (g: { namespace: string; name: string }, labels?: Record<string, string>): KubeObject[] => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: g.namespace } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: g.name, namespace: g.namespace, ...(labels ? { labels } : {}) },
      spec: {
        gatewayClassName: SIM_GATEWAY.className,
        listeners: [{ name: 'http', protocol: 'HTTP', port: 80, allowedRoutes: { namespaces: { from: 'All' } } }],
      },
    },
  ];
  return [
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: SIM_GATEWAY.className },
      spec: {
        controllerName: 'sim.modelplane.io/gateway-controller',
        description: 'The simulated Gateway API implementation of modelplane dev',
      },
    },
    // the one ModelDeployments are routed through (docs/kubeairunway.md, "Gateway")
    ...gateway(SIM_GATEWAY, { [INFERENCE_GATEWAY_LABEL]: 'true' }),
    ...gateway(SIM_KSERVE_GATEWAY),
  ];
}

/** Creates the nodes, storage class and gateway (idempotent: server-side apply). */
/**
 * kube-apiserver taints every new Node `node.kubernetes.io/not-ready:NoSchedule` until the node lifecycle
 * controller sees it Ready; with simulated nodes (no kubelet heartbeats) that controller does not run on
 * the real control plane, so the node, Ready from the start, lifts the taint itself (docs/real-kubernetes.md).
 */
async function liftNotReadyTaint(c: KubeClient, node: KubeObject): Promise<void> {
  const taints = (node as { spec?: { taints?: Array<{ key: string }> } }).spec?.taints ?? [];
  if (!taints.some((t) => t.key === NOT_READY_TAINT)) return;
  await c.patch(
    Nodes,
    node.metadata.name!,
    undefined,
    { spec: { taints: taints.filter((t) => t.key !== NOT_READY_TAINT) } },
    'merge',
  );
}

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

export async function installSimulatedInfrastructure(
  client: KubeClient,
  pool: NodePoolSpec = DEFAULT_NODE_POOL,
  podNetwork = DEFAULT_POD_NETWORK,
  /** the port of each node's simulated kubelet endpoint, when one runs (kubelet-endpoint.ts) */
  kubeletPort?: (node: string) => number,
  /** operatorDeployments: the simulated operators' Deployments (operator-deployments.ts), as `modelplane dev` has them */
  extras: { operatorDeployments?: boolean } = {},
): Promise<void> {
  const c = client.withFieldManager('modelplane-dev');
  for (const { node: n, status } of simulatedNodes(pool, podNetwork)) {
    const created = await c.apply(n);
    const port = kubeletPort?.(n.metadata.name!) ?? DEFAULT_KUBELET_PORT;
    await c.applyStatus({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: n.metadata.name },
      status: { ...status, daemonEndpoints: { kubeletEndpoint: { Port: port } } },
    });
    await liftNotReadyTaint(c, created);
  }
  await c.apply(defaultStorageClass());
  for (const o of simGatewayObjects()) await c.apply(o);
  if (extras.operatorDeployments) for (const o of simOperatorObjects()) await c.apply(o);
}

/**
 * A 127.N pod network no other dev cluster on this machine uses: held by a listener on 127.N.255.254:<port>
 * until release(); a network whose claim address is taken belongs to another cluster.
 */
export async function claimPodNetwork(claimPort = 6244): Promise<{ network: string; release(): Promise<void> }> {
  const { createServer } = await import('node:net');
  for (const n of [244, ...Array.from({ length: 240 }, (_, i) => 10 + ((i * 37) % 240))]) {
    // the claim only needs the address bound: a connection to it is closed at once, never held open
    const server = createServer((socket) => socket.destroy());
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(claimPort, `127.${n}.255.254`, () => resolve(true));
    });
    if (ok) return { network: `127.${n}`, release: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  throw new Error(
    'no free 127.N pod network left for a simulated cluster (more than 240 dev clusters on this machine?)',
  );
}
