// RBAC for the operator's processes, generated from what each controller set declares it uses. Every
// process also needs to write Events and hold its leader-election Lease; those rules are added here, once.
// The same objects are what deploy/rbac/ holds and what tests run the controllers under (with a
// ServiceAccount token), so a missing rule fails a test rather than a user's install.

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export const READ = ['get', 'list', 'watch'] as const;
/**
 * what server-side apply of owned children needs (create on first apply, patch after; delete for pruned
 * children). No controller replaces an object (PUT), so none may `update` (docs/security.md).
 */
export const WRITE = ['create', 'patch', 'delete'] as const;

export function rule(apiGroup: string, resources: string[], verbs: readonly string[]): PolicyRule {
  return { apiGroups: [apiGroup], resources: [...resources], verbs: [...verbs] };
}

/**
 * rules every controller process needs: its Events (events.k8s.io/v1, created and then merge-patched with
 * their series by @modelplane/runtime/events; the core v1 API is never written)
 */
export const COMMON_CLUSTER_RULES: readonly PolicyRule[] = [rule('events.k8s.io', ['events'], ['create', 'patch'])];
/** its Lease in its own namespace: read, created once, then renewed by replacing it with its resourceVersion */
export const LEADER_ELECTION_RULES: readonly PolicyRule[] = [
  rule('coordination.k8s.io', ['leases'], ['get', 'create', 'update']),
];

/**
 * `modelplane dashboard --auth tokenreview` in a cluster (docs/dashboard.md, "In a cluster"): it asks whose a
 * person's token is and then acts as that person (username, groups, uid and the extra attributes Kubernetes'
 * own authenticators set). It reads and writes nothing with its own identity, so these are all it gets.
 */
export const DASHBOARD_IMPERSONATED_EXTRAS = [
  'authentication.kubernetes.io/credential-id',
  'authentication.kubernetes.io/node-name',
  'authentication.kubernetes.io/node-uid',
  'authentication.kubernetes.io/pod-name',
  'authentication.kubernetes.io/pod-uid',
] as const;
export const DASHBOARD_RULES: readonly PolicyRule[] = [
  rule('authentication.k8s.io', ['tokenreviews'], ['create']),
  rule('', ['users', 'groups', 'serviceaccounts'], ['impersonate']),
  rule(
    'authentication.k8s.io',
    ['uids', ...DASHBOARD_IMPERSONATED_EXTRAS.map((key) => `userextras/${key}`)],
    ['impersonate'],
  ),
];

export interface RbacSubject {
  /** names the ServiceAccount, ClusterRole and bindings: `modelplane-<name>` */
  name: string;
  rules: readonly PolicyRule[];
  /** rules granted only in the deploy namespace (a Role), e.g. the webhook's own certificate Secret */
  namespaceRules?: readonly PolicyRule[];
}

/** merges rules with the same apiGroups/resources/resourceNames, sorted so the output is stable */
export function normalizeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const byKey = new Map<string, PolicyRule>();
  for (const r of rules) {
    for (const group of r.apiGroups) {
      for (const resource of r.resources) {
        const key = JSON.stringify([group, resource, r.resourceNames ?? null]);
        const found = byKey.get(key);
        if (found) found.verbs = [...new Set([...found.verbs, ...r.verbs])];
        else
          byKey.set(key, {
            apiGroups: [group],
            resources: [resource],
            verbs: [...r.verbs],
            ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}),
          });
      }
    }
  }
  // then group resources of one API group that ended up with the same verbs
  const grouped = new Map<string, PolicyRule>();
  for (const r of byKey.values()) {
    r.verbs.sort(compareVerbs);
    const key = JSON.stringify([r.apiGroups[0], r.verbs, r.resourceNames ?? null]);
    const found = grouped.get(key);
    if (found) found.resources.push(...r.resources);
    else grouped.set(key, { ...r, resources: [...r.resources] });
  }
  const out = [...grouped.values()];
  for (const r of out) r.resources.sort();
  return out.sort(
    (a, b) => a.apiGroups[0]!.localeCompare(b.apiGroups[0]!) || a.resources[0]!.localeCompare(b.resources[0]!),
  );
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
function compareVerbs(a: string, b: string): number {
  return (
    VERB_ORDER.indexOf(a) +
      100 * Number(!VERB_ORDER.includes(a)) -
      (VERB_ORDER.indexOf(b) + 100 * Number(!VERB_ORDER.includes(b))) || a.localeCompare(b)
  );
}

/** ServiceAccount, ClusterRole + binding, the leader-election Role + binding in `namespace`, and a Role for namespaceRules */
export function rbacObjects(subject: RbacSubject, namespace: string): Array<Record<string, unknown>> {
  const name = `modelplane-${subject.name}`;
  const labels = { 'app.kubernetes.io/name': 'modelplane', 'app.kubernetes.io/component': subject.name };
  const sa = { kind: 'ServiceAccount', name, namespace };
  const namespaced = subject.namespaceRules?.length
    ? [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name, namespace, labels },
          rules: normalizeRules(subject.namespaceRules),
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name, namespace, labels },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
          subjects: [sa],
        },
      ]
    : [];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace, labels } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name, labels },
      rules: normalizeRules([...COMMON_CLUSTER_RULES, ...subject.rules]),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [sa],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: `${name}-leader-election`, namespace, labels },
      rules: normalizeRules(LEADER_ELECTION_RULES),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${name}-leader-election`, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-leader-election` },
      subjects: [sa],
    },
    ...namespaced,
  ];
}
