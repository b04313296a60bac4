// What the Gateway data plane reads from the simulators' cache: the HTTPRoutes a Gateway has accepted, and
// the addresses behind a backendRef (a Service's Ready selected pods, or the ready pods an InferencePool
// selects at its target port).
import type { Manager } from '@modelplane/runtime/manager';
import { isGatewayRef, type ParentRef } from '../operators/gateway-attach.ts';
import { HTTPRoutes, InferencePools, type Pod, SimPods } from '../operators/kinds.ts';
import { type ServiceBackends, serviceBackends } from '../service-backends.ts';
import type { AttachedRoute, BackendRef, RouteRule } from './routing.ts';

/** the embedded API server's Service → local URL registry (servers that cannot listen on a pod IP) */
export interface LocalServiceRegistry {
  resolve(namespace: string, name: string, port?: number): string | undefined;
}

interface RouteStatusParent {
  parentRef: ParentRef;
  conditions?: Array<{ type: string; status: string }>;
}

const POOL_GROUP = 'inference.networking.k8s.io';

export class BackendResolver {
  private readonly services: ServiceBackends;

  constructor(
    private readonly mgr: Pick<Manager, 'cache'>,
    private readonly local?: LocalServiceRegistry,
  ) {
    this.services = serviceBackends(mgr);
  }

  /** the routes attached to Gateway namespace/name that it has accepted (Accepted=True for that parent) */
  async attachedRoutes(namespace: string, name: string): Promise<AttachedRoute[]> {
    const out: AttachedRoute[] = [];
    for (const r of await this.mgr.cache.list(HTTPRoutes)) {
      const ns = r.metadata.namespace ?? '';
      const ours = (ref: ParentRef) => isGatewayRef(ref) && (ref.namespace ?? ns) === namespace && ref.name === name;
      const spec = (r.spec ?? {}) as { parentRefs?: ParentRef[]; hostnames?: string[]; rules?: RouteRule[] };
      if (!(spec.parentRefs ?? []).some(ours)) continue;
      const parents = ((r.status as { parents?: RouteStatusParent[] } | undefined)?.parents ?? []).filter((p) =>
        ours(p.parentRef),
      );
      if (!parents.some((p) => p.conditions?.some((c) => c.type === 'Accepted' && c.status === 'True'))) continue;
      out.push({
        namespace: ns,
        name: r.metadata.name ?? '',
        ...(r.metadata.creationTimestamp ? { creationTimestamp: r.metadata.creationTimestamp } : {}),
        ...(spec.hostnames ? { hostnames: spec.hostnames } : {}),
        rules: spec.rules ?? [],
      });
    }
    return out;
  }

  /** base URLs (`http://ip:port`) that serve `ref` of a route in `routeNamespace`; empty when none is ready */
  async resolve(ref: BackendRef, routeNamespace: string): Promise<string[]> {
    const ns = ref.namespace ?? routeNamespace;
    const group = ref.group ?? '';
    const kind = ref.kind ?? 'Service';
    if (group === POOL_GROUP && kind === 'InferencePool') return this.poolEndpoints(ns, ref.name);
    if (group !== '' || kind !== 'Service') return [];
    const port = ref.port ?? 80;
    const found = await this.services(ns, ref.name, port);
    if (found.length > 0) return found;
    const local = this.local?.resolve(ns, ref.name, port);
    return local ? [local] : [];
  }

  private async poolEndpoints(namespace: string, name: string): Promise<string[]> {
    const pool = await this.mgr.cache.get(InferencePools, name, namespace);
    const spec = (pool?.spec ?? {}) as {
      selector?: { matchLabels?: Record<string, string> };
      targetPorts?: Array<{ number: number }>;
    };
    const selector = Object.entries(spec.selector?.matchLabels ?? {});
    const port = spec.targetPorts?.[0]?.number;
    if (!pool || selector.length === 0 || !port) return [];
    const pods = (await this.mgr.cache.list(SimPods, { namespace })) as Pod[];
    return pods
      .filter(
        (p) =>
          !p.metadata.deletionTimestamp &&
          p.status?.podIP &&
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
          selector.every(([k, v]) => p.metadata.labels?.[k] === v),
      )
      .map((p) => `http://${p.status!.podIP}:${port}`);
  }
}
