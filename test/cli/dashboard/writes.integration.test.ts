// The dashboard's write endpoints against an attacker: the server decides the kind, version and fields of
// what it creates, so a body naming any kind the cluster serves (a ClusterRoleBinding to cluster-admin, a
// Secret, a Pod …) with a valid ModelDeployment spec is refused with 422 and nothing is created; extra
// top-level or metadata fields and foreign namespaces are refused; writes from a foreign or null Origin, a
// cross-site fetch or a form are refused; a request target that is not a URL and bodies past the limit get
// 4xx; after every hostile request the dashboard still answers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { DASHBOARD_MAX_BODY_BYTES } from '../../../src/cli/dashboard/http.ts';
import { type Dashboard, startDashboard } from '../../../src/cli/dashboard/index.ts';
import { type DevTestCluster, startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { exchange, httpRequest } from '../../helpers/hostile-http.ts';

const log = new Logger({}, 'silent');
const SPEC = { model: { id: 'Qwen/Qwen3-0.6B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };
const JSON_HEADERS = { 'Content-Type': 'application/json' };

interface ServedKind {
  groupVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** every kind the API server serves that a user could ask to create */
async function servedKinds(client: KubeClient): Promise<ServedKind[]> {
  const get = async (path: string) => (await client.transport.request({ method: 'GET', path })).body as any;
  const groupVersions = [
    'v1',
    ...((await get('/apis')).groups as any[]).flatMap((g) => g.versions.map((v: any) => v.groupVersion)),
  ];
  const kinds: ServedKind[] = [];
  for (const gv of groupVersions) {
    const list = await get(gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    for (const r of list.resources as any[])
      if (!r.name.includes('/') && (r.verbs as string[]).includes('create'))
        kinds.push({ groupVersion: gv, kind: r.kind, plural: r.name, namespaced: r.namespaced });
  }
  return kinds;
}

describe('dashboard writes: only the ModelDeployment the form describes', () => {
  let cluster: DevTestCluster;
  let dashboard: Dashboard;
  let staticDir: string;
  let port: number;
  const post = (path: string, body: unknown, headers: Record<string, string> = JSON_HEADERS) =>
    httpRequest({ port, method: 'POST', path, headers, body: JSON.stringify(body) });
  const stillAnswers = async () => {
    const r = await httpRequest({ port, method: 'GET', path: '/api/info' });
    assert.equal(r.status, 200, 'the dashboard still answers');
  };

  before(async () => {
    cluster = await startDevTestCluster({ namespaces: ['team-a', 'team-b'] });
    staticDir = mkdtempSync(join(tmpdir(), 'modelplane-web-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    const client = await KubeClient.create(cluster.dev.server.kubeconfigYaml());
    dashboard = await startDashboard({ client, cluster: 'test', user: 'admin', logger: log, staticDir });
    port = Number(new URL(dashboard.url).port);
  });
  after(async () => {
    await dashboard?.close();
    await cluster?.stop();
    rmSync(staticDir, { recursive: true, force: true });
  });

  it('refuses every kind the cluster serves but ModelDeployment, and creates none of them', async () => {
    const kinds = (await servedKinds(cluster.admin)).filter((k) => k.kind !== 'ModelDeployment');
    assert.ok(kinds.length >= 30, `discovery lists only ${kinds.length} kinds`);
    assert.ok(kinds.some((k) => k.kind === 'ClusterRoleBinding'));
    for (const [i, k] of kinds.entries()) {
      const name = `pwn-${i}`;
      const body = {
        apiVersion: k.groupVersion,
        kind: k.kind,
        metadata: { name, namespace: 'team-a' },
        spec: SPEC,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'Group', name: 'system:authenticated', apiGroup: 'rbac.authorization.k8s.io' }],
        data: { a: 'b' },
      };
      for (const path of ['/api/modeldeployments', '/api/modeldeployments/validate']) {
        const r = await post(path, body);
        const reply = JSON.parse(r.body);
        assert.ok(r.status === 422 || (path.endsWith('validate') && r.status === 200), `${k.kind}: ${r.status}`);
        assert.ok(
          reply.errors.some((e: any) => e.field === 'kind' && e.message.includes(JSON.stringify(k.kind))),
          `${k.kind} at ${path}: ${r.body}`,
        );
      }
      // the kind alone (right apiVersion, wrong kind) and the version alone are refused as well
      assert.equal(
        (await post('/api/modeldeployments', { ...body, apiVersion: 'kubeairunway.ai/v1alpha1' })).status,
        422,
      );
      const path = `/${k.groupVersion === 'v1' ? 'api/v1' : `apis/${k.groupVersion}`}${k.namespaced ? '/namespaces/team-a' : ''}/${k.plural}/${name}`;
      const stored = await cluster.admin.transport.request({ method: 'GET', path }).catch((e) => e);
      assert.equal(stored.code, 404, `${k.kind} ${name} must not exist`);
    }
    await stillAnswers();
  });

  it('refuses fields the form does not write and namespaces that are not a name', async () => {
    const base = { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment', spec: SPEC };
    const cases: Array<[string, unknown, string]> = [
      ['status', { ...base, metadata: { name: 'a', namespace: 'team-a' }, status: { phase: 'Running' } }, 'status'],
      ['rules', { ...base, metadata: { name: 'a', namespace: 'team-a' }, rules: [] }, 'rules'],
      [
        'owner',
        { ...base, metadata: { name: 'a', namespace: 'team-a', ownerReferences: [] } },
        'metadata.ownerReferences',
      ],
      [
        'finalizers',
        { ...base, metadata: { name: 'a', namespace: 'team-a', finalizers: ['x'] } },
        'metadata.finalizers',
      ],
      ['generateName', { ...base, metadata: { generateName: 'a-', namespace: 'team-a' } }, 'metadata.generateName'],
      ['path namespace', { ...base, metadata: { name: 'a', namespace: '../kube-system' } }, 'metadata.namespace'],
      ['object namespace', { ...base, metadata: { name: 'a', namespace: { $ne: 1 } } }, 'metadata.namespace'],
      ['labels', { ...base, metadata: { name: 'a', namespace: 'team-a', labels: { a: 1 } } }, 'metadata.labels'],
      [
        'version',
        { ...base, apiVersion: 'kubeairunway.ai/v1', metadata: { name: 'a', namespace: 'team-a' } },
        'apiVersion',
      ],
    ];
    for (const [what, body, field] of cases) {
      const r = await post('/api/modeldeployments', body);
      assert.equal(r.status, 422, `${what}: ${r.body}`);
      assert.ok(
        JSON.parse(r.body).errors.some((e: any) => e.field === field),
        `${what}: ${r.body}`,
      );
    }
    for (const body of [[], 'x', 1, null]) assert.equal((await post('/api/modeldeployments', body)).status, 422);
    const list = await cluster.admin.list({ apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' });
    assert.deepEqual(
      list.items.map((o) => o.metadata.name),
      [],
      'nothing was created',
    );
    await stillAnswers();
  });

  it('creates exactly the ModelDeployment the form names, labels and annotations included', async () => {
    const r = await post('/api/modeldeployments', {
      metadata: { name: 'from-form', namespace: 'team-b', labels: { team: 'b' }, annotations: { note: 'x' } },
      spec: SPEC,
    });
    assert.equal(r.status, 201, r.body);
    const got = await cluster.admin.get(
      { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' },
      'from-form',
      'team-b',
    );
    assert.equal(got.metadata.labels?.team, 'b');
    assert.equal(got.metadata.annotations?.note, 'x');
  });

  it('refuses writes from foreign or null origins, cross-site fetches and forms; answers bad targets with 400', async () => {
    const body = { metadata: { name: 'origin-test', namespace: 'team-a' }, spec: SPEC };
    const refusals: Array<Record<string, string>> = [
      { ...JSON_HEADERS, Origin: 'null' },
      { ...JSON_HEADERS, Origin: 'http://evil.example' },
      { ...JSON_HEADERS, Origin: `http://127.0.0.1:${port}.evil.example` },
      { ...JSON_HEADERS, Origin: 'not a url' },
      { ...JSON_HEADERS, Origin: `file://127.0.0.1:${port}` },
      { ...JSON_HEADERS, 'Sec-Fetch-Site': 'cross-site' },
      { 'Content-Type': 'text/plain' },
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      { 'Content-Type': 'application/jsonp' },
      {},
    ];
    for (const headers of refusals) {
      for (const path of ['/api/modeldeployments', '/api/modeldeployments/validate']) {
        const r = await post(path, body, headers);
        assert.equal(r.status, 403, `${JSON.stringify(headers)} ${path}: ${r.status} ${r.body}`);
        assert.match(JSON.parse(r.body).error, /writes must/);
      }
      await stillAnswers();
    }
    const same = await post('/api/modeldeployments/validate', body, {
      ...JSON_HEADERS,
      Origin: `http://127.0.0.1:${port}`,
    });
    assert.equal(same.status, 200, same.body);
    for (const target of ['http://[', '*', 'http://[::1', '/%E0%A4%A', 'http://x:99999/']) {
      const r = await exchange({ port }, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      assert.equal(r.status, 400, target);
      await stillAnswers();
    }
    const list = await cluster.admin.list(
      { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' },
      { namespace: 'team-a' },
    );
    assert.ok(!list.items.some((o) => o.metadata.name === 'origin-test'));
  });

  it('states its body limit: a larger body gets 413, declared or chunked; invalid JSON gets 400', async () => {
    const big = `{"x":"${'a'.repeat(DASHBOARD_MAX_BODY_BYTES)}"}`;
    const declared = await httpRequest({
      port,
      method: 'POST',
      path: '/api/modeldeployments',
      headers: JSON_HEADERS,
      body: big,
    });
    assert.equal(declared.status, 413);
    assert.match(JSON.parse(declared.body).error, new RegExp(`limit of ${DASHBOARD_MAX_BODY_BYTES} bytes`));
    const chunked = await httpRequest({
      port,
      method: 'POST',
      path: '/api/modeldeployments',
      headers: JSON_HEADERS,
      body: big,
      chunked: true,
    });
    assert.equal(chunked.status, 413);
    for (const bad of ['{', '', '[[[[[[[[', `${'['.repeat(100_000)}${']'.repeat(100_000)}`]) {
      const r = await httpRequest({
        port,
        method: 'POST',
        path: '/api/modeldeployments/validate',
        headers: JSON_HEADERS,
        body: bad,
      });
      assert.ok(r.status === 400 || r.status === 200, `${bad.slice(0, 10)}: ${r.status} ${r.body.slice(0, 200)}`);
    }
    await stillAnswers();
  });

  it('sends the security headers a browser needs on pages, API answers and refusals', async () => {
    for (const r of [
      await httpRequest({ port, method: 'GET', path: '/' }),
      await httpRequest({ port, method: 'GET', path: '/api/info' }),
      await post('/api/modeldeployments', {}, { 'Content-Type': 'text/plain' }),
    ]) {
      assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(String(r.headers['content-security-policy']), /default-src 'self'/);
      assert.equal(r.headers['x-frame-options'], 'DENY');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
    }
  });
});
