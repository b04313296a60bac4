// HTTPRoute status from the simulated Gateway API implementation: one status.parents[] entry per
// parentRef that names a Gateway of a simulated GatewayClass (or a Gateway that does not exist), with
// Accepted (attachment rules) and ResolvedRefs (backend Services, ReferenceGrants). Entries written by
// other implementations are kept.

import { ReverseIndex } from '@modelplane/apimachinery';
import {
  generationChanged,
  ignoreOwnStatusWrites,
  type ReconcileContext,
  type Request,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { deepEqual } from '@modelplane/runtime/meta';
import { buildConditions, type ConditionInput } from './conditions.ts';
import { isSimGatewayClass } from './gateway.ts';
import {
  type Attachment,
  attach,
  type BackendRef,
  isGatewayRef,
  type Listener,
  type ParentRef,
  resolveBackends,
} from './gateway-attach.ts';
import { type Condition, Gateways, HTTPRoutes, ReferenceGrants, SimNamespaces, SimServices } from './kinds.ts';
import { SIM_CONCURRENCY, type SimulatorOptions } from './options.ts';
import { applyStatus } from './workload.ts';

export const HTTPROUTE_CONTROLLER = 'sim-httproute';

interface ParentStatus {
  parentRef: ParentRef;
  controllerName: string;
  conditions?: Condition[];
}

export function registerHTTPRouteSimulator(mgr: Manager, opts: SimulatorOptions): void {
  const refs = new ReverseIndex();
  const existence = { predicates: [(ev: { type: string }) => ev.type !== 'update'] };
  mgr
    .controller(HTTPROUTE_CONTROLLER)
    .for(HTTPRoutes, { predicates: [ignoreOwnStatusWrites(HTTPROUTE_CONTROLLER)] })
    .watches(Gateways, (gw) => refs.holdersOf(`gateway:${gw.metadata.namespace}/${gw.metadata.name}`), {
      predicates: [generationChanged()],
    })
    .watches(SimServices, (svc) => refs.holdersOf(`service:${svc.metadata.namespace}/${svc.metadata.name}`), existence)
    .watches(ReferenceGrants, (g) => refs.holdersOf(`grants:${g.metadata.namespace}`))
    .withOptions({ concurrency: SIM_CONCURRENCY })
    .complete((req, ctx) => reconcileHTTPRoute(req, ctx, opts, refs));
}

function sameParent(a: ParentRef, b: ParentRef, routeNs: string): boolean {
  const norm = (r: ParentRef) => ({
    group: r.group ?? 'gateway.networking.k8s.io',
    kind: r.kind ?? 'Gateway',
    namespace: r.namespace ?? routeNs,
    name: r.name,
    sectionName: r.sectionName,
    port: r.port,
  });
  return deepEqual(norm(a), norm(b));
}

function acceptedCondition(a: Attachment): ConditionInput {
  return a.accepted
    ? {
        type: 'Accepted',
        status: true,
        reason: 'Accepted',
        message: `Route attached to listener(s) ${a.listeners.join(', ')}`,
      }
    : { type: 'Accepted', status: false, reason: a.reason, message: a.message };
}

async function reconcileHTTPRoute(req: Request, ctx: ReconcileContext, opts: SimulatorOptions, refs: ReverseIndex) {
  const key = `${req.namespace}/${req.name}`;
  const route = await ctx.cache.get(HTTPRoutes, req.name, req.namespace);
  if (!route) {
    refs.delete(key);
    return;
  }
  const ns = req.namespace;
  const spec = (route.spec ?? {}) as {
    parentRefs?: ParentRef[];
    hostnames?: string[];
    rules?: Array<{ backendRefs?: BackendRef[] }>;
  };
  const parentRefs = (spec.parentRefs ?? []).filter(isGatewayRef);
  const backends = (spec.rules ?? []).flatMap((r) => r.backendRefs ?? []);
  const crossNs = [...new Set(backends.map((b) => b.namespace ?? ns).filter((n) => n !== ns))];
  refs.set(key, [
    ...parentRefs.map((r) => `gateway:${r.namespace ?? ns}/${r.name}`),
    ...backends.map((b) => `service:${b.namespace ?? ns}/${b.name}`),
    ...crossNs.map((n) => `grants:${n}`),
  ]);

  // gather what the pure rules need from the cache
  const services = new Set<string>();
  for (const b of backends) {
    const bns = b.namespace ?? ns;
    if (await ctx.cache.get(SimServices, b.name, bns)) services.add(`${bns}/${b.name}`);
  }
  const grants = (await Promise.all(crossNs.map((n) => ctx.cache.list(ReferenceGrants, { namespace: n })))).flat();
  const resolution = resolveBackends(ns, backends, {
    serviceExists: (n, name) => services.has(`${n}/${name}`),
    granted: (from, to, name) =>
      grants.some((g) => {
        if (g.metadata.namespace !== to) return false;
        const gs = (g.spec ?? {}) as {
          from?: Array<{ group: string; kind: string; namespace: string }>;
          to?: Array<{ group: string; kind: string; name?: string }>;
        };
        const fromOk = (gs.from ?? []).some(
          (f) => f.group === 'gateway.networking.k8s.io' && f.kind === 'HTTPRoute' && f.namespace === from,
        );
        const toOk = (gs.to ?? []).some((t) => t.group === '' && t.kind === 'Service' && (!t.name || t.name === name));
        return fromOk && toOk;
      }),
  });
  const resolved: ConditionInput = resolution.resolved
    ? { type: 'ResolvedRefs', status: true, reason: 'ResolvedRefs', message: 'All references resolved' }
    : { type: 'ResolvedRefs', status: false, reason: resolution.reason, message: resolution.message };

  const previous = (route.status?.parents as ParentStatus[] | undefined) ?? [];
  const ours: ParentStatus[] = [];
  let nsLabels: Record<string, string> | undefined;
  for (const ref of parentRefs) {
    const gwNs = ref.namespace ?? ns;
    const gw = await ctx.cache.get(Gateways, ref.name, gwNs);
    const gwSpec = (gw?.spec ?? {}) as { gatewayClassName?: string; listeners?: Listener[] };
    if (gw && !(await isSimGatewayClass(ctx, gwSpec.gatewayClassName, opts))) continue;
    let accepted: ConditionInput;
    if (!gw) {
      accepted = {
        type: 'Accepted',
        status: false,
        reason: 'NoMatchingParent',
        message: `Gateway ${gwNs}/${ref.name} not found`,
      };
    } else {
      const listeners = gwSpec.listeners ?? [];
      if (nsLabels === undefined && listeners.some((l) => l.allowedRoutes?.namespaces?.from === 'Selector')) {
        nsLabels = (await ctx.cache.get(SimNamespaces, ns))?.metadata.labels ?? {};
      }
      accepted = acceptedCondition(
        attach(
          { namespace: ns, ...(spec.hostnames ? { hostnames: spec.hostnames } : {}) },
          ref,
          { namespace: gwNs, name: ref.name, listeners },
          nsLabels,
        ),
      );
    }
    const prev = previous.find(
      (p) => p.controllerName === opts.gatewayControllerName && sameParent(p.parentRef, ref, ns),
    );
    ours.push({
      parentRef: { ...ref },
      controllerName: opts.gatewayControllerName,
      conditions: buildConditions(prev?.conditions, [accepted, resolved], {
        observedGeneration: route.metadata.generation ?? 1,
      }),
    });
  }
  const others = previous.filter((p) => p.controllerName !== opts.gatewayControllerName);
  if (ours.length === 0 && others.length === previous.length) return;
  await applyStatus(ctx, route, { parents: [...others, ...ours] });
}
