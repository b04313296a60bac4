// The RBAC authorizer over a live store: binding scopes, subjects, kube's allow/deny reasons, the default
// policy every authenticated user has, cache invalidation on RBAC writes, and ClusterRole aggregation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthStack, RBAC_STORAGE } from '../../src/auth/index.ts';
import { ClusterRoleAggregator } from '../../src/auth/rbac/aggregation.ts';
import type { AuthzAttributes } from '../../src/auth/types.ts';
import { ServerCore } from '../../src/core.ts';
import { ObjectStore } from '../../src/storage/store.ts';
import type { KubeObject, UserInfo } from '../../src/types.ts';

const RBAC = 'rbac.authorization.k8s.io/v1';
const bot: UserInfo = {
  username: 'system:serviceaccount:team:bot',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
};
const alice: UserInfo = { username: 'alice', groups: ['devs', 'system:authenticated'] };

const res = (
  verb: string,
  group: string,
  resource: string,
  namespace?: string,
  extra: Partial<AuthzAttributes> = {},
): AuthzAttributes => ({
  isResourceRequest: true,
  path: '',
  verb,
  group,
  version: 'v1',
  resource,
  ...(namespace ? { namespace } : {}),
  ...extra,
});
const url = (path: string, verb = 'get'): AuthzAttributes => ({
  isResourceRequest: false,
  path,
  verb,
  group: '',
  version: '',
});

let n = 0;
function put(key: string, obj: { kind: string; metadata: KubeObject['metadata']; [k: string]: unknown }): KubeObject {
  return core.store.commit(key, 'ADDED', {
    apiVersion: RBAC,
    ...obj,
    metadata: { uid: `uid-${++n}`, ...obj.metadata },
  });
}
function role(name: string, namespace: string, rules: unknown[]): KubeObject {
  return put(RBAC_STORAGE.roles, { kind: 'Role', metadata: { name, namespace }, rules });
}
function clusterRole(name: string, rules: unknown[], labels?: Record<string, string>): KubeObject {
  return put(RBAC_STORAGE.clusterRoles, {
    kind: 'ClusterRole',
    metadata: { name, ...(labels ? { labels } : {}) },
    rules,
  });
}
function binding(
  name: string,
  namespace: string | undefined,
  roleRef: { kind: string; name: string },
  subjects: unknown[],
): KubeObject {
  const key = namespace ? RBAC_STORAGE.roleBindings : RBAC_STORAGE.clusterRoleBindings;
  return put(key, {
    kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...roleRef },
    subjects,
  });
}
function remove(key: string, obj: KubeObject): void {
  core.store.commit(key, 'DELETED', obj);
}

let core: ServerCore;
let auth: AuthStack;
const can = (u: UserInfo, a: AuthzAttributes) => auth.rbac.authorize(u, a).allowed;

