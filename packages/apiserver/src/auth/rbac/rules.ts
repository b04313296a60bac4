// PolicyRule matching with the semantics of k8s.io/kubernetes/pkg/apis/rbac/v1 helpers (VerbMatches,
// APIGroupMatches, ResourceMatches with `*` and `*/subresource`, ResourceNameMatches,
// NonResourceURLMatches with trailing-`*` prefixes). Rules are compiled once per stored role object into
// sets, so checking a request is a few hash lookups.
import { goQuote } from '../../validation/field-errors.ts';
import type { AuthzAttributes } from '../types.ts';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly anyVerb: boolean;
  readonly verbs: ReadonlySet<string>;
  readonly anyGroup: boolean;
  readonly groups: ReadonlySet<string>;
  readonly anyResource: boolean;
  /** `resource` and `resource/subresource` entries */
  readonly resources: ReadonlySet<string>;
  /** subresources granted on every resource by entries of the form star-slash-subresource, e.g. `*` + `/status` */
  readonly anyResourceSubresources: ReadonlySet<string>;
  /** undefined: any name */
  readonly names: ReadonlySet<string> | undefined;
  readonly anyUrl: boolean;
  readonly urls: ReadonlySet<string>;
  readonly urlPrefixes: readonly string[];
  readonly hasResources: boolean;
  readonly hasUrls: boolean;
}

export function compileRule(rule: PolicyRule): CompiledRule {
  const verbs = strings(rule.verbs);
  const groups = strings(rule.apiGroups);
  const resources = strings(rule.resources);
  const names = strings(rule.resourceNames);
  const urls = strings(rule.nonResourceURLs);
  return {
    rule,
    anyVerb: verbs.includes(ALL),
    verbs: new Set(verbs),
    anyGroup: groups.includes(ALL),
    groups: new Set(groups),
    anyResource: resources.includes(ALL),
    resources: new Set(resources),
    anyResourceSubresources: new Set(resources.filter((r) => r.startsWith('*/')).map((r) => r.slice(2))),
    names: names.length > 0 ? new Set(names) : undefined,
    anyUrl: urls.includes(ALL),
    urls: new Set(urls),
    urlPrefixes: urls.filter((u) => u.endsWith('*') && u !== ALL).map((u) => u.replace(/\*+$/, '')),
    hasResources: resources.length > 0,
    hasUrls: urls.length > 0,
  };
}

/** rbac.RuleAllows on a compiled rule. */
export function ruleAllows(r: CompiledRule, a: AuthzAttributes): boolean {
  if (!(r.anyVerb || r.verbs.has(a.verb))) return false;
  if (a.isResourceRequest) {
    if (!r.hasResources) return false;
    if (!(r.anyGroup || r.groups.has(a.group))) return false;
    const resource = a.resource ?? '';
    const sub = a.subresource ?? '';
    const combined = sub ? `${resource}/${sub}` : resource;
    if (!(r.anyResource || r.resources.has(combined) || (sub !== '' && r.anyResourceSubresources.has(sub))))
      return false;
    return r.names === undefined || r.names.has(a.name ?? '');
  }
  if (!r.hasUrls) return false;
  if (r.anyUrl || r.urls.has(a.path)) return true;
  for (const p of r.urlPrefixes) if (a.path.startsWith(p)) return true;
  return false;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** rbacv1.Subject */
export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

/**
 * rbac appliesToUser: User by name, Group by membership, ServiceAccount by its username, where a
 * subject without a namespace takes the binding's (RoleBindings only; ClusterRoleBindings pass '').
 */
export function subjectMatches(
  s: Subject,
  username: string,
  groups: readonly string[],
  bindingNamespace: string,
): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === username;
    case 'Group':
      return s.name !== undefined && groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      if (!ns) return false;
      return username === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** rbac describeSubject: `User "alice"`, `ServiceAccount "sa/ns"` */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name ?? '')}`;
}
