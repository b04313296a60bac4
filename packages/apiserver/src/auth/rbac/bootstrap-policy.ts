// The default ClusterRoles and ClusterRoleBindings kube-apiserver creates at start
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), limited to the ones that matter to an operator and
// its users: cluster-admin (bound to system:masters), the discovery/basic-user/public-info roles every
// authenticated user has, and the aggregated user-facing roles admin ⊇ edit ⊇ view.
import { deepEqual, kubeTime, newUid } from '../../objects/meta.ts';
import type { ObjectStore } from '../../storage/store.ts';
import type { KubeObject } from '../../types.ts';
import { GROUP_AUTHENTICATED, GROUP_MASTERS, GROUP_UNAUTHENTICATED } from '../types.ts';
import { aggregatedRules } from './aggregation.ts';
import { RBAC_STORAGE } from './authorizer.ts';
import type { PolicyRule } from './rules.ts';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = [...READ, ...WRITE];
export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

interface RoleSpec {
  name: string;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
  aggregateFrom?: string;
}

const ROLES: RoleSpec[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  {
    name: 'system:discovery',
    rules: [
      urls(
        ['get'],
        [
          '/livez',
          '/readyz',
          '/healthz',
          '/version',
          '/version/',
          '/openapi',
          '/openapi/*',
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
        ],
      ),
    ],
  },
  {
    name: 'system:public-info-viewer',
    rules: [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])],
  },
  {
    name: 'system:basic-user',
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ],
  },
  {
    name: 'system:auth-delegator',
    rules: [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ],
  },
  // the controller that fills in aggregated roles needs `escalate` to write rules it does not hold itself
  {
    name: 'system:controller:clusterrole-aggregation-controller',
    rules: [
      rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], ['rbac.authorization.k8s.io'], ['clusterroles']),
    ],
  },
  { name: 'admin', aggregateFrom: AGGREGATE_TO_ADMIN },
  { name: 'edit', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, aggregateFrom: AGGREGATE_TO_EDIT },
  { name: 'view', labels: { [AGGREGATE_TO_EDIT]: 'true' }, aggregateFrom: AGGREGATE_TO_VIEW },
  {
    name: 'system:aggregate-to-admin',
    labels: { [AGGREGATE_TO_ADMIN]: 'true' },
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      rule(READ_WRITE, ['rbac.authorization.k8s.io'], ['roles', 'rolebindings']),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [AGGREGATE_TO_EDIT]: 'true' },
    rules: [
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(
        WRITE,
        [''],
        [
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/proxy',
          'persistentvolumeclaims',
          'configmaps',
          'secrets',
          'events',
        ],
      ),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(
        WRITE,
        ['apps'],
        [
          'statefulsets',
          'statefulsets/scale',
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'replicasets',
          'replicasets/scale',
        ],
      ),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
      rule(
        WRITE,
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'ingresses',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['networkpolicies', 'ingresses']),
      rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [AGGREGATE_TO_VIEW]: 'true' },
    rules: [
      rule(
        READ,
        [''],
        [
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'configmaps',
        ],
      ),
      rule(
        READ,
        [''],
        [
          'limitranges',
          'resourcequotas',
          'bindings',
          'events',
          'pods/status',
          'resourcequotas/status',
          'namespaces/status',
          'replicationcontrollers/status',
          'pods/log',
        ],
      ),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(
        READ,
        ['apps'],
        [
          'controllerrevisions',
          'statefulsets',
          'statefulsets/status',
          'statefulsets/scale',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/status',
          'deployments/scale',
          'replicasets',
          'replicasets/status',
          'replicasets/scale',
        ],
      ),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(
        READ,
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingresses/status']),
    ],
  },
];

const group = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name });
const BINDINGS: { name: string; subjects: Record<string, string>[] }[] = [
  { name: 'cluster-admin', subjects: [group(GROUP_MASTERS)] },
  { name: 'system:discovery', subjects: [group(GROUP_AUTHENTICATED)] },
  { name: 'system:basic-user', subjects: [group(GROUP_AUTHENTICATED)] },
  { name: 'system:public-info-viewer', subjects: [group(GROUP_AUTHENTICATED), group(GROUP_UNAUTHENTICATED)] },
  {
    name: 'system:controller:clusterrole-aggregation-controller',
    subjects: [{ kind: 'ServiceAccount', name: 'clusterrole-aggregation-controller', namespace: 'kube-system' }],
  },
];

function meta(name: string, labels: Record<string, string> = {}): KubeObject['metadata'] {
  return {
    name,
    uid: newUid(),
    creationTimestamp: kubeTime(),
    labels: { ...labels, 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  };
}

export function bootstrapClusterRoles(): KubeObject[] {
  return ROLES.map((r) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta(r.name, r.labels),
    ...(r.aggregateFrom
      ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [r.aggregateFrom]: 'true' } }] } }
      : {}),
    rules: r.rules ?? [],
  }));
}

export function bootstrapClusterRoleBindings(): KubeObject[] {
  return BINDINGS.map((b) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta(b.name),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: b.name },
    subjects: b.subjects,
  }));
}

/**
 * Creates the defaults that are missing (a persisted cluster keeps what its users changed, as kube keeps
 * roles whose autoupdate annotation was turned off; deleted defaults come back, as they do in kube).
 */
export function ensureBootstrapPolicy(store: ObjectStore): void {
  const created = bootstrapClusterRoles().filter(
    (r) => !store.get(RBAC_STORAGE.clusterRoles, undefined, r.metadata.name!),
  );
  // Aggregate before storing, so admin/edit/view are never seen empty and startup writes nothing twice.
  const pool = [...store.list(RBAC_STORAGE.clusterRoles), ...created];
  for (let pass = 0, changed = true; changed && pass < pool.length; pass++) {
    changed = false;
    for (const role of created) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, pool);
      if (!deepEqual(rules, role.rules)) {
        role.rules = rules;
        changed = true;
      }
    }
  }
  for (const role of created) store.commit(RBAC_STORAGE.clusterRoles, 'ADDED', role);
  for (const binding of bootstrapClusterRoleBindings()) {
    if (!store.get(RBAC_STORAGE.clusterRoleBindings, undefined, binding.metadata.name!))
      store.commit(RBAC_STORAGE.clusterRoleBindings, 'ADDED', binding);
  }
}
