// Where a Service port's traffic goes in `modelplane dev`, as kube-proxy would send it: the ready addresses
// of its Endpoints at the target port (simulated pods listen on their own loopback IPs). Shared by the
// simulated Llama Stack server (its providers' URLs) and the Gateway data plane (Service backends).
import { kindRef, type KubeObject, type Manager } from '../kube/index.ts';

interface ServiceShape extends KubeObject {
  spec?: { ports?: Array<{ port: number; name?: string; targetPort?: number | string }> };
}
interface EndpointsShape extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ port: number; name?: string }> }>;
}
const ServicesRef = kindRef<ServiceShape>('v1', 'Service');
const EndpointsRef = kindRef<EndpointsShape>('v1', 'Endpoints');

/** every ready backend of a Service port: `http://<pod IP>:<target port>` (empty when none) */
export type ServiceBackends = (namespace: string, service: string, port: number) => Promise<string[]>;

export function serviceBackends(mgr: Pick<Manager, 'cache'>): ServiceBackends {
  return async (ns, name, port) => {
    const svc = await mgr.cache.get(ServicesRef, name, ns);
    const sp = svc?.spec?.ports?.find((p) => p.port === port);
    if (!sp) return [];
    const eps = await mgr.cache.get(EndpointsRef, name, ns);
    const out: string[] = [];
    for (const subset of eps?.subsets ?? []) {
      const target =
        typeof sp.targetPort === 'number'
          ? sp.targetPort
          : (subset.ports?.find((p) => p.name === (sp.targetPort ?? sp.name))?.port ?? subset.ports?.[0]?.port ?? port);
      for (const a of subset.addresses ?? []) out.push(`http://${a.ip}:${target}`);
    }
    return out;
  };
}
