// `modelplane dashboard --auth tokenreview`, the in-cluster mode: the dashboard runs as a ServiceAccount
// that may only create TokenReviews and impersonate (the RBAC docs/dashboard.md gives), each person signs in
// with their own Kubernetes token, and sees and writes with exactly their own rights: a namespace viewer
// sees ModelDeployments of their namespace and may not create; an editor creates, and the API server's audit
// log shows the write made as that person; a token the API server does not know is refused; the dashboard's
// own ServiceAccount reads nothing itself.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadKubeConfig } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { startSignInDashboard } from '../../../src/cli/dashboard/index.ts';
import { DASHBOARD_RULES, normalizeRules } from '../../../src/controllers/rbac.ts';
import type { DashboardServer } from '../../../src/cli/dashboard/server.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { httpRequest } from '../../helpers/hostile-http.ts';

const log = new Logger({}, 'silent');
const DASHBOARD_USER = 'system:serviceaccount:modelplane-system:dashboard';
const SPEC = { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };

/** the dashboard's own RBAC in a cluster: the rules the chart ships (docs/dashboard.md), review tokens and impersonate */
const DASHBOARD_RBAC = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'modelplane-dashboard' },
    rules: normalizeRules(DASHBOARD_RULES),
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'modelplane-dashboard' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'modelplane-dashboard' },
    subjects: [{ kind: 'ServiceAccount', name: 'dashboard', namespace: 'modelplane-system' }],
  },
];

