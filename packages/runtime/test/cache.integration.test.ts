import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Cache } from '../src/cache/cache.ts';
import { INDEX_OWNER } from '../src/cache/store.ts';
import { KubeClient } from '../src/client/client.ts';
import { ConfigMaps } from '../src/client/kinds.ts';
import { type KubeObject, kindRef } from '../src/meta/types.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { StubApiServer, waitFor } from './helpers/stub-apiserver.ts';

const Widgets = kindRef('test.modelplane.io/v1', 'Widget');
const CM_PATH = '/api/v1/configmaps';

function cm(name: string, ns = 'ns', labels: Record<string, string> = {}, owner?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: ns,
      labels,
      ...(owner
        ? {
            ownerReferences: [
              { apiVersion: 'test.modelplane.io/v1', kind: 'Widget', name: 'w', uid: owner, controller: true },
            ],
          }
        : {}),
    },
    data: { big: 'x'.repeat(100) },
  };
}

describe('Cache (shared informers)', () => {
  let stub: StubApiServer;
  let client: KubeClient;
  let cache: Cache;

  before(async () => {
    stub = await new StubApiServer().start();
    client = await KubeClient.create(stub.kubeconfig());
  });
  after(async () => {
    client.close();
    await stub.close();
  });
  beforeEach(async () => {
    await cache?.stop();
    for (const o of stub.list('configmaps')) stub.remove('v1', 'ConfigMap', o.metadata.name, o.metadata.namespace);
    stub.requests.length = 0;
    stub.ignorePartialAccept = false;
    cache = new Cache({ client, metrics: new RuntimeMetrics(), tuning: { backoffInitialMs: 20, backoffMaxMs: 100 } });
  });

  it('refuses reads before start instead of waiting forever', async () => {
    await assert.rejects(cache.get(ConfigMaps, 'x', 'ns'), /before the cache was started/);
  });

  it('shares one informer and one watch between readers of the same kind and spec', async () => {
    cache.start();
    const [a, b] = await Promise.all([cache.informer(ConfigMaps), cache.informer(ConfigMaps)]);
    assert.equal(a, b);
    const c = await cache.informer(ConfigMaps, { labelSelector: 'app=x' });
    assert.notEqual(a, c);
    await cache.waitForSync();
    assert.equal(cache.hasSynced, true);
    await waitFor(() => stub.openWatches('configmaps') === 2, 'two watches');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(stub.openWatches('configmaps'), 2, 'one watch per distinct spec, not per reader');
  });

  it('gets and lists from the cache, sets apiVersion/kind on list items, and freezes objects', async () => {
    stub.put(cm('a'));
    stub.put(cm('b', 'other'));
    cache.start();
    const a = await cache.get(ConfigMaps, 'a', 'ns');
    assert.equal(a?.apiVersion, 'v1');
    assert.equal(a?.kind, 'ConfigMap');
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.data));
    assert.deepEqual(
      (await cache.list(ConfigMaps, { namespace: 'ns' })).map((o) => o.metadata.name),
      ['a'],
    );
    assert.equal((await cache.list(ConfigMaps)).length, 2);
    const before = stub.requests.length;
    for (let i = 0; i < 50; i++) await cache.get(ConfigMaps, 'a', 'ns');
    assert.equal(stub.requests.length, before, 'reads never reach the server');
  });

  it('a label-filtered cache only ever holds matching objects (server-side selector)', async () => {
    cache.configure(ConfigMaps, { labelSelector: 'managed=yes' });
    stub.put(cm('mine', 'ns', { managed: 'yes' }));
    stub.put(cm('theirs', 'ns', { managed: 'no' }));
    cache.start();
    assert.deepEqual(
      (await cache.list(ConfigMaps)).map((o) => o.metadata.name),
      ['mine'],
    );
    const list = stub.requests.find((r) => r.path === CM_PATH && !r.query.has('watch'))!;
    assert.equal(list.query.get('labelSelector'), 'managed=yes');
    assert.throws(() => cache.configure(ConfigMaps, {}), /already in use/);
  });

  it('a metadata-only cache asks for PartialObjectMetadata and stores no data, even if the server sends whole objects', async () => {
    stub.put(cm('m1'));
    cache.start();
    const m1 = await cache.get(ConfigMaps, 'm1', 'ns', { metadataOnly: true });
    assert.equal(m1?.kind, 'ConfigMap');
    assert.equal(m1?.apiVersion, 'v1');
    assert.equal((m1 as { data?: unknown }).data, undefined);
    const req = stub.requests.find((r) => r.path === CM_PATH && !r.query.has('watch'))!;
    assert.match(String(req.headers.accept), /as=PartialObjectMetadataList;g=meta.k8s.io;v=v1/);
    await waitFor(
      () =>
        stub.requests.some(
          (r) =>
            r.query.get('watch') === 'true' &&
            /as=PartialObjectMetadata;g=meta.k8s.io;v=v1/.test(String(r.headers.accept)),
        ),
      'metadata watch',
    );

    stub.ignorePartialAccept = true;
    const other = new Cache({ client, metrics: new RuntimeMetrics() });
    other.start();
    const m1b = await other.get(ConfigMaps, 'm1', 'ns', { metadataOnly: true });
    assert.equal((m1b as { data?: unknown }).data, undefined);
    assert.equal(m1b?.metadata.managedFields, undefined);
    await other.stop();
  });

  it('finds children by owner uid and by custom index', async () => {
    await cache.indexField(ConfigMaps, 'by-app', (o) => (o.metadata.labels?.app ? [o.metadata.labels.app] : []));
    stub.put(cm('c1', 'ns', { app: 'x' }, 'uid-1'));
    stub.put(cm('c2', 'ns', { app: 'y' }, 'uid-1'));
    stub.put(cm('c3', 'ns', { app: 'x' }, 'uid-2'));
    cache.start();
    assert.deepEqual(
      (await cache.list(ConfigMaps, { index: { name: INDEX_OWNER, value: 'uid-1' } }))
        .map((o) => o.metadata.name)
        .sort(),
      ['c1', 'c2'],
    );
    assert.deepEqual(
      (await cache.list(ConfigMaps, { index: { name: 'by-app', value: 'x' } })).map((o) => o.metadata.name).sort(),
      ['c1', 'c3'],
    );
    assert.deepEqual(
      (await cache.list(ConfigMaps, { labelSelector: 'app=y' })).map((o) => o.metadata.name),
      ['c2'],
    );
  });

  it('delivers add/update/delete to handlers; a late handler first gets every cached object', async () => {
    stub.put(cm('pre'));
    cache.start();
    const inf = await cache.informer(ConfigMaps);
    await inf.synced;
    const seen: string[] = [];
    inf.addHandler({
      add: (o) => seen.push(`add:${o.metadata.name}`),
      update: (old, o) =>
        seen.push(`update:${o.metadata.name}:${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
      delete: (o) => seen.push(`delete:${o.metadata.name}`),
    });
    assert.deepEqual(seen, ['add:pre']);
    const v1 = stub.put(cm('pre', 'ns', { v: '2' }));
    stub.remove('v1', 'ConfigMap', 'pre', 'ns');
    await waitFor(() => seen.length === 3, 'update and delete');
    assert.match(seen[1]!, new RegExp(`^update:pre:\\d+->${v1.metadata.resourceVersion}$`));
    assert.equal(seen[2], 'delete:pre');
    assert.equal(inf.get('pre', 'ns'), undefined);
  });

  it('a throwing handler does not break the informer or other handlers', async () => {
    cache.start();
    const inf = await cache.informer(Widgets);
    await inf.synced;
    let good = 0;
    inf.addHandler({
      add: () => {
        throw new Error('boom');
      },
    });
    inf.addHandler({ add: () => good++ });
    stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'ns' } });
    stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: 'w2', namespace: 'ns' } });
    await waitFor(() => good === 2, 'both adds');
  });

  it("observeWrite puts our own write's result in the cache before the watch delivers it, and the watch event is not delivered twice", async () => {
    cache.start();
    const inf = await cache.informer(ConfigMaps);
    await inf.synced;
    const seen: string[] = [];
    inf.addHandler({
      add: (o) => seen.push(`add:${o.metadata.resourceVersion}`),
      update: (_o, n) => seen.push(`update:${n.metadata.resourceVersion}`),
    });
    stub.stallWatches();
    const written = stub.put(cm('mine'));
    cache.observeWrite(written);
    assert.equal(inf.get('mine', 'ns')?.metadata.resourceVersion, written.metadata.resourceVersion);
    assert.equal(Object.isFrozen(written), false, 'the caller keeps a mutable object');
    cache.observeWrite({ ...written, metadata: { ...written.metadata, resourceVersion: '1' } });
    assert.equal(
      inf.get('mine', 'ns')?.metadata.resourceVersion,
      written.metadata.resourceVersion,
      'an older version never replaces a newer one',
    );
    stub.closeWatchesAbruptly();
    stub.stallNewWatches = false;
    const next = stub.put(cm('mine', 'ns', { v: '2' }));
    await waitFor(
      () => inf.get('mine', 'ns')?.metadata.resourceVersion === next.metadata.resourceVersion,
      'later change via the watch',
    );
    assert.deepEqual(seen, [`add:${written.metadata.resourceVersion}`, `update:${next.metadata.resourceVersion}`]);
  });

  it('a namespace-restricted cache watches that namespace only', async () => {
    const scoped = new Cache({ client, namespace: 'team-a', metrics: new RuntimeMetrics() });
    stub.put(cm('in', 'team-a'));
    stub.put(cm('out', 'team-b'));
    scoped.start();
    assert.deepEqual(
      (await scoped.list(ConfigMaps)).map((o) => o.metadata.name),
      ['in'],
    );
    assert.ok(stub.requests.some((r) => r.path === '/api/v1/namespaces/team-a/configmaps'));
    await scoped.stop();
  });
});
