// The RBAC authorizer (plugin/pkg/auth/authorizer/rbac), preceded by kube's privileged-group authorizer
// for system:masters. Each subject's applicable bindings are resolved once into compiled rules and cached;
// any write to Roles, ClusterRoles or their bindings drops the cache, so a request costs a map lookup
// and a few set lookups at steady state.
import type { ObjectStore } from '../../storage/store.ts';
import type { KubeObject, UserInfo } from '../../types.ts';
import { aggregateMessage, goQuote } from '../../validation/field-errors.ts';
import { type Authorizer, type AuthzAttributes, type Decision, GROUP_MASTERS } from '../types.ts';
import {
  type CompiledRule,
  compileRule,
  describeSubject,
  type PolicyRule,
  ruleAllows,
  type Subject,
  subjectMatches,
} from './rules.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_STORAGE = {
  roles: `${RBAC_GROUP}/roles`,
  clusterRoles: `${RBAC_GROUP}/clusterroles`,
  roleBindings: `${RBAC_GROUP}/rolebindings`,
  clusterRoleBindings: `${RBAC_GROUP}/clusterrolebindings`,
} as const;

const SUBJECT_CACHE_LIMIT = 10_000;

interface Grant {
  rule: CompiledRule;
  /** the binding that grants it, as kube describes it in `RBAC: allowed by …` */
  source: string;
}

interface Grants {
  grants: Grant[];
  /** resolution errors (a binding to a missing role) — kube reports them in denials */
  errors: string[];
}

class SubjectPermissions {
  readonly namespaces = new Map<string, Grants>();
  constructor(readonly cluster: Grants) {}
}

interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

export class RbacAuthorizer implements Authorizer {
  private readonly subjects = new Map<string, SubjectPermissions>();
  private readonly compiled = new WeakMap<KubeObject, CompiledRule[]>();
  private readonly unsubscribes: (() => void)[] = [];

  constructor(private readonly store: ObjectStore) {}

  /** Follows writes to the four RBAC resources; until then every call resolves afresh. */
  start(): void {
    for (const key of Object.values(RBAC_STORAGE)) {
      this.unsubscribes.push(this.store.watch(key, this.store.currentRv(), () => this.subjects.clear()));
    }
  }

  stop(): void {
    for (const u of this.unsubscribes.splice(0)) u();
    this.subjects.clear();
  }

  authorize(user: UserInfo, attrs: AuthzAttributes): Decision {
    if (user.groups.includes(GROUP_MASTERS)) return { allowed: true, reason: '' };
    const perms = this.permissionsFor(user);
    const errors: string[] = [];
    const scopes = [perms.cluster];
    if (attrs.namespace) scopes.push(this.namespaceGrants(perms, user, attrs.namespace));
    for (const scope of scopes) {
      for (const g of scope.grants)
        if (ruleAllows(g.rule, attrs)) return { allowed: true, reason: `RBAC: allowed by ${g.source}` };
      errors.push(...scope.errors);
    }
    const reason = errors.length > 0 ? `RBAC: ${aggregateMessage(errors)}` : '';
    return { allowed: false, reason };
  }

  /** RulesFor (SelfSubjectRulesReview): every rule that applies to the user in the namespace. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const perms = this.permissionsFor(user);
    const scopes = [perms.cluster];
    if (namespace) scopes.push(this.namespaceGrants(perms, user, namespace));
    return { rules: scopes.flatMap((s) => s.grants.map((g) => g.rule.rule)), errors: scopes.flatMap((s) => s.errors) };
  }

  private permissionsFor(user: UserInfo): SubjectPermissions {
    const key = `${user.username}\u0000${user.groups.join('\u0001')}`;
    let perms = this.subjects.get(key);
    if (!perms) {
      if (this.subjects.size >= SUBJECT_CACHE_LIMIT) this.subjects.clear();
      perms = new SubjectPermissions(this.resolve(user, RBAC_STORAGE.clusterRoleBindings, undefined));
      this.subjects.set(key, perms);
    }
    return perms;
  }

  private namespaceGrants(perms: SubjectPermissions, user: UserInfo, namespace: string): Grants {
    let g = perms.namespaces.get(namespace);
    if (!g) {
      g = this.resolve(user, RBAC_STORAGE.roleBindings, namespace);
      perms.namespaces.set(namespace, g);
    }
    return g;
  }

  /** Visits the bindings of one scope the way kube's DefaultRuleResolver does. */
  private resolve(user: UserInfo, storageKey: string, namespace: string | undefined): Grants {
    const out: Grants = { grants: [], errors: [] };
    const bindingKind = namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding';
    for (const binding of this.store.list(storageKey, namespace)) {
      const subjects = (Array.isArray(binding.subjects) ? binding.subjects : []) as Subject[];
      const subject = subjects.find((s) => s && subjectMatches(s, user.username, user.groups, namespace ?? ''));
      if (!subject) continue;
      const ref = (binding.roleRef ?? {}) as RoleRef;
      const rules = this.roleRules(ref, namespace);
      if (typeof rules === 'string') {
        out.errors.push(rules);
        continue;
      }
      const bindingName = namespace === undefined ? binding.metadata.name! : `${binding.metadata.name}/${namespace}`;
      const source = `${bindingKind} ${goQuote(bindingName)} of ${ref.kind} ${goQuote(ref.name ?? '')} to ${describeSubject(subject, namespace ?? '')}`;
      for (const rule of rules) out.grants.push({ rule, source });
    }
    return out;
  }

  /** The rules of the role a binding in `namespace` (undefined: a ClusterRoleBinding) refers to, or kube's error text. */
  roleRulesOf(ref: RoleRef, namespace: string | undefined): PolicyRule[] | string {
    const rules = this.roleRules(ref, namespace);
    return typeof rules === 'string' ? rules : rules.map((r) => r.rule);
  }

  /** GetRoleReferenceRules: the compiled rules of the referenced role, or kube's error text. */
  private roleRules(ref: RoleRef, namespace: string | undefined): CompiledRule[] | string {
    const name = ref.name ?? '';
    let role: KubeObject | undefined;
    if (ref.kind === 'ClusterRole') {
      role = this.store.get(RBAC_STORAGE.clusterRoles, undefined, name);
      if (!role) return `clusterrole.rbac.authorization.k8s.io ${goQuote(name)} not found`;
    } else if (ref.kind === 'Role') {
      role = namespace ? this.store.get(RBAC_STORAGE.roles, namespace, name) : undefined;
      if (!role) return `role.rbac.authorization.k8s.io ${goQuote(name)} not found`;
    } else {
      return `unsupported role reference kind: ${goQuote(ref.kind ?? '')}`;
    }
    let rules = this.compiled.get(role);
    if (!rules) {
      rules = (Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [])
        .filter((r) => r && typeof r === 'object')
        .map(compileRule);
      this.compiled.set(role, rules);
    }
    return rules;
  }
}
