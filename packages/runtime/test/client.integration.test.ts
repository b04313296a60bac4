import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../src/client/client.ts';
import {
  isAborted,
  isConflict,
  isNetworkError,
  isNoKindMatch,
  isNotFound,
  isTimeout,
  isTransient,
} from '../src/client/errors.ts';
import { ConfigMaps } from '../src/client/kinds.ts';
import { kindRef } from '../src/meta/types.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { StubApiServer } from './helpers/stub-apiserver.ts';

const Widgets = kindRef('test.modelplane.io/v1', 'Widget');

describe('KubeClient against a stub server', () => {
  let stub: StubApiServer;
  let client: KubeClient;
  let metrics: RuntimeMetrics;

  before(async () => {
    stub = await new StubApiServer().start();
    metrics = new RuntimeMetrics();
    client = await KubeClient.create(stub.kubeconfig('secret-token'), {
      metrics,
      fieldManager: 'tester',
      timeoutMs: 500,
    });
  });
  after(async () => {
    client.close();
    await stub.close();
  });

  it('maps kinds through discovery once per group-version and builds namespaced paths', async () => {
    const before = stub.countRequests((r) => r.path === '/api/v1');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns' },
      data: { x: '1' },
    });
    const got = await client.get(ConfigMaps, 'a', 'ns');
    assert.equal(got.data?.x, '1');
    const list = await client.list(ConfigMaps, { namespace: 'ns' });
    assert.equal(list.items.length, 1);
    assert.equal(stub.countRequests((r) => r.path === '/api/v1') - before, 1, 'one discovery request for v1');
    const post = stub.requests.find((r) => r.method === 'POST')!;
    assert.equal(post.path, '/api/v1/namespaces/ns/configmaps');
    assert.equal(post.query.get('fieldManager'), 'tester');
    assert.equal(post.headers.authorization, 'Bearer secret-token');
  });

  it('an unknown kind is a NoKindMatchError after one re-discovery, not a NotFound', async () => {
    const err = await client.get(kindRef('test.modelplane.io/v1', 'Gadget'), 'x', 'ns').catch((e) => e);
    assert.ok(isNoKindMatch(err), String(err));
    assert.equal(isNotFound(err), false);
    const err2 = await client.get(kindRef('nogroup.io/v1', 'Thing'), 'x', 'ns').catch((e) => e);
    assert.ok(isNoKindMatch(err2));
  });

  it('server-side apply sends the apply content type, field manager and force, without managedFields', async () => {
    await client.apply({
      apiVersion: 'test.modelplane.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns', managedFields: [{ manager: 'x' }] },
      spec: { size: 2 },
    });
    const req = stub.requests.filter((r) => r.method === 'PATCH').at(-1)!;
    assert.equal(req.path, '/apis/test.modelplane.io/v1/namespaces/ns/widgets/w');
    assert.equal(req.headers['content-type'], 'application/apply-patch+yaml');
    assert.equal(req.query.get('fieldManager'), 'tester');
    assert.equal(req.query.get('force'), 'true');
    assert.equal(req.body.metadata.managedFields, undefined);
    await client.withFieldManager('status-writer').applyStatus(
      {
        apiVersion: 'test.modelplane.io/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'ns' },
        status: { ready: true },
      },
      { force: false },
    );
    const st = stub.requests.filter((r) => r.method === 'PATCH').at(-1)!;
    assert.equal(st.path, '/apis/test.modelplane.io/v1/namespaces/ns/widgets/w/status');
    assert.equal(st.query.get('fieldManager'), 'status-writer');
    assert.equal(st.query.get('force'), 'false');
    assert.deepEqual((await client.get(Widgets, 'w', 'ns')).status, { ready: true });
  });

  it('apply without any field manager is refused before a request is made', async () => {
    const bare = new KubeClient(client.transport, client.mapper);
    await assert.rejects(
      bare.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z', namespace: 'ns' } }),
      /needs a field manager/,
    );
  });

  it('dryRun sends dryRun=All and persists nothing', async () => {
    await client.create(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'ns' } },
      { dryRun: true },
    );
    assert.equal(stub.requests.at(-1)!.query.get('dryRun'), 'All');
    assert.equal(await client.getOrUndefined(ConfigMaps, 'dry', 'ns'), undefined);
  });

  it('merge patch and update with a stale resourceVersion (conflict) are classified', async () => {
    const cm = await client.get(ConfigMaps, 'a', 'ns');
    await client.patch(ConfigMaps, 'a', 'ns', { data: { y: '2' } }, 'merge');
    assert.equal(stub.requests.at(-1)!.headers['content-type'], 'application/merge-patch+json');
    const err = await client.update({ ...cm, data: { z: '3' } }).catch((e) => e);
    assert.ok(isConflict(err), String(err));
  });

  it('delete sends DeleteOptions and a missing object is NotFound', async () => {
    await client.delete(ConfigMaps, 'a', 'ns', { propagationPolicy: 'Foreground' });
    assert.equal(stub.requests.at(-1)!.body.propagationPolicy, 'Foreground');
    const err = await client.delete(ConfigMaps, 'a', 'ns').catch((e) => e);
    assert.ok(isNotFound(err));
  });

  it('follows continue tokens when listing without a limit', async () => {
    for (let i = 0; i < 7; i++)
      stub.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}`, namespace: 'pages' } });
    const all = await client.list(ConfigMaps, { namespace: 'pages' });
    assert.equal(all.items.length, 7);
    const one = await client.list(ConfigMaps, { namespace: 'pages', limit: 3 });
    assert.equal(one.items.length, 3);
    assert.equal(one.metadata.continue, '3');
  });

  it('5xx responses are transient and counted in rest_client_requests_total{code,method,host}', async () => {
    stub.failNext(1, 503);
    const err = await client.get(ConfigMaps, 'page-1', 'pages').catch((e) => e);
    assert.ok(isTransient(err));
    const text = await metrics.text();
    assert.match(
      text,
      new RegExp(
        `rest_client_requests_total\\{code="503",method="GET",host="127.0.0.1:${new URL(stub.url).port}"\\} 1`,
      ),
    );
    assert.match(text, /rest_client_requests_total\{code="200",method="GET"/);
  });

  it('a server that never answers times out with a timeout classification', async () => {
    stub.holdLists = true;
    try {
      const err = await client.list(ConfigMaps, { namespace: 'pages', limit: 1 }).catch((e) => e);
      assert.ok(isTimeout(err), String(err));
      assert.ok(isTransient(err));
    } finally {
      stub.holdLists = false;
    }
  });

  it('a caller abort is classified as aborted, not as a failure', async () => {
    stub.holdLists = true;
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 20);
      const err = await client.transport
        .request({ method: 'GET', path: '/api/v1/namespaces/pages/configmaps', signal: ac.signal, timeoutMs: 5000 })
        .catch((e) => e);
      assert.ok(isAborted(err), String(err));
      assert.equal(isTransient(err), false);
    } finally {
      stub.holdLists = false;
    }
  });
});

describe('KubeClient network failures', () => {
  it('connection refused is a transient network error', async () => {
    const srv = http.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const stub = new StubApiServer();
    stub.url = `http://127.0.0.1:${port}`;
    const client = await KubeClient.create(stub.kubeconfig(), { timeoutMs: 1000 });
    const err = await client.get(ConfigMaps, 'x', 'ns').catch((e) => e);
    assert.ok(isNetworkError(err), String(err));
    assert.equal(err.network, 'connection-refused');
    assert.ok(isTransient(err));
    client.close();
  });
});
