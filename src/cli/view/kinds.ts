// Which of modelplane's kinds the cluster serves, found through discovery as any client would (no CRD read
// rights needed): every listable, watchable resource in the operator's API groups, the kinds a user creates
// first. Works the same against the embedded cluster and any real one (docs/dashboard.md).
import { isNotFound, type KubeClient, type ResourceMapping } from '@modelplane/runtime/client';

/** the API groups modelplane serves, in the order the views list them */
export const MODELPLANE_GROUPS = ['kubeairunway.ai', 'aim.eai.amd.com', 'llamastack.io', 'llmd.ai'] as const;

/** the kinds a person deploys and watches; everything else in the groups is supporting configuration */
export const PRIMARY_KINDS = ['ModelDeployment', 'AIMService', 'LlamaStackDistribution', 'VariantAutoscaling'] as const;

interface ApiGroup {
  name: string;
  preferredVersion?: { groupVersion: string };
  versions?: Array<{ groupVersion: string }>;
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

/** rank for sorting: primary kinds first (in PRIMARY_KINDS order), then the rest by group order and kind */
export function kindRank(m: Pick<ResourceMapping, 'group' | 'kind'>): number {
  const primary = (PRIMARY_KINDS as readonly string[]).indexOf(m.kind);
  if (primary >= 0) return primary;
  const group = (MODELPLANE_GROUPS as readonly string[]).indexOf(m.group);
  return 10 + (group < 0 ? MODELPLANE_GROUPS.length : group);
}

export function isPrimaryKind(kind: string): boolean {
  return (PRIMARY_KINDS as readonly string[]).includes(kind);
}

/** the served kinds of modelplane's groups (preferred version), primary kinds first */
export async function discoverModelplaneKinds(client: KubeClient): Promise<ResourceMapping[]> {
  const groups =
    ((await client.transport.request({ method: 'GET', path: '/apis' })).body as { groups?: ApiGroup[] }).groups ?? [];
  const out: ResourceMapping[] = [];
  for (const g of groups) {
    if (!(MODELPLANE_GROUPS as readonly string[]).includes(g.name)) continue;
    const gv = g.preferredVersion?.groupVersion ?? g.versions?.[0]?.groupVersion;
    if (!gv) continue;
    let resources: ApiResource[] = [];
    try {
      resources =
        ((await client.transport.request({ method: 'GET', path: `/apis/${gv}` })).body as { resources?: ApiResource[] })
          .resources ?? [];
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    for (const r of resources) {
      if (r.name.includes('/') || !r.verbs?.includes('list') || !r.verbs.includes('watch')) continue;
      const version = gv.slice(gv.indexOf('/') + 1);
      const subresources = resources
        .filter((s) => s.name.startsWith(`${r.name}/`))
        .map((s) => s.name.slice(r.name.length + 1));
      out.push({
        apiVersion: gv,
        group: g.name,
        version,
        kind: r.kind,
        resource: r.name,
        namespaced: r.namespaced,
        subresources,
        verbs: r.verbs,
      });
    }
  }
  return out.sort((a, b) => kindRank(a) - kindRank(b) || a.kind.localeCompare(b.kind));
}
