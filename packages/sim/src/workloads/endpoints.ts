// The simulated endpoints controller: every Service with a selector gets an Endpoints object of the same
// name listing the matching pods that have an IP, ready ones under `addresses` and the others under
// `notReadyAddresses`, grouped into subsets by their resolved ports (a named targetPort is looked up in
// each pod's container ports).

import { isNotFound, needsApply } from '@modelplane/runtime/client';
import { type Selector, selectorFromObject } from '@modelplane/runtime/meta';
import type { SimContext } from './context.ts';
import {
  type EndpointAddress,
  type EndpointSubset,
  type Endpoints,
  EndpointsKind,
  type Pod,
  Pods,
  type Service,
  type ServicePort,
  Services,
} from './kinds.ts';
import { isPodReady, isTerminal } from './util.ts';

const FIELD_MANAGER = 'endpoint-controller';

function resolvePort(sp: ServicePort, pod: Pod): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec.containers ?? []) {
    const p = c.ports?.find((x) => x.name === target && (x.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'));
    if (p) return p.containerPort;
  }
  return undefined;
}

function ipOrder(a: EndpointAddress, b: EndpointAddress): number {
  const key = (ip: string) =>
    ip
      .split('.')
      .map((x) => x.padStart(3, '0'))
      .join('.');
  return key(a.ip).localeCompare(key(b.ip));
}

/**
 * kube-apiserver refuses Endpoints addresses in the loopback range, where `modelplane dev`'s simulated nodes
 * give their pods IPs (so the simulators can listen on them): such pods are left out, and clients find them
 * from the Service's selector instead (as `modelplane load` does).
 */
const publishable = (ip: string) => !ip.startsWith('127.') && ip !== '::1';

/** the subsets for a service and its pods (pure) */
export function endpointSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const ports = svc.spec?.ports ?? [];
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const groups = new Map<
    string,
    { ports: NonNullable<EndpointSubset['ports']>; ready: EndpointAddress[]; notReady: EndpointAddress[] }
  >();
  for (const pod of pods) {
    const ip = pod.status?.podIP;
    if (!ip || !publishable(ip) || pod.metadata.deletionTimestamp || isTerminal(pod)) continue;
    const resolved: NonNullable<EndpointSubset['ports']> = [];
    for (const sp of ports) {
      const port = resolvePort(sp, pod);
      if (port !== undefined)
        resolved.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP' });
    }
    if (ports.length > 0 && resolved.length === 0) continue;
    const key = JSON.stringify(resolved);
    const group = groups.get(key) ?? { ports: resolved, ready: [], notReady: [] };
    groups.set(key, group);
    const address: EndpointAddress = {
      ip,
      ...(pod.spec.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      ...(pod.spec.hostname && pod.spec.subdomain === svc.metadata.name ? { hostname: pod.spec.hostname } : {}),
      targetRef: { kind: 'Pod', name: pod.metadata.name!, namespace: pod.metadata.namespace!, uid: pod.metadata.uid! },
    };
    (publishNotReady || isPodReady(pod) ? group.ready : group.notReady).push(address);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, g]) => ({
      ...(g.ready.length > 0 ? { addresses: g.ready.sort(ipOrder) } : {}),
      ...(g.notReady.length > 0 ? { notReadyAddresses: g.notReady.sort(ipOrder) } : {}),
      ...(g.ports.length > 0 ? { ports: g.ports } : {}),
    }));
}

export function registerEndpoints(sim: SimContext): void {
  // selectors of the services seen so far, so a pod event can be mapped to the services that select it
  const selectors = new Map<string, Selector>();
  const servicesFor = (pod: Pod) => {
    const ns = `${pod.metadata.namespace}/`;
    return [...selectors]
      .filter(([key, sel]) => key.startsWith(ns) && sel.matches(pod.metadata.labels))
      .map(([key]) => key);
  };

  sim.mgr
    .controller('sim-endpoints')
    .for(Services)
    .watches(Pods, servicesFor)
    .withOptions({ concurrency: 2, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const key = `${req.namespace}/${req.name}`;
      const svc = await ctx.cache.get(Services, req.name, req.namespace);
      const live = await ctx.cache.get(EndpointsKind, req.name, req.namespace);
      const ours = live?.metadata.managedFields?.some((f) => f.manager === FIELD_MANAGER) ?? false;
      const selector = svc?.spec?.selector;
      if (
        !svc ||
        svc.metadata.deletionTimestamp ||
        !selector ||
        Object.keys(selector).length === 0 ||
        svc.spec?.type === 'ExternalName'
      ) {
        selectors.delete(key);
        // Endpoints of a Service without a selector belong to whoever wrote them
        if (live && ours && !svc) {
          await ctx.client.delete(EndpointsKind, req.name, req.namespace).catch((err) => {
            if (!isNotFound(err)) throw err;
          });
        }
        return;
      }
      const sel = selectorFromObject({ matchLabels: selector });
      selectors.set(key, sel);
      const pods = (await ctx.cache.list(Pods, { namespace: req.namespace })).filter((p) =>
        sel.matches(p.metadata.labels),
      );
      const labels: Record<string, string> = {
        ...(svc.metadata.labels ?? {}),
        ...(svc.spec?.clusterIP === 'None' ? { 'service.kubernetes.io/headless': '' } : {}),
      };
      const desired: Endpoints = {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: req.name, namespace: req.namespace, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
      };
      const subsets = endpointSubsets(svc, pods);
      // kube writes no subsets at all, not an empty list, when nothing matches
      if (subsets.length > 0) desired.subsets = subsets;
      if (needsApply(desired, live, FIELD_MANAGER)) await ctx.client.apply(desired);
    });
}
