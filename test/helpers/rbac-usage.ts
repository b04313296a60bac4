// What a process was granted (the rules `modelplane rbac` generates for its controller set) against what it
// used (the API server's audit log, by its ServiceAccount): each grant as one `group/resource verb` line,
// marked used when a request of the process that the authoriser let through needed it. Read by
// test/security/rbac-review.integration.test.ts (docs/security.md, "Least privilege").
import type { AuditEntry } from '@modelplane/apiserver';
import type { PolicyRule } from '../../src/controllers/rbac.ts';

export interface Grant {
  /** `group/resource verb`, with `[namespace]` in front when a Role grants it, `:a,b` after the resource for resourceNames */
  key: string;
  group: string;
  resource: string;
  verb: string;
  /** the Role's namespace; undefined: cluster-wide */
  namespace?: string;
  resourceNames?: readonly string[];
}

interface RoleObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: PolicyRule[];
}

/** every single grant the ClusterRole and Roles among `objects` hold */
export function grantsOf(objects: readonly RoleObject[]): Grant[] {
  const out: Grant[] = [];
  for (const o of objects) {
    if (o.kind !== 'ClusterRole' && o.kind !== 'Role') continue;
    const namespace = o.kind === 'Role' ? o.metadata.namespace : undefined;
    for (const r of o.rules ?? []) {
      for (const group of r.apiGroups)
        for (const resource of r.resources)
          for (const verb of r.verbs) {
            const names = r.resourceNames?.length ? `:${[...r.resourceNames].sort().join(',')}` : '';
            out.push({
              key: `${namespace ? `[${namespace}] ` : ''}${group}/${resource}${names} ${verb}`,
              group,
              resource,
              verb,
              ...(namespace ? { namespace } : {}),
              ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
            });
          }
    }
  }
  return out;
}

/**
 * The verbs the authoriser checked for a request. A server-side apply that creates its object is a patch
 * answered 201, which needs `create` as well; kube-apiserver records a list's watch as `watch`.
 */
export function verbsOf(e: AuditEntry): string[] {
  return e.verb === 'patch' && e.code === 201 ? ['patch', 'create'] : [e.verb];
}

export function covers(g: Grant, e: AuditEntry, verb: string): boolean {
  if (g.verb !== verb || g.group !== e.group || g.resource !== e.resource) return false;
  if (g.namespace !== undefined && g.namespace !== e.namespace) return false;
  return !g.resourceNames || g.resourceNames.includes(e.name) || namedBySelector(e, g.resourceNames);
}

/** a list or watch whose field selector names one object (how resourceNames can grant a list or watch) */
function namedBySelector(e: AuditEntry, names: readonly string[]): boolean {
  const selector = new URLSearchParams(e.requestURI?.split('?')[1] ?? '').get('fieldSelector') ?? '';
  return names.some((n) => selector === `metadata.name=${n}`);
}

/** a request the authoriser let through: any answer but 401 and 403 (a 404 or a 409 needed the grant all the same) */
export const authorised = (e: AuditEntry) => e.code !== 401 && e.code !== 403;

/** the grants no authorised request of `entries` needed */
export function unusedGrants(grants: readonly Grant[], entries: readonly AuditEntry[]): Grant[] {
  const ok = entries.filter(authorised);
  return grants.filter((g) => !ok.some((e) => verbsOf(e).some((v) => covers(g, e, v))));
}

/** a list or watch that names neither a label nor a name selector: it reads every object of its kind in scope */
export function unselected(e: AuditEntry): boolean {
  if (e.verb !== 'list' && e.verb !== 'watch') return false;
  const q = new URLSearchParams(e.requestURI?.split('?')[1] ?? '');
  return !q.get('labelSelector') && !/^metadata\.name=/.test(q.get('fieldSelector') ?? '');
}

/** `group/resource` → the verbs authorised requests of `entries` needed on it */
export function usedVerbs(entries: readonly AuditEntry[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of entries) {
    if (!authorised(e)) continue;
    const key = `${e.group}/${e.resource}`;
    const verbs = out.get(key) ?? new Set<string>();
    for (const v of verbsOf(e)) verbs.add(v);
    out.set(key, verbs);
  }
  return out;
}

/**
 * Why an unused grant is expected all the same, from what else the process did with that resource; undefined
 * when nothing it did explains it (then the review's UNUSED list must).
 */
export function expectedUnused(g: Grant, used: Map<string, Set<string>>): string | undefined {
  const verbs = used.get(`${g.group}/${g.resource}`) ?? new Set<string>();
  if (g.verb === 'get' && verbs.has('list') && verbs.has('watch'))
    return 'read: an informer lists and watches it; a live get by name is the fallback of paths this run did not take';
  if (g.verb === 'delete' && (verbs.has('create') || verbs.has('patch')))
    return 'prunes what it applied once no longer wanted; this run deleted only owners, and the garbage collector the rest';
  if (g.group === 'events.k8s.io' && g.resource === 'events' && g.verb === 'patch' && verbs.has('create'))
    return 'a repeated Event is merge-patched with its series; this run repeated none';
  return undefined;
}
