// The simulated Gateway API implementation: GatewayClasses naming its controllerName are Accepted, and
// their Gateways become Accepted, then Programmed with an address after a short delay, with per-listener
// status (supported kinds, attached route count). HTTPRoute status lives in httproute.ts.

import { ReverseIndex } from '@modelplane/apimachinery';
import {
  generationChanged,
  ignoreOwnStatusWrites,
  type ReconcileContext,
  type Request,
} from '@modelplane/runtime/controller';
import type { Manager } from '@modelplane/runtime/manager';
import { buildConditions, type ConditionInput } from './conditions.ts';
import {
  attach,
  defaultRouteKinds,
  GATEWAY_GROUP,
  isGatewayRef,
  type Listener,
  type ParentRef,
} from './gateway-attach.ts';
import {
  type Condition,
  GatewayClasses,
  Gateways,
  HTTPRoutes,
  type Json,
  SimNamespaces,
  type WithStatus,
} from './kinds.ts';
import type { SimulatorOptions } from './options.ts';
import { applyStatus } from './workload.ts';

export const GATEWAY_CLASS_CONTROLLER = 'sim-gatewayclass';
export const GATEWAY_CONTROLLER = 'sim-gateway';
export const DEFAULT_GATEWAY_CONTROLLER_NAME = 'sim.modelplane.io/gateway-controller';
const BUNDLE_VERSION = 'v1.4.1';

export function registerGatewaySimulators(mgr: Manager, opts: SimulatorOptions): void {
  mgr
    .controller(GATEWAY_CLASS_CONTROLLER)
    .for(GatewayClasses, { predicates: [ignoreOwnStatusWrites(GATEWAY_CLASS_CONTROLLER)] })
    .complete((req, ctx) => reconcileGatewayClass(req, ctx, opts));

  const byClass = new ReverseIndex();
  mgr
    .controller(GATEWAY_CONTROLLER)
    .for(Gateways, { predicates: [ignoreOwnStatusWrites(GATEWAY_CONTROLLER)] })
    .watches(GatewayClasses, (gc) => byClass.holdersOf(gc.metadata.name ?? ''))
    .watches(
      HTTPRoutes,
      (route) =>
        ((route.spec?.parentRefs as ParentRef[] | undefined) ?? [])
          .filter(isGatewayRef)
          .map((r) => `${r.namespace ?? route.metadata.namespace}/${r.name}`),
      // attached-route counts depend on route specs only, not on the route status the route controller writes
      { predicates: [generationChanged()] },
    )
    .complete((req, ctx) => reconcileGateway(req, ctx, opts, byClass));
}

/** does the GatewayClass of this name belong to the simulated implementation? */
export async function isSimGatewayClass(
  ctx: ReconcileContext,
  className: string | undefined,
  opts: SimulatorOptions,
): Promise<boolean> {
  if (!className) return false;
  const gc = await ctx.cache.get(GatewayClasses, className);
  return (gc?.spec as { controllerName?: string } | undefined)?.controllerName === opts.gatewayControllerName;
}

async function reconcileGatewayClass(req: Request, ctx: ReconcileContext, opts: SimulatorOptions) {
  const gc = await ctx.cache.get(GatewayClasses, req.name);
  if (!gc || (gc.spec as { controllerName?: string } | undefined)?.controllerName !== opts.gatewayControllerName)
    return;
  const generation = gc.metadata.generation ?? 1;
  await applyStatus(ctx, gc, {
    conditions: buildConditions(
      gc.status?.conditions,
      [
        {
          type: 'Accepted',
          status: true,
          reason: 'Accepted',
          message: 'Handled by the modelplane simulated Gateway API controller',
        },
        {
          type: 'SupportedVersion',
          status: true,
          reason: 'SupportedVersion',
          message: `Gateway API bundle ${BUNDLE_VERSION} is supported`,
        },
      ],
      { observedGeneration: generation },
    ),
    supportedFeatures: [{ name: 'Gateway' }, { name: 'HTTPRoute' }, { name: 'ReferenceGrant' }],
  });
}

