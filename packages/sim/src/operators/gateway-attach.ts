// Gateway API attachment rules, pure: may an HTTPRoute attach to a Gateway through a parentRef (listener
// selection by sectionName/port, allowedRoutes namespaces and kinds, hostname intersection), and do its
// backendRefs resolve (Service exists, cross-namespace references granted by a ReferenceGrant).

import { type LabelSelectorObject, selectorFromObject } from '@modelplane/runtime/meta';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

export interface ParentRef {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

export interface Listener {
  name: string;
  hostname?: string;
  port: number;
  protocol: string;
  allowedRoutes?: {
    namespaces?: { from?: 'Same' | 'All' | 'Selector' | 'None'; selector?: LabelSelectorObject };
    kinds?: Array<{ group?: string; kind: string }>;
  };
}

export interface BackendRef {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
  port?: number;
}

export type Attachment =
  | { accepted: true; listeners: string[] }
  | {
      accepted: false;
      reason: 'NoMatchingParent' | 'NotAllowedByListeners' | 'NoMatchingListenerHostname';
      message: string;
    };

/** is this parentRef one of a Gateway (the defaults make an unqualified ref a Gateway ref)? */
export function isGatewayRef(ref: ParentRef): boolean {
  return (ref.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (ref.kind ?? 'Gateway') === 'Gateway';
}

/** the route kinds a listener supports by protocol when allowedRoutes.kinds is empty */
export function defaultRouteKinds(protocol: string): string[] {
  switch (protocol) {
    case 'HTTP':
    case 'HTTPS':
      return ['HTTPRoute', 'GRPCRoute'];
    case 'TLS':
      return ['TLSRoute'];
    case 'TCP':
      return ['TCPRoute'];
    case 'UDP':
      return ['UDPRoute'];
    default:
      return [];
  }
}

function hostnamesIntersect(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.startsWith('*.') && b.endsWith(a.slice(1))) return true;
  return b.startsWith('*.') && a.endsWith(b.slice(1));
}

function allowsNamespace(
  l: Listener,
  gatewayNs: string,
  routeNs: string,
  routeNsLabels: Record<string, string> | undefined,
): boolean {
  const from = l.allowedRoutes?.namespaces?.from ?? 'Same';
  if (from === 'All') return true;
  if (from === 'Same') return routeNs === gatewayNs;
  if (from === 'Selector') {
    const sel = l.allowedRoutes?.namespaces?.selector;
    if (!sel) return false;
    try {
      return selectorFromObject(sel).matches(routeNsLabels);
    } catch {
      return false;
    }
  }
  return false;
}

function allowsKind(l: Listener, kind: string): boolean {
  const kinds = l.allowedRoutes?.kinds ?? [];
  if (kinds.length === 0) return defaultRouteKinds(l.protocol).includes(kind);
  return kinds.some((k) => (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && k.kind === kind);
}

/**
 * Can a route (`routeNs`, `hostnames`) attach through `ref` to a Gateway in `gatewayNs` with `listeners`?
 * `routeNsLabels` are the labels of the route's namespace (for `from: Selector`).
 */
export function attach(
  route: { namespace: string; hostnames?: string[]; kind?: string },
  ref: ParentRef,
  gateway: { namespace: string; name: string; listeners: Listener[] },
  routeNsLabels?: Record<string, string>,
): Attachment {
  const where = `Gateway ${gateway.namespace}/${gateway.name}`;
  const candidates = gateway.listeners.filter(
    (l) =>
      (ref.sectionName === undefined || l.name === ref.sectionName) && (ref.port === undefined || l.port === ref.port),
  );
  if (candidates.length === 0) {
    const what = [
      ref.sectionName !== undefined ? `sectionName "${ref.sectionName}"` : '',
      ref.port !== undefined ? `port ${ref.port}` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return {
      accepted: false,
      reason: 'NoMatchingParent',
      message: `${where} has no listener matching ${what || 'the parentRef'}`,
    };
  }
  const kind = route.kind ?? 'HTTPRoute';
  const allowed = candidates.filter(
    (l) => allowsNamespace(l, gateway.namespace, route.namespace, routeNsLabels) && allowsKind(l, kind),
  );
  if (allowed.length === 0) {
    return {
      accepted: false,
      reason: 'NotAllowedByListeners',
      message: `no listener of ${where} allows ${kind}s from namespace ${route.namespace}`,
    };
  }
  const hostnames = route.hostnames ?? [];
  const matching = allowed.filter(
    (l) => !l.hostname || hostnames.length === 0 || hostnames.some((h) => hostnamesIntersect(h, l.hostname!)),
  );
  if (matching.length === 0) {
    return {
      accepted: false,
      reason: 'NoMatchingListenerHostname',
      message: `none of the route's hostnames (${hostnames.join(', ')}) matches a listener hostname of ${where}`,
    };
  }
  return { accepted: true, listeners: matching.map((l) => l.name) };
}

export interface BackendLookups {
  serviceExists(namespace: string, name: string): boolean;
  /** does a ReferenceGrant in `toNamespace` let HTTPRoutes from `fromNamespace` refer to Service `name`? */
  granted(fromNamespace: string, toNamespace: string, name: string): boolean;
}

export type Resolution =
  | { resolved: true }
  | { resolved: false; reason: 'BackendNotFound' | 'RefNotPermitted' | 'InvalidKind'; message: string };

/** do every rule's backendRefs resolve? The first failure is reported, as implementations do. */
export function resolveBackends(routeNs: string, backends: BackendRef[], lookups: BackendLookups): Resolution {
  for (const b of backends) {
    const group = b.group ?? '';
    const kind = b.kind ?? 'Service';
    const ns = b.namespace ?? routeNs;
    if (group === 'inference.networking.k8s.io' && kind === 'InferencePool') continue;
    if (group !== '' || kind !== 'Service') {
      return {
        resolved: false,
        reason: 'InvalidKind',
        message: `backendRef ${group ? `${group}/` : ''}${kind} ${ns}/${b.name}: only core Services (and InferencePools) are supported`,
      };
    }
    if (ns !== routeNs && !lookups.granted(routeNs, ns, b.name)) {
      return {
        resolved: false,
        reason: 'RefNotPermitted',
        message: `backendRef Service ${ns}/${b.name} is in another namespace and no ReferenceGrant in ${ns} allows it`,
      };
    }
    if (!lookups.serviceExists(ns, b.name)) {
      return { resolved: false, reason: 'BackendNotFound', message: `backendRef Service ${ns}/${b.name} not found` };
    }
  }
  return { resolved: true };
}
