// Where a Service port's traffic goes in `modelplane dev`, as kube-proxy would send it: the Ready pods its
// selector picks, at the target port (simulated pods listen on their own loopback IPs). From the selector
// and the pods rather than the Endpoints object: kube-apiserver refuses loopback addresses in Endpoints and
// EndpointSlices, so on the real control plane the simulated pods have none (docs/apiserver.md). Shared by
// the simulated Llama Stack server (its providers' URLs) and the Gateway data plane (Service backends).

import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';

interface ServiceShape extends KubeObject {
  spec?: {
    selector?: Record<string, string>;
    ports?: Array<{ port: number; name?: string; targetPort?: number | string }>;
  };
}
interface BackendPod extends KubeObject {
  spec?: { containers?: Array<{ ports?: Array<{ containerPort: number; name?: string }> }> };
  status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}
const ServicesRef = kindRef<ServiceShape>('v1', 'Service');
const BackendPods = kindRef<BackendPod>('v1', 'Pod');

/** every ready backend of a Service port: `http://<pod IP>:<target port>` (empty when none) */
export type ServiceBackends = (namespace: string, service: string, port: number) => Promise<string[]>;

const ready = (p: BackendPod) =>
  Boolean(p.status?.podIP) &&
  !p.metadata.deletionTimestamp &&
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** the port a pod receives a Service port's traffic on: a number, or a named container port */
function targetPort(pod: BackendPod, sp: { port: number; targetPort?: number | string }): number {
  if (typeof sp.targetPort === 'number') return sp.targetPort;
  if (sp.targetPort === undefined) return sp.port;
  const named = (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []).find((p) => p.name === sp.targetPort);
  return named?.containerPort ?? sp.port;
}

export function serviceBackends(mgr: Pick<Manager, 'cache'>): ServiceBackends {
  return async (ns, name, port) => {
    const svc = await mgr.cache.get(ServicesRef, name, ns);
    const sp = svc?.spec?.ports?.find((p) => p.port === port);
    const selector = Object.entries(svc?.spec?.selector ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    if (!sp || !selector) return [];
    const pods = await mgr.cache.list(BackendPods, { namespace: ns, labelSelector: selector });
    return pods.filter(ready).map((pod) => `http://${pod.status!.podIP}:${targetPort(pod, sp)}`);
  };
}
