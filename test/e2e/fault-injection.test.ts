// The test cluster's fault injection, one contract on both backends (docs/real-kubernetes.md): on the
// embedded server its own injector, on the real control plane the fault proxy in front of kube-apiserver.
// Faults are scoped by the user the API server sees (here a ServiceAccount's token), answer with the
// Status kube-apiserver writes for that error, are counted, and drop, stall and expire the watches of the
// clients routed through them; a restart keeps every object.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type FaultInjection,
  openWatch,
  type RawTarget,
  raw,
  realOnly,
  startFaultInjection,
  startTestCluster,
  type TestCluster,
} from '@modelplane/apiserver/testing';
import { parse } from 'yaml';
import { waitFor } from '../helpers/wait.ts';

const NS = 'faults';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const BOB = `system:serviceaccount:${NS}:bob`;
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS } });

/** a kubeconfig's server and bearer token as a raw-request target */
function target(kubeconfigYaml: string, caPem: string): RawTarget {
  const config = parse(kubeconfigYaml);
  return { url: config.clusters[0].cluster.server, caPem, adminToken: config.users[0].user.token };
}

describe('fault injection on the test cluster (same contract on both backends)', { timeout: 120_000 }, () => {
  let cluster: TestCluster;
  let injection: FaultInjection;
  let dataDir: string;
  /** bob, through the faults */
  let bob: RawTarget;
  /** the admin, through the faults too (faults scoped to bob must leave it alone) */
  let admin: RawTarget;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'modelplane-faults-'));
    cluster = await startTestCluster({ dataDir });
    injection = await startFaultInjection(cluster.real ?? cluster.server);
    assert.equal((await raw(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bob', namespace: NS } };
    assert.equal((await raw(cluster, 'POST', `/api/v1/namespaces/${NS}/serviceaccounts`, sa)).status, 201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bob-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'bob', namespace: NS }],
    };
    assert.equal(
      (await raw(cluster, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', binding)).status,
      201,
    );
    bob = target(injection.route(await cluster.serviceAccountKubeconfig(NS, 'bob')), cluster.caPem);
    admin = target(injection.route(cluster.kubeconfig), cluster.caPem);
    assert.equal((await raw(bob, 'POST', CMS, cm('seed'))).status, 201, 'bob reaches the server through the faults');
  });

  after(async () => {
    await injection?.stop();
    await cluster?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers a user's matching requests with 500, 503 and 429 Status bodies, and counts them", async () => {
    for (const code of [500, 503, 429] as const) {
      const before = injection.faults.faulted().length;
      const id = injection.faults.add({ users: [BOB], verbs: ['list'], resources: ['configmaps'], error: code });
      const r = await raw(bob, 'GET', CMS);
      assert.equal(r.status, code);
      const status = r.json();
      assert.equal(status.kind, 'Status');
      assert.equal(status.code, code);
      assert.equal(status.reason, { 500: 'InternalError', 503: 'ServiceUnavailable', 429: 'TooManyRequests' }[code]);
      if (code === 429) assert.equal(r.headers['retry-after'], '1');
      assert.equal((await raw(admin, 'GET', CMS)).status, 200, 'another user is left alone');
      assert.equal((await raw(bob, 'GET', `${CMS}/seed`)).status, 200, 'another verb is left alone');
      injection.faults.remove(id);
      const counted = injection.faults.faulted().slice(before);
      assert.deepEqual(
        counted.map((f) => [f.user, f.verb, f.resource, f.namespace, f.code]),
        [[BOB, 'list', 'configmaps', NS, code]],
      );
    }
    assert.equal((await raw(bob, 'GET', CMS)).status, 200);
  });

  it('answers writes with 409 Conflict naming the object, a fraction of the time', async () => {
    const id = injection.faults.add({ users: [BOB], resources: ['configmaps'], conflict: true });
    const r = await raw(
      bob,
      'PATCH',
      `${CMS}/seed`,
      { data: { a: 'b' } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(r.status, 409);
    assert.equal(r.json().reason, 'Conflict');
    assert.match(r.json().message, /^Operation cannot be fulfilled on configmaps "seed": the object has been modified/);
    assert.equal((await raw(bob, 'GET', `${CMS}/seed`)).status, 200, 'reads are not conflicts');
    injection.faults.remove(id);
    const half = injection.faults.add({ users: [BOB], verbs: ['get'], fraction: 0.5, error: 503 });
    let failed = 0;
    for (let i = 0; i < 100; i++) if ((await raw(bob, 'GET', `${CMS}/seed`)).status === 503) failed++;
    injection.faults.remove(half);
    assert.ok(failed > 20 && failed < 80, `about half failed (${failed}/100)`);
  });

  it('drops, stalls and releases, and expires the watches routed through it', async () => {
    const rvOf = async () => (await raw(cluster, 'GET', CMS)).json().metadata.resourceVersion as string;
    const dropped = openWatch(bob, `${CMS}?watch=true&resourceVersion=${await rvOf()}`);
    await raw(cluster, 'POST', CMS, cm('before-close'));
    await dropped.next((e) => e.object.metadata?.name === 'before-close');
    injection.faults.closeWatches();
    await dropped.ended;

    const stalled = openWatch(bob, `${CMS}?watch=true&resourceVersion=${await rvOf()}`);
    await raw(cluster, 'POST', CMS, cm('probe'));
    await stalled.next((e) => e.object.metadata?.name === 'probe');
    injection.faults.stallWatches(true);
    for (const name of ['held-1', 'held-2']) assert.equal((await raw(cluster, 'POST', CMS, cm(name))).status, 201);
    assert.equal((await raw(cluster, 'DELETE', `${CMS}/held-1`)).status, 200);
    // the events exist (a fresh list shows them) while the stalled watch has not seen them
    assert.ok((await raw(cluster, 'GET', `${CMS}/held-2`)).status === 200);
    assert.deepEqual(
      stalled.events.map((e) => `${e.type} ${e.object.metadata?.name}`),
      ['ADDED probe'],
      'nothing arrives while stalled',
    );
    injection.faults.stallWatches(false);
    await stalled.next((e) => e.type === 'DELETED');
    assert.deepEqual(
      stalled.events.map((e) => `${e.type} ${e.object.metadata?.name}`),
      ['ADDED probe', 'ADDED held-1', 'ADDED held-2', 'DELETED held-1'],
      'every held event, in order',
    );

    const oldRv = await rvOf();
    await raw(cluster, 'POST', CMS, cm('after-old-rv'));
    const open = openWatch(bob, `${CMS}?watch=true&resourceVersion=${oldRv}`);
    await open.next((e) => e.object.metadata?.name === 'after-old-rv');
    const before = injection.faults.faulted().length;
    await injection.faults.expireWatches();
    await open.ended;
    stalled.stop();
    const resumed = openWatch(bob, `${CMS}?watch=true&resourceVersion=${oldRv}`);
    const err = await resumed.next((e) => e.type === 'ERROR');
    assert.equal(err.object.kind, 'Status');
    assert.equal(err.object.code, 410);
    assert.equal(err.object.reason, 'Expired');
    resumed.stop();
    const fresh = openWatch(bob, `${CMS}?watch=true&resourceVersion=${await rvOf()}`);
    await raw(cluster, 'POST', CMS, cm('after-expire'));
    await fresh.next((e) => e.object.metadata?.name === 'after-expire');
    fresh.stop();
    if (injection.backend === 'real')
      assert.deepEqual(
        injection.faults
          .faulted()
          .slice(before)
          .map((f) => [f.user, f.verb, f.code]),
        [[BOB, 'watch', 410]],
        'the proxy counts the watch it expired',
      );
  });

  it('identifies a client-certificate user by its CN and relays it impersonated', realOnly(), async () => {
    const plane = cluster.real!;
    const config = parse(injection.route(await plane.kubeconfigForUser('carol', ['system:masters'])));
    const user = config.users[0].user;
    const get = (path: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(
          `${config.clusters[0].cluster.server}${path}`,
          {
            ca: cluster.caPem,
            cert: Buffer.from(user['client-certificate-data'], 'base64'),
            key: Buffer.from(user['client-key-data'], 'base64'),
          },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const id = injection.faults.add({ users: ['carol'], verbs: ['get'], error: 503 });
    assert.equal((await get(`${CMS}/seed`)).status, 503, 'the fault scoped to carol answers her');
    assert.equal((await raw(bob, 'GET', `${CMS}/seed`)).status, 200, 'and nobody else');
    injection.faults.remove(id);
    const served = await get(`${CMS}/seed`);
    assert.equal(served.status, 200, 'carol (system:masters) is served through the proxy');
    assert.ok(
      cluster.auditEntries().some((e) => e.user === 'carol' && e.resource === 'configmaps' && e.name === 'seed'),
      'kube-apiserver saw the request as carol',
    );
  });

  it('restarts the API server with every object kept, and clients come back through the faults', async () => {
    await injection.restartApiServer();
    await waitFor('bob reads through the faults after the restart', async () => {
      const r = await raw(bob, 'GET', `${CMS}/seed`).catch(() => undefined);
      return r?.status === 200;
    });
    assert.equal((await raw(admin, 'GET', `${CMS}/held-2`)).status, 200);
  });
});
