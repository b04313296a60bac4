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

interface RouteSpec {
  parentRefs?: ParentRef[];
  hostnames?: string[];
  rules?: Array<{ backendRefs?: BackendRef[] }>;
}

async function reconcileHTTPRoute(req: Request, ctx: ReconcileContext, opts: SimulatorOptions, refs: ReverseIndex) {
  const key = `${req.namespace}/${req.name}`;
  const route = await ctx.cache.get(HTTPRoutes, req.name, req.namespace);
  if (!route) {
    refs.delete(key);
    return;
  }
  const ns = req.namespace;
  const spec = (route.spec ?? {}) as RouteSpec;
  const parentRefs = (spec.parentRefs ?? []).filter(isGatewayRef);
  const backends = (spec.rules ?? []).flatMap((r) => r.backendRefs ?? []);
  const crossNs = [...new Set(backends.map((b) => b.namespace ?? ns).filter((n) => n !== ns))];
  // the Gateways, Services and namespaces' ReferenceGrants whose events reconcile this route again
  refs.set(key, [
    ...parentRefs.map((r) => `gateway:${r.namespace ?? ns}/${r.name}`),
    ...backends.map((b) => `service:${b.namespace ?? ns}/${b.name}`),
    ...crossNs.map((n) => `grants:${n}`),
  ]);
  const resolved = await resolvedRefsCondition(ctx, ns, backends, crossNs);
  const previous = (route.status?.parents as ParentStatus[] | undefined) ?? [];
  const ours: ParentStatus[] = [];
  const namespaceLabels = memo(async () => (await ctx.cache.get(SimNamespaces, ns))?.metadata.labels ?? {});
  for (const ref of parentRefs) {
    const accepted = await acceptedByParent(ctx, opts, ns, spec, ref, namespaceLabels);
    if (!accepted) continue;
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
  // entries other implementations wrote stay as they are
  const others = previous.filter((p) => p.controllerName !== opts.gatewayControllerName);
  if (ours.length === 0 && others.length === previous.length) return;
  await applyStatus(ctx, route, { parents: [...others, ...ours] });
}

/** A value computed once, on first use. */
function memo<T>(compute: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= compute());
}

/** ResolvedRefs: the pure rules of resolveBackends over what the cache holds (Services, ReferenceGrants). */
async function resolvedRefsCondition(
  ctx: ReconcileContext,
  ns: string,
  backends: BackendRef[],
  crossNs: string[],
): Promise<ConditionInput> {
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
  return resolution.resolved
    ? { type: 'ResolvedRefs', status: true, reason: 'ResolvedRefs', message: 'All references resolved' }
    : { type: 'ResolvedRefs', status: false, reason: resolution.reason, message: resolution.message };
}

/**
 * Accepted for one parentRef, or undefined when the Gateway belongs to another implementation's class (its
 * status entry is not ours to write). A missing Gateway is NoMatchingParent.
 */
async function acceptedByParent(
  ctx: ReconcileContext,
  opts: SimulatorOptions,
  ns: string,
  spec: RouteSpec,
  ref: ParentRef,
  namespaceLabels: () => Promise<Record<string, string>>,
): Promise<ConditionInput | undefined> {
  const gwNs = ref.namespace ?? ns;
  const gw = await ctx.cache.get(Gateways, ref.name, gwNs);
  if (!gw) {
    const message = `Gateway ${gwNs}/${ref.name} not found`;
    return { type: 'Accepted', status: false, reason: 'NoMatchingParent', message };
  }
  const gwSpec = (gw.spec ?? {}) as { gatewayClassName?: string; listeners?: Listener[] };
  if (!(await isSimGatewayClass(ctx, gwSpec.gatewayClassName, opts))) return undefined;
  const listeners = gwSpec.listeners ?? [];
  // the route's namespace labels matter only to listeners that select namespaces
  const nsLabels = listeners.some((l) => l.allowedRoutes?.namespaces?.from === 'Selector')
    ? await namespaceLabels()
    : undefined;
  const route = { namespace: ns, ...(spec.hostnames ? { hostnames: spec.hostnames } : {}) };
  return acceptedCondition(attach(route, ref, { namespace: gwNs, name: ref.name, listeners }, nsLabels));
}