describe('dashboard --auth tokenreview: each person acts with their own rights', () => {
  let cluster: DevTestCluster;
  let dashboard: DashboardServer;
  let dir: string;
  let port: number;
  let viewer: string;
  let editor: string;
  const get = (path: string, token?: string) =>
    httpRequest({ port, method: 'GET', path, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) });
  const post = (path: string, body: unknown, token: string) =>
    httpRequest({
      port,
      method: 'POST',
      path,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: ['team-a', 'team-b', 'modelplane-system'] });
    await cluster.admin.create({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'first', namespace: 'team-a' },
      spec: SPEC,
    });
    await cluster.admin.create({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'other', namespace: 'team-b' },
      spec: SPEC,
    });
    await cluster.k(['create', 'serviceaccount', 'dashboard', '-n', 'modelplane-system']);
    for (const o of DASHBOARD_RBAC) await cluster.admin.apply(o as never);
    // both read ModelDeployments everywhere (and nothing else); only the editor creates, in team-b only
    await cluster.k([
      'create',
      'clusterrole',
      'md-reader',
      '--verb=get,list,watch',
      '--resource=modeldeployments.kubeairunway.ai',
    ]);
    await cluster.k([
      'create',
      'role',
      'md-creator',
      '-n',
      'team-b',
      '--verb=create',
      '--resource=modeldeployments.kubeairunway.ai',
    ]);
    for (const [ns, name] of [
      ['team-a', 'viewer'],
      ['team-b', 'editor'],
    ] as const) {
      await cluster.k(['create', 'serviceaccount', name, '-n', ns]);
      await cluster.k([
        'create',
        'clusterrolebinding',
        `md-reader-${name}`,
        '--clusterrole=md-reader',
        `--serviceaccount=${ns}:${name}`,
      ]);
    }
    await cluster.k([
      'create',
      'rolebinding',
      'md-creator',
      '-n',
      'team-b',
      '--role=md-creator',
      '--serviceaccount=team-b:editor',
    ]);
    viewer = (await cluster.k(['create', 'token', 'viewer', '-n', 'team-a'])).trim();
    editor = (await cluster.k(['create', 'token', 'editor', '-n', 'team-b'])).trim();
    dir = mkdtempSync(join(tmpdir(), 'modelplane-signin-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    const kubeconfig = loadKubeConfig(await cluster.serviceAccountKubeconfig('modelplane-system', 'dashboard'));
    dashboard = await startSignInDashboard({ kubeconfig, cluster: 'test', logger: log, staticDir: dir });
    port = Number(new URL(dashboard.url).port);
  });
  after(async () => {
    await dashboard?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses requests without a token or with one the API server does not know', async () => {
    for (const token of [undefined, 'not-a-token', `${viewer}x`]) {
      const r = await get('/api/resources', token);
      assert.equal(r.status, 401, `${token?.slice(0, 8)}: ${r.body}`);
      assert.match(JSON.parse(r.body).error, /sign in with your Kubernetes bearer token/);
    }
  });

  it('a viewer sees only what their Role allows, as themselves, and cannot create', async () => {
    const info = JSON.parse((await get('/api/info', viewer)).body);
    assert.equal(info.user, 'system:serviceaccount:team-a:viewer');
    assert.deepEqual(
      info.kinds.map((k: { kind: string }) => k.kind),
      ['ModelDeployment'],
    );
    assert.ok(
      info.hidden.includes('secrets') || info.hidden.includes('pods'),
      'what the Role does not grant is hidden',
    );
    const names = JSON.parse((await get('/api/resources', viewer)).body).map((r: { name: string }) => r.name);
    assert.deepEqual(names.sort(), ['first', 'other']);
    const denied = await post(
      '/api/modeldeployments',
      { metadata: { name: 'by-viewer', namespace: 'team-a' }, spec: SPEC },
      viewer,
    );
    assert.equal(denied.status, 403, denied.body);
    assert.match(
      JSON.parse(denied.body).errors[0].message,
      /User "system:serviceaccount:team-a:viewer" cannot create resource "modeldeployments"/,
    );
  });

  it("refuses an editor's write from a foreign or null Origin before it reaches the API server", async () => {
    for (const origin of ['https://evil.example', 'null']) {
      const r = await httpRequest({
        port,
        method: 'POST',
        path: '/api/modeldeployments',
        headers: { Authorization: `Bearer ${editor}`, 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify({ metadata: { name: 'cross-site', namespace: 'team-b' }, spec: SPEC }),
      });
      assert.equal(r.status, 403, `${origin}: ${r.body}`);
    }
    const stored = await cluster.kubectl(['get', 'modeldeployment', 'cross-site', '-n', 'team-b']);
    assert.match(stored.stderr, /NotFound|not found/, 'nothing was created');
  });

  it('an editor creates, and the API server records the write as made by the editor', async () => {
    const elsewhere = await post(
      '/api/modeldeployments',
      { metadata: { name: 'by-editor', namespace: 'team-a' }, spec: SPEC },
      editor,
    );
    assert.equal(elsewhere.status, 403, 'the editor may create in team-b only');
    const created = await post(
      '/api/modeldeployments',
      { metadata: { name: 'by-editor', namespace: 'team-b' }, spec: SPEC },
      editor,
    );
    assert.equal(created.status, 201, created.body);
    const writes = cluster
      .auditEntries()
      .filter(
        (e) =>
          e.verb === 'create' &&
          e.resource === 'modeldeployments' &&
          e.namespace === 'team-b' &&
          e.code === 201 &&
          e.user !== 'modelplane-admin',
      );
    assert.ok(writes.length >= 1, 'the create is in the audit log');
    for (const e of writes) {
      assert.equal(e.user, 'system:serviceaccount:team-b:editor');
      assert.equal(e.impersonatedBy, DASHBOARD_USER);
    }
  });

  it("the dashboard's own ServiceAccount reads nothing itself: every list and watch is made as a person", () => {
    const entries = cluster.auditEntries();
    assert.ok(entries.some((e) => e.user === DASHBOARD_USER && e.resource === 'tokenreviews' && e.code === 201));
    assert.ok(
      entries.some((e) => e.impersonatedBy === DASHBOARD_USER && e.verb === 'list'),
      'lists as a person (its watches are recorded when they end)',
    );
    const own = entries.filter((e) => e.user === DASHBOARD_USER && e.resource !== 'tokenreviews');
    assert.deepEqual(
      own.map((e) => `${e.verb} ${e.resource} ${e.code}`),
      [],
    );
  });
});
