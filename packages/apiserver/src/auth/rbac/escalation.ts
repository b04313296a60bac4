// RBAC's privilege-escalation prevention (pkg/resource-types/rbac/*/policybased and rbac/validation): a user
// may only write a Role/ClusterRole whose rules they already hold (or with the `escalate` verb), and only
// bind a role whose rules they hold (or with the `bind` verb). system:masters is exempt. Shaped as a
// validating admission step so the write path can run it before committing.
import { errors, type StatusError } from '../../errors.ts';
import type { AdmissionAttributes } from '../../objects/hooks.ts';
import { deepEqual } from '../../objects/meta.ts';
import type { KubeObject, UserInfo } from '../../types.ts';
import { goQuote } from '../../validation/field-errors.ts';
import { GROUP_MASTERS } from '../types.ts';
import type { RbacAuthorizer } from './authorizer.ts';
import type { PolicyRule } from './rules.ts';

const GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** BreakdownRule: one verb, group, resource and resource name (or URL) per rule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        if ((rule.resourceNames ?? []).length > 0) {
          for (const name of rule.resourceNames!)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: readonly string[] | undefined, v: string) => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, vs: readonly string[] | undefined) =>
  (vs ?? []).every((v) => has(set, v));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0 || !has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlsCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((p) =>
    (owner ?? []).some((o) => o === p || (o.endsWith('*') && p.startsWith(o.replace(/\*+$/, '')))),
  );
}

/** ruleCovers: does one owner rule cover an atomic (broken-down) rule? */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const ownerNames = owner.resourceNames ?? [];
  const names =
    (sub.resourceNames ?? []).length === 0
      ? ownerNames.length === 0
      : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return (
    verbs &&
    groups &&
    resourcesCover(owner.resources, sub.resources) &&
    names &&
    urlsCover(owner.nonResourceURLs, sub.nonResourceURLs)
  );
}

/** Covers: whether `owner` holds every permission in `servant`, and the atomic rules it lacks. */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing = servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: missing.length === 0, missing };
}

/** CompactRules: merges single group/resource(/name) rules that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames ?? []).length <= 1 &&
      (r.nonResourceURLs ?? []).length === 0 &&
      (r.apiGroups ?? []).length === 1 &&
      (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups, r.resources, r.resourceNames ?? null]);
    const existing = simple.get(key);
    if (existing) {
      for (const v of r.verbs ?? []) if (!existing.verbs!.includes(v)) existing.verbs!.push(v);
    } else {
      simple.set(key, { ...r, verbs: [...(r.verbs ?? [])] });
    }
  }
  return [...out, ...simple.values()];
}

/** rbacv1helpers.CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}` */
export function compactString(r: PolicyRule): string {
  const q = (vs: readonly string[]) => `[${vs.map(goQuote).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** ConfirmNoEscalation: undefined when `user` holds `rules` in `namespace`, else kube's explanation. */
export function escalationError(
  rbac: RbacAuthorizer,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const owner = rbac.rulesFor(user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${goQuote(user.username)} (groups=[${user.groups.map(goQuote).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${owner.errors.join(' ')}]`;
  return msg;
}

/** What a GC-only update may change without an escalation check (IsOnlyMutatingGCFields). */
function onlyGcFieldsChanged(obj: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const meta: Record<string, unknown> = { ...o.metadata };
    for (const k of ['ownerReferences', 'finalizers', 'managedFields', 'resourceVersion', 'generation']) delete meta[k];
    return { ...o, apiVersion: undefined, metadata: meta };
  };
  return deepEqual(strip(obj), strip(old));
}

/**
 * A validating-admission step: throws the 403 kube's RBAC storage returns when a Role, ClusterRole,
 * RoleBinding or ClusterRoleBinding write would grant permissions the requesting user does not hold.
 */
export function rbacEscalationCheck(rbac: RbacAuthorizer): (attrs: AdmissionAttributes) => void {
  return (attrs) => {
    const { rt, user, object: obj, oldObject: old } = attrs;
    if (
      rt.group !== GROUP ||
      attrs.subresource ||
      !obj ||
      (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE')
    )
      return;
    if (user.groups.includes(GROUP_MASTERS)) return;
    if (old && onlyGcFieldsChanged(obj, old)) return;
    const namespace = rt.namespaced ? (attrs.namespace ?? '') : '';
    const name = obj.metadata.name ?? attrs.name;
    const deny = (why: string): StatusError =>
      errors.forbidden(`${rt.plural}.${GROUP} ${goQuote(name)} is forbidden: ${why}`, {
        name,
        group: GROUP,
        kind: rt.plural,
      });
    const allowed = (verb: string, resource: string, resourceName: string) =>
      rbac.authorize(user, {
        isResourceRequest: true,
        path: '',
        verb,
        group: GROUP,
        version: 'v1',
        resource,
        namespace,
        name: resourceName,
      }).allowed;

    if (rt.plural === 'roles' || rt.plural === 'clusterroles') {
      if (allowed('escalate', rt.plural, name)) return;
      const why = escalationError(rbac, user, namespace, (Array.isArray(obj.rules) ? obj.rules : []) as PolicyRule[]);
      if (why) throw deny(why);
      if (rt.plural === 'clusterroles' && obj.aggregationRule && escalationError(rbac, user, '', FULL_AUTHORITY)) {
        throw deny('must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    if (rt.plural === 'rolebindings' || rt.plural === 'clusterrolebindings') {
      const ref = (obj.roleRef ?? {}) as { kind?: string; name?: string };
      const refResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (allowed('bind', refResource, ref.name ?? '')) return;
      const rules = rbac.roleRulesOf(ref, namespace || undefined);
      if (typeof rules === 'string') throw deny(rules);
      const why = escalationError(rbac, user, namespace, rules);
      if (why) throw deny(why);
    }
  };
}
