// Discovery-driven REST mapping: apiVersion + kind → resource path and scope. Each group-version's
// APIResourceList is fetched once and cached; a kind missing from the cached list triggers one refetch
// (a CRD may have been installed since), so the cost is one request per group-version in steady state.

import { parseApiVersion } from '../meta/types.ts';
import { isNotFound, NoKindMatchError } from './errors.ts';
import type { Transport } from './http.ts';

export interface ResourceMapping {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
  /** plural resource name, e.g. `configmaps` */
  resource: string;
  namespaced: boolean;
  /** e.g. `status`, `scale` */
  subresources: string[];
  verbs: string[];
}

interface APIResource {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
}

interface GroupVersionDoc {
  fetchedAt: number;
  byKind: Map<string, ResourceMapping>;
}

export class RestMapper {
  private readonly docs = new Map<string, GroupVersionDoc>();
  private readonly inflight = new Map<string, Promise<GroupVersionDoc>>();

  constructor(private readonly transport: Transport) {}

  async mapping(apiVersion: string, kind: string): Promise<ResourceMapping> {
    const cached = this.docs.get(apiVersion)?.byKind.get(kind);
    if (cached) return cached;
    const doc = await this.fetch(apiVersion);
    const found = doc.byKind.get(kind);
    if (!found) throw new NoKindMatchError(apiVersion, kind);
    return found;
  }

  /** forgets what discovery said (all group-versions, or one), e.g. after CRDs were removed */
  invalidate(apiVersion?: string): void {
    if (apiVersion) this.docs.delete(apiVersion);
    else this.docs.clear();
  }

  /** registers a mapping without discovery (tests against stub servers, or kinds known in advance) */
  register(mapping: ResourceMapping): void {
    let doc = this.docs.get(mapping.apiVersion);
    if (!doc) this.docs.set(mapping.apiVersion, (doc = { fetchedAt: Date.now(), byKind: new Map() }));
    doc.byKind.set(mapping.kind, mapping);
  }

  private fetch(apiVersion: string): Promise<GroupVersionDoc> {
    let p = this.inflight.get(apiVersion);
    if (!p) {
      p = this.load(apiVersion).finally(() => this.inflight.delete(apiVersion));
      this.inflight.set(apiVersion, p);
    }
    return p;
  }

  private async load(apiVersion: string): Promise<GroupVersionDoc> {
    const { group, version } = parseApiVersion(apiVersion);
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const doc: GroupVersionDoc = { fetchedAt: Date.now(), byKind: new Map() };
    let resources: APIResource[] = [];
    try {
      const res = await this.transport.request({ method: 'GET', path });
      resources = ((res.body as { resources?: APIResource[] }).resources ?? []) as APIResource[];
    } catch (err) {
      // an unknown group-version is simply empty; everything else (network, 5xx) must reach the caller
      if (!isNotFound(err)) throw err;
    }
    const subresources = new Map<string, string[]>();
    for (const r of resources) {
      const slash = r.name.indexOf('/');
      if (slash < 0) continue;
      const parent = r.name.slice(0, slash);
      subresources.set(parent, [...(subresources.get(parent) ?? []), r.name.slice(slash + 1)]);
    }
    for (const r of resources) {
      if (r.name.includes('/')) continue;
      doc.byKind.set(r.kind, {
        apiVersion,
        group,
        version,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        subresources: subresources.get(r.name) ?? [],
        verbs: r.verbs ?? [],
      });
    }
    // registered mappings survive a refetch of their group-version
    const previous = this.docs.get(apiVersion);
    if (previous) for (const [k, m] of previous.byKind) if (!doc.byKind.has(k)) doc.byKind.set(k, m);
    this.docs.set(apiVersion, doc);
    return doc;
  }
}

/** the collection path of a resource: /api/v1/namespaces/ns/configmaps, /apis/g/v/widgets, … */
export function collectionPath(m: ResourceMapping, namespace?: string): string {
  const base = m.group ? `/apis/${m.group}/${m.version}` : `/api/${m.version}`;
  if (m.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${m.resource}`;
  return `${base}/${m.resource}`;
}

export function objectPath(m: ResourceMapping, name: string, namespace?: string, subresource?: string): string {
  if (!name) throw new Error(`${m.kind}: a name is required to address one object`);
  if (m.namespaced && !namespace) throw new Error(`${m.kind} "${name}": namespaced kind needs metadata.namespace`);
  const p = `${collectionPath(m, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${p}/${subresource}` : p;
}