/** a stable, made-up load balancer address for a Gateway */
export function simulatedAddress(namespace: string, name: string): string {
  let h = 2166136261;
  for (const ch of `${namespace}/${name}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return `172.18.${(h >>> 8) % 256}.${10 + (h % 240)}`;
}

async function attachedRouteCounts(
  ctx: ReconcileContext,
  gw: WithStatus,
  listeners: Listener[],
): Promise<Map<string, number>> {
  const counts = new Map(listeners.map((l) => [l.name, 0]));
  const ns = gw.metadata.namespace ?? '';
  const needLabels = listeners.some((l) => l.allowedRoutes?.namespaces?.from === 'Selector');
  const nsLabels = needLabels
    ? new Map((await ctx.cache.list(SimNamespaces)).map((n) => [n.metadata.name ?? '', n.metadata.labels ?? {}]))
    : undefined;
  for (const route of await ctx.cache.list(HTTPRoutes)) {
    const routeNs = route.metadata.namespace ?? '';
    const attachedTo = new Set<string>();
    for (const ref of (route.spec?.parentRefs as ParentRef[] | undefined) ?? []) {
      if (!isGatewayRef(ref) || (ref.namespace ?? routeNs) !== ns || ref.name !== gw.metadata.name) continue;
      const a = attach(
        { namespace: routeNs, hostnames: route.spec?.hostnames as string[] | undefined },
        ref,
        { namespace: ns, name: gw.metadata.name ?? '', listeners },
        nsLabels?.get(routeNs),
      );
      if (a.accepted) for (const l of a.listeners) attachedTo.add(l);
    }
    for (const l of attachedTo) counts.set(l, (counts.get(l) ?? 0) + 1);
  }
  return counts;
}

/** where the programmed Gateway answers: the data plane's listeners, else spec.addresses, else a made-up one */
async function gatewayAddresses(
  req: Request,
  spec: { listeners?: Listener[]; addresses?: Array<{ type?: string; value?: string }> },
  opts: SimulatorOptions,
): Promise<Array<{ type: string; value: string }>> {
  if (opts.gatewayAddresses)
    return opts.gatewayAddresses.addresses(req.namespace ?? '', req.name, spec.listeners ?? []);
  const requested = (spec.addresses ?? [])
    .filter((a) => a.value)
    .map((a) => ({ type: a.type ?? 'IPAddress', value: a.value as string }));
  return requested.length > 0
    ? requested
    : [{ type: 'IPAddress', value: simulatedAddress(req.namespace ?? '', req.name) }];
}

type GatewaySpec = {
  gatewayClassName?: string;
  listeners?: Listener[];
  addresses?: Array<{ type?: string; value?: string }>;
};

async function reconcileGateway(req: Request, ctx: ReconcileContext, opts: SimulatorOptions, byClass: ReverseIndex) {
  const key = `${req.namespace}/${req.name}`;
  const gw = await ctx.cache.get(Gateways, req.name, req.namespace);
  if (!gw) {
    byClass.delete(key);
    opts.clock.forget(req.namespace, req.name);
    await opts.gatewayAddresses?.release(req.namespace, req.name);
    return;
  }
  const spec = (gw.spec ?? {}) as GatewaySpec;
  // a GatewayClass event reconciles its Gateways (the class may be created or accepted after them)
  byClass.set(key, [spec.gatewayClassName ?? '']);
  if (!(await isSimGatewayClass(ctx, spec.gatewayClassName, opts))) return;
  const listeners = spec.listeners ?? [];
  const generation = gw.metadata.generation ?? 1;
  const wait = opts.clock.remaining(gw, 'program', opts.delays.gatewayProgramMs);
  const programmed = wait === 0;
  const counts = await attachedRouteCounts(ctx, gw, listeners);
  const prevListeners = (gw.status?.listeners as Array<{ name: string; conditions?: Condition[] }> | undefined) ?? [];
  const listenerStatus = listeners.map((l) => ({
    name: l.name,
    supportedKinds: defaultRouteKinds(l.protocol).map((kind) => ({ group: GATEWAY_GROUP, kind })),
    attachedRoutes: counts.get(l.name) ?? 0,
    conditions: buildConditions(
      prevListeners.find((p) => p.name === l.name)?.conditions,
      listenerConditions(l, programmed),
      {
        observedGeneration: generation,
      },
    ),
  }));
  const anyValid = listeners.some((l) => defaultRouteKinds(l.protocol).length > 0);
  const status: Json = {
    addresses: programmed && anyValid ? await gatewayAddresses(req, spec, opts) : [],
    conditions: buildConditions(gw.status?.conditions, gatewayConditions(anyValid, programmed), {
      observedGeneration: generation,
    }),
    listeners: listenerStatus,
  };
  await applyStatus(ctx, gw, status);
  return wait > 0 ? { requeueAfter: wait } : undefined;
}

/** A listener whose protocol has no route kind is not accepted; the others are programmed with the Gateway. */
function listenerConditions(l: Listener, programmed: boolean): ConditionInput[] {
  if (defaultRouteKinds(l.protocol).length === 0) {
    const message = `protocol ${l.protocol} is not supported`;
    return [
      { type: 'Accepted', status: false, reason: 'UnsupportedProtocol', message },
      { type: 'Programmed', status: false, reason: 'Invalid', message },
    ];
  }
  return [
    { type: 'Accepted', status: true, reason: 'Accepted', message: 'Listener accepted' },
    programmed
      ? { type: 'Programmed', status: true, reason: 'Programmed', message: 'Listener programmed' }
      : { type: 'Programmed', status: false, reason: 'Pending', message: 'Waiting for the data plane' },
    { type: 'ResolvedRefs', status: true, reason: 'ResolvedRefs', message: 'All references resolved' },
    { type: 'Conflicted', status: false, reason: 'NoConflicts', message: 'No conflicts' },
  ];
}

/** The Gateway is accepted when one listener is valid, and programmed once the data plane delay has passed. */
function gatewayConditions(anyValid: boolean, programmed: boolean): ConditionInput[] {
  return [
    anyValid
      ? {
          type: 'Accepted',
          status: true,
          reason: 'Accepted',
          message: 'Gateway accepted by the modelplane simulated controller',
        }
      : {
          type: 'Accepted',
          status: false,
          reason: 'ListenersNotValid',
          message: 'no listener has a supported protocol',
        },
    programmed && anyValid
      ? { type: 'Programmed', status: true, reason: 'Programmed', message: 'Address assigned to the Gateway' }
      : {
          type: 'Programmed',
          status: false,
          reason: anyValid ? 'Pending' : 'Invalid',
          message: anyValid ? 'Waiting for an address to be assigned' : 'no listener can be programmed',
        },
  ];
}
