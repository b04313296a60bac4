// Prometheus HTTP service discovery for the pods of `modelplane dev`: one target per container port (or per
// pod without ports) with the __meta_kubernetes_pod_* labels Prometheus's Kubernetes discovery would attach,
// read from the simulators' informer cache. Used when the installed Prometheus has no Kubernetes discovery.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { serveGuarded } from '@modelplane/runtime/serve';

interface PodLike extends KubeObject {
  spec?: {
    nodeName?: string;
    containers?: Array<{ name: string; ports?: Array<{ containerPort: number; name?: string; protocol?: string }> }>;
  };
  status?: { phase?: string; podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
const DiscoveredPods = kindRef<PodLike>('v1', 'Pod');

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

/** the target groups for these pods (pure) */
export function podTargetGroups(pods: readonly PodLike[]): TargetGroup[] {
  const out: TargetGroup[] = [];
  for (const pod of pods) {
    const ip = pod.status?.podIP;
    if (!ip) continue;
    const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const base: Record<string, string> = {
      __meta_kubernetes_namespace: pod.metadata.namespace ?? '',
      __meta_kubernetes_pod_name: pod.metadata.name ?? '',
      __meta_kubernetes_pod_ip: ip,
      __meta_kubernetes_pod_phase: pod.status?.phase ?? '',
      __meta_kubernetes_pod_ready: String(ready),
      __meta_kubernetes_pod_node_name: pod.spec?.nodeName ?? '',
      __meta_kubernetes_pod_uid: pod.metadata.uid ?? '',
    };
    for (const [k, v] of Object.entries(pod.metadata.labels ?? {}))
      base[`__meta_kubernetes_pod_label_${sanitize(k)}`] = v;
    for (const [k, v] of Object.entries(pod.metadata.annotations ?? {}))
      base[`__meta_kubernetes_pod_annotation_${sanitize(k)}`] = v;
    const ports = (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => ({ c: c.name, p })));
    if (ports.length === 0) out.push({ targets: [ip], labels: base });
    for (const { c, p } of ports) {
      out.push({
        targets: [`${ip}:${p.containerPort}`],
        labels: {
          ...base,
          __meta_kubernetes_pod_container_name: c,
          __meta_kubernetes_pod_container_port_number: String(p.containerPort),
          __meta_kubernetes_pod_container_port_name: p.name ?? '',
          __meta_kubernetes_pod_container_port_protocol: p.protocol ?? 'TCP',
        },
      });
    }
  }
  return out;
}

export interface PodDiscoveryServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startPodDiscovery(mgr: Manager): Promise<PodDiscoveryServer> {
  const server = serveGuarded(
    http.createServer(),
    { name: 'pod discovery', maxBodyBytes: 64 * 1024 },
    async (_req, res) => {
      const pods = await mgr.cache.list(DiscoveredPods);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(podTargetGroups(pods)));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
