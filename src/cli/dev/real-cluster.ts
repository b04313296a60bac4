// `modelplane dev --cluster real`: the dev cluster on a real etcd + kube-apiserver +
// kube-controller-manager (packages/apiserver/src/real, built by `npm run build:kube`). Kubernetes' own
// controllers (Deployments, ReplicaSets, Jobs, endpoints, namespaces, garbage collection, HPA) are the
// real ones; only what a cluster's nodes would do (scheduler, kubelet, volume provisioning) and the
// external operators stay simulated. See docs/real-kubernetes.md.
import { randomInt } from 'node:crypto';
import { ServiceEndpoints } from '@modelplane/apiserver';
import {
  installKedaCrds,
  type RealControlPlane,
  type RealKeda,
  startRealControlPlane,
  startRealKeda,
} from '@modelplane/apiserver/real';
import type { KubeClient } from '@modelplane/runtime/client';
import { PodLogStore, type WorkloadSimulator } from '@modelplane/sim/workloads';
import { DEFAULT_POD_NAMESPACE } from '../../controllers/operator.ts';
import { WEBHOOK_SERVICE } from '../../controllers/webhooks.ts';
import { type DevCluster, type DevClusterOptions, populateDevCluster } from './cluster.ts';

/** what the real control plane leaves to the simulators: the parts a node (and a volume provisioner) plays */
export const REAL_CLUSTER_WORKLOAD_SIMULATORS: readonly WorkloadSimulator[] = ['scheduler', 'kubelet', 'volumes'];

/**
 * A loopback address of its own for one webhook server (127.0.0.0/8 is all loopback on Linux), so it can
 * listen on 443 — the port the webhook configurations name — beside other clusters' webhook servers.
 */
export function loopbackWebhookHost(): string {
  return `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

/**
 * Points a Service at a webhook server on this machine: kube-apiserver resolves an ExternalName Service to
 * its name and the port the webhook configuration names (443), and checks the serving certificate against
 * `<service>.<namespace>.svc`, exactly as for an in-cluster Service.
 */
export async function exposeWebhookService(
  client: KubeClient,
  namespace: string,
  name: string,
  host: string,
): Promise<void> {
  await client.withFieldManager('modelplane-dev').apply({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { type: 'ExternalName', externalName: host, ports: [{ name: 'https', port: 443, targetPort: 443 }] },
  });
}

export async function startRealDevCluster(
  opts: DevClusterOptions & { binDir?: string; controllerManagerArgs?: string[] },
): Promise<DevCluster<RealControlPlane>> {
  if (opts.dataDir)
    throw new Error(
      '--data-dir is not supported with --cluster real: the real control plane keeps its etcd data in a temporary directory',
    );
  const server = await startRealControlPlane({
    port: opts.port,
    ...(opts.binDir ? { binDir: opts.binDir } : {}),
    ...(opts.controllerManagerArgs ? { controllerManagerArgs: opts.controllerManagerArgs } : {}),
  });
  let keda: RealKeda | undefined;
  try {
    if (opts.keda === 'real') await installKedaCrds(server);
    const host = loopbackWebhookHost();
    const webhook = (manager: { client: KubeClient }) => ({
      port: 443,
      host,
      onListening: () => exposeWebhookService(manager.client, DEFAULT_POD_NAMESPACE, WEBHOOK_SERVICE, host),
    });
    const serviceEndpoints = new ServiceEndpoints();
    const parts = await populateDevCluster(server, opts, {
      logs: new PodLogStore(),
      serviceEndpoints,
      webhook,
      workloads: REAL_CLUSTER_WORKLOAD_SIMULATORS,
      kubeletTls: (ips) => server.kubeletTls(ips),
      realHpaController: true,
    });
    // a real KEDA (opts.keda 'real'): its CRDs before any simulator watches ScaledObjects, its processes
    // once the cluster is populated
    keda = opts.keda === 'real' ? await startRealKeda(server) : undefined;
    const stopAll = async () => {
      await keda?.stop();
      await parts.stop();
      await server.stop();
    };
    return { server, serviceEndpoints, ...parts, stop: stopAll };
  } catch (err) {
    await keda?.stop();
    await server.stop();
    throw err;
  }
}
