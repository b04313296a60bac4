// Discovery documents: the legacy forms (APIVersions, APIGroupList, APIGroup, APIResourceList) and the
// aggregated form (apidiscovery.k8s.io/v2, v2beta1) chosen by content negotiation as kube-apiserver does.
// kubectl's RESTMapper builds everything from these, so names, verbs and subresources must be exact.
import type { Registry } from '../resource-types/resource-registry.ts';
import { ALL_VERBS, groupVersion, type ResourceType } from '../resource-types/resource-type.ts';

export interface SubresourceInfo {
  name: string;
  kind: string;
  group: string;
  version: string;
  verbs: string[];
}

export function subresourcesOf(rt: ResourceType, version: string): SubresourceInfo[] {
  const out: SubresourceInfo[] = [];
  if (rt.subresources.status)
    out.push({ name: 'status', kind: rt.kind, group: '', version: '', verbs: ['get', 'patch', 'update'] });
  if (rt.subresources.scale)
    out.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
  if (rt.subresources.log) out.push({ name: 'log', kind: 'Pod', group: '', version: '', verbs: ['get'] });
  if (rt.group === '' && rt.plural === 'namespaces')
    out.push({ name: 'finalize', kind: 'Namespace', group: '', version: '', verbs: ['update'] });
  if (rt.subresources.token)
    out.push({ name: 'token', kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] });
  void version;
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function verbsOf(rt: ResourceType): string[] {
  return rt.verbs ?? ALL_VERBS;
}

export function apiResourceList(
  registry: Registry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry
    .all()
    .filter((rt) => rt.group === group && rt.versions.some((v) => v.name === version && v.served));
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const rt of types.sort((a, b) => a.plural.localeCompare(b.plural))) {
    resources.push({
      name: rt.plural,
      singularName: rt.singular,
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: verbsOf(rt),
      ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
      ...(rt.categories.length ? { categories: rt.categories } : {}),
    });
    for (const sub of subresourcesOf(rt, version)) {
      resources.push({
        name: `${rt.plural}/${sub.name}`,
        singularName: '',
        namespaced: rt.namespaced,
        ...(sub.group ? { group: sub.group, version: sub.version } : {}),
        kind: sub.kind,
        verbs: sub.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: groupVersion(name, v), version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: Registry): Record<string, unknown> {
  const groups = [...registry.groups()].filter(([g]) => g !== '').map(([g, vs]) => apiGroup(g, vs));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroupDoc(registry: Registry, group: string): Record<string, unknown> | undefined {
  const vs = registry.groups().get(group);
  if (!vs || group === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, vs) };
}

/** aggregated discovery for `/api` (legacy core group) or `/apis` (every named group) */
export function aggregatedDiscovery(
  registry: Registry,
  legacy: boolean,
  apiVersion: 'v2' | 'v2beta1',
): Record<string, unknown> {
  const items: Record<string, unknown>[] = [];
  for (const [group, versions] of registry.groups()) {
    if ((group === '') !== legacy) continue;
    items.push({
      metadata: { name: group, creationTimestamp: null },
      versions: versions.map((version) => ({
        version,
        resources: registry
          .all()
          .filter((rt) => rt.group === group && rt.versions.some((v) => v.name === version && v.served))
          .sort((a, b) => a.plural.localeCompare(b.plural))
          .map((rt) => ({
            resource: rt.plural,
            responseKind: { group, version, kind: rt.kind },
            scope: rt.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: rt.singular,
            verbs: verbsOf(rt),
            ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
            ...(rt.categories.length ? { categories: rt.categories } : {}),
            ...(subresourcesOf(rt, version).length
              ? {
                  subresources: subresourcesOf(rt, version).map((s) => ({
                    subresource: s.name,
                    responseKind: { group: s.group || group, version: s.version || version, kind: s.kind },
                    verbs: s.verbs,
                  })),
                }
              : {}),
          })),
        freshness: 'Current',
      })),
    });
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items };
}

/** Picks the aggregated discovery version the client accepts, if any. */
export function negotiateAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (!p.includes('g=apidiscovery.k8s.io') || !p.includes('as=APIGroupDiscoveryList')) continue;
    if (p.includes('v=v2beta1')) return 'v2beta1';
    if (p.includes('v=v2')) return 'v2';
  }
  return undefined;
}