describe('RBAC authorizer', () => {
  before(() => {
    core = new ServerCore();
    auth = new AuthStack(core.store, { signingSeed: 'test-seed' });
    auth.start();
  });
  after(() => auth.stop());

  it('lets system:masters do anything, with no reason', () => {
    const admin = { username: 'root', groups: ['system:masters'] };
    assert.deepEqual(auth.rbac.authorize(admin, res('delete', 'apps', 'deployments', 'x')), {
      allowed: true,
      reason: '',
    });
    assert.ok(can(admin, url('/debug/faults', 'post')));
  });

  it('gives every authenticated user discovery, /version, /openapi and the self reviews, and nothing else', () => {
    for (const p of [
      '/api',
      '/api/v1',
      '/apis',
      '/apis/apps/v1',
      '/version',
      '/openapi/v3',
      '/openapi/v3/apis/apps/v1',
      '/healthz',
    ])
      assert.ok(can(bot, url(p)), p);
    assert.ok(can(bot, res('create', 'authorization.k8s.io', 'selfsubjectaccessreviews')));
    assert.ok(can(bot, res('create', 'authorization.k8s.io', 'selfsubjectrulesreviews')));
    assert.ok(can(bot, res('create', 'authentication.k8s.io', 'selfsubjectreviews')));
    assert.equal(can(bot, res('create', 'authorization.k8s.io', 'subjectaccessreviews')), false);
    assert.equal(can(bot, url('/metrics')), false);
    assert.equal(can(bot, url('/version', 'post')), false);
    assert.equal(can(bot, res('list', '', 'configmaps', 'team')), false);
    assert.equal(
      can({ username: 'nobody', groups: [] }, url('/api')),
      false,
      'without system:authenticated nothing is granted',
    );
  });

  it('scopes a RoleBinding to its namespace and a ClusterRoleBinding to everything', () => {
    const r = role('cm-reader', 'team', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    const rb = binding('bot-reads', 'team', { kind: 'Role', name: 'cm-reader' }, [
      { kind: 'ServiceAccount', name: 'bot' },
    ]);
    assert.ok(can(bot, res('list', '', 'configmaps', 'team')));
    assert.equal(can(bot, res('list', '', 'configmaps', 'other')), false);
    assert.equal(can(bot, res('list', '', 'configmaps')), false, 'all-namespaces list is cluster scope');
    assert.equal(can(bot, res('delete', '', 'configmaps', 'team', { name: 'x' })), false);
    assert.equal(
      auth.rbac.authorize(bot, res('get', '', 'configmaps', 'team')).reason,
      'RBAC: allowed by RoleBinding "bot-reads/team" of Role "cm-reader" to ServiceAccount "bot/team"',
    );

    const cr = clusterRole('node-reader', [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
    const rbToCr = binding('nodes-in-ns', 'team', { kind: 'ClusterRole', name: 'node-reader' }, [
      { kind: 'ServiceAccount', name: 'bot', namespace: 'team' },
    ]);
    assert.equal(can(bot, res('list', '', 'nodes')), false, 'a RoleBinding never grants cluster-scoped access');
    const crb = binding('nodes-everywhere', undefined, { kind: 'ClusterRole', name: 'node-reader' }, [
      { kind: 'Group', name: 'system:serviceaccounts:team' },
    ]);
    assert.ok(can(bot, res('list', '', 'nodes')));
    assert.equal(
      auth.rbac.authorize(bot, res('list', '', 'nodes')).reason,
      'RBAC: allowed by ClusterRoleBinding "nodes-everywhere" of ClusterRole "node-reader" to Group "system:serviceaccounts:team"',
    );
    for (const [k, o] of [
      [RBAC_STORAGE.roles, r],
      [RBAC_STORAGE.roleBindings, rb],
      [RBAC_STORAGE.clusterRoles, cr],
      [RBAC_STORAGE.roleBindings, rbToCr],
      [RBAC_STORAGE.clusterRoleBindings, crb],
    ] as const)
      remove(k, o);
    assert.equal(can(bot, res('list', '', 'nodes')), false, 'deleting the binding revokes at once');
  });

  it('applies a ClusterRole through a RoleBinding within the binding namespace, for users and groups', () => {
    const rb = binding('devs-edit', 'team', { kind: 'ClusterRole', name: 'edit' }, [
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
    ]);
    assert.ok(can(alice, res('create', 'apps', 'deployments', 'team')));
    assert.ok(can(alice, res('update', 'apps', 'deployments', 'team', { subresource: 'scale', name: 'web' })));
    assert.equal(
      can(alice, res('update', 'apps', 'deployments', 'team', { subresource: 'status', name: 'web' })),
      false,
      'edit has no status writes',
    );
    assert.ok(
      can(alice, res('get', 'apps', 'deployments', 'team', { subresource: 'status', name: 'web' })),
      'edit includes view',
    );
    assert.equal(can(alice, res('create', 'rbac.authorization.k8s.io', 'roles', 'team')), false, 'edit cannot grant');
    assert.equal(can(alice, res('create', 'apps', 'deployments', 'default')), false);
    remove(RBAC_STORAGE.roleBindings, rb);
  });

  it('reports bindings to missing roles in the denial reason, and recovers when the role appears', () => {
    const rb1 = binding('b1', 'team', { kind: 'Role', name: 'gone' }, [{ kind: 'User', name: 'alice' }]);
    const d1 = auth.rbac.authorize(alice, res('get', '', 'secrets', 'team'));
    assert.deepEqual(d1, { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found' });
    const crb = binding('b2', undefined, { kind: 'ClusterRole', name: 'missing' }, [{ kind: 'User', name: 'alice' }]);
    assert.equal(
      auth.rbac.authorize(alice, res('get', '', 'secrets', 'team')).reason,
      'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]',
    );
    const r = role('gone', 'team', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    assert.ok(can(alice, res('get', '', 'secrets', 'team')));
    for (const [k, o] of [
      [RBAC_STORAGE.roleBindings, rb1],
      [RBAC_STORAGE.clusterRoleBindings, crb],
      [RBAC_STORAGE.roles, r],
    ] as const)
      remove(k, o);
  });

  it('sees a Role rewritten in place', () => {
    const r = role('flip', 'team', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
    const rb = binding('flip', 'team', { kind: 'Role', name: 'flip' }, [{ kind: 'User', name: 'alice' }]);
    assert.ok(can(alice, res('get', '', 'pods', 'team', { name: 'p' })));
    core.store.commit(RBAC_STORAGE.roles, 'MODIFIED', {
      ...r,
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
    });
    assert.equal(can(alice, res('get', '', 'pods', 'team', { name: 'p' })), false);
    assert.ok(can(alice, res('list', '', 'pods', 'team')));
    remove(RBAC_STORAGE.roleBindings, rb);
    remove(RBAC_STORAGE.roles, core.store.get(RBAC_STORAGE.roles, 'team', 'flip')!);
  });

  it('lists the rules that apply in a namespace (SelfSubjectRulesReview)', () => {
    const r = role('lister', 'team', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'], resourceNames: ['cfg'] },
    ]);
    const rb = binding('lister', 'team', { kind: 'Role', name: 'lister' }, [{ kind: 'ServiceAccount', name: 'bot' }]);
    const inTeam = auth.rbac.rulesFor(bot, 'team');
    assert.ok(inTeam.rules.some((x) => x.resources?.includes('configmaps') && x.resourceNames?.includes('cfg')));
    assert.ok(inTeam.rules.some((x) => x.nonResourceURLs?.includes('/version')));
    assert.equal(
      auth.rbac.rulesFor(bot, 'other').rules.some((x) => x.resources?.includes('configmaps')),
      false,
    );
    remove(RBAC_STORAGE.roleBindings, rb);
    remove(RBAC_STORAGE.roles, r);
  });
});

describe('ClusterRole aggregation', () => {
  let aggregator: ClusterRoleAggregator;
  before(() => {
    core = new ServerCore();
    auth = new AuthStack(core.store, { signingSeed: 'test-seed' });
    aggregator = new ClusterRoleAggregator(core);
    auth.start();
    aggregator.start();
  });
  after(() => {
    aggregator.stop();
    auth.stop();
  });

  const rulesOf = (name: string) =>
    (core.store.get(RBAC_STORAGE.clusterRoles, undefined, name)!.rules ?? []) as {
      resources?: string[];
      verbs?: string[];
    }[];
  const grants = (name: string, resource: string, verb: string) =>
    rulesOf(name).some((r) => r.resources?.includes(resource) && r.verbs?.includes(verb));

  it('fills in admin ⊇ edit ⊇ view at start', () => {
    assert.ok(grants('view', 'configmaps', 'list'));
    assert.equal(grants('view', 'secrets', 'get'), false, 'view cannot read secrets');
    assert.ok(
      grants('edit', 'configmaps', 'list') &&
        grants('edit', 'secrets', 'get') &&
        grants('edit', 'deployments', 'create'),
    );
    assert.ok(
      grants('admin', 'configmaps', 'list') &&
        grants('admin', 'deployments', 'create') &&
        grants('admin', 'rolebindings', 'create'),
    );
    assert.equal(grants('edit', 'rolebindings', 'create'), false);
  });

  it('adds and removes a labelled ClusterRole’s rules through the whole chain', async () => {
    const widgets = clusterRole(
      'widgets-view',
      [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
      { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    );
    await aggregator.idle();
    for (const r of ['view', 'edit', 'admin']) assert.ok(grants(r, 'widgets', 'list'), r);
    core.store.commit(RBAC_STORAGE.clusterRoles, 'MODIFIED', {
      ...widgets,
      metadata: { ...widgets.metadata, labels: {} },
    });
    await aggregator.idle();
    for (const r of ['view', 'edit', 'admin']) assert.equal(grants(r, 'widgets', 'list'), false, r);
  });

  it('aggregates a user-defined role with matchExpressions', async () => {
    put(RBAC_STORAGE.clusterRoles, {
      kind: 'ClusterRole',
      metadata: { name: 'monitoring' },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchExpressions: [{ key: 'example.com/aggregate-to-monitoring', operator: 'Exists' }] },
        ],
      },
      rules: [],
    });
    clusterRole('metrics-a', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }], {
      'example.com/aggregate-to-monitoring': 'yes',
    });
    clusterRole(
      'metrics-b',
      [
        { nonResourceURLs: ['/metrics'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      ],
      { 'example.com/aggregate-to-monitoring': '' },
    );
    await aggregator.idle();
    assert.deepEqual(core.store.get(RBAC_STORAGE.clusterRoles, undefined, 'monitoring')!.rules, [
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
    ]);
  });
});

describe('RBAC escalation prevention (the escalation admission plugin on the write path)', () => {
  before(() => {
    const store = new ObjectStore();
    auth = new AuthStack(store, { signingSeed: 'test-seed' });
    core = new ServerCore({ store, admissionPlugins: [auth.escalationCheck] });
    auth.start();
    core.store.commit('/namespaces', 'ADDED', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', uid: 'ns-uid' },
    });
    binding('alice-admin', 'team', { kind: 'ClusterRole', name: 'admin' }, [{ kind: 'User', name: 'alice' }]);
  });
  after(() => auth.stop());

  const write = (
    plural: string,
    namespace: string | undefined,
    obj: Record<string, unknown>,
    user: UserInfo = alice,
  ) => {
    const rt = core.registry.byResource('rbac.authorization.k8s.io', plural)!;
    return core.lifecycle.write({
      rt,
      version: 'v1',
      namespace,
      candidate: { apiVersion: RBAC, kind: rt.kind, ...obj } as KubeObject,
      ctx: { user, dryRun: false, fieldValidation: 'Strict', warnings: [] },
    });
  };
  const refused = (message: string) => (e: unknown) =>
    (e as { code?: number }).code === 403 && (e as Error).message === message;
  const ALICE_GRANTS =
    'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:';

  it('lets a user write a Role with permissions they hold, and refuses one with more', async () => {
    await write('roles', 'team', {
      metadata: { name: 'secret-reader' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    });
    await assert.rejects(
      write('roles', 'team', {
        metadata: { name: 'too-much' },
        rules: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'delete'] }],
      }),
      refused(
        `roles.rbac.authorization.k8s.io "too-much" is forbidden: ${ALICE_GRANTS}\n{APIGroups:[""], Resources:["nodes"], Verbs:["get" "delete"]}`,
      ),
    );
  });

  it('refuses to bind a role the user does not hold, unless they have `bind` on it', async () => {
    await write('rolebindings', 'team', {
      metadata: { name: 'bob-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    const root = {
      metadata: { name: 'bob-root' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'User', name: 'bob' }],
    };
    await assert.rejects(
      write('rolebindings', 'team', root),
      refused(
        `rolebindings.rbac.authorization.k8s.io "bob-root" is forbidden: ${ALICE_GRANTS}\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}`,
      ),
    );
    await assert.rejects(
      write('rolebindings', 'team', {
        ...root,
        metadata: { name: 'dangling' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'missing' },
      }),
      refused(
        'rolebindings.rbac.authorization.k8s.io "dangling" is forbidden: role.rbac.authorization.k8s.io "missing" not found',
      ),
    );
    clusterRole('binder', [
      {
        apiGroups: ['rbac.authorization.k8s.io'],
        resources: ['clusterroles'],
        verbs: ['bind'],
        resourceNames: ['cluster-admin'],
      },
    ]);
    binding('alice-binder', 'team', { kind: 'ClusterRole', name: 'binder' }, [{ kind: 'User', name: 'alice' }]);
    await write('rolebindings', 'team', root);
  });

  it('lets `escalate` and system:masters write anything, and guards aggregationRule', async () => {
    const admin = { username: 'root', groups: ['system:masters'] };
    await write(
      'clusterroles',
      undefined,
      { metadata: { name: 'big' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      admin,
    );
    clusterRole('escalator', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create', 'escalate'] },
    ]);
    const carol = { username: 'carol', groups: ['system:authenticated'] };
    binding('carol-escalates', undefined, { kind: 'ClusterRole', name: 'escalator' }, [
      { kind: 'User', name: 'carol' },
    ]);
    await write(
      'clusterroles',
      undefined,
      { metadata: { name: 'bigger' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      carol,
    );
    await assert.rejects(
      write(
        'clusterroles',
        undefined,
        {
          metadata: { name: 'agg' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
          rules: [],
        },
        alice,
      ),
      refused(
        'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
      ),
    );
  });
});
