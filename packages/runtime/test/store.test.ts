import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INDEX_NAMESPACE, INDEX_OWNER, Store } from '../src/cache/store.ts';
import { thaw } from '../src/meta/freeze.ts';
import type { KubeObject } from '../src/meta/types.ts';

function cm(ns: string, name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: ns, name, resourceVersion: rv, ...extra },
    data: { k: 'v' },
  };
}

describe('Store', () => {
  it('indexes by namespace and owner uid, and keeps indexes right across updates and removals', () => {
    const s = new Store();
    s.upsert(
      cm('a', 'x', '1', { ownerReferences: [{ apiVersion: 'v1', kind: 'W', name: 'w', uid: 'u1', controller: true }] }),
    );
    s.upsert(cm('a', 'y', '2', { ownerReferences: [{ apiVersion: 'v1', kind: 'W', name: 'w', uid: 'u1' }] }));
    s.upsert(cm('b', 'x', '3'));
    assert.deepEqual(
      s
        .byIndex(INDEX_NAMESPACE, 'a')
        .map((o) => o.metadata.name)
        .sort(),
      ['x', 'y'],
    );
    assert.equal(s.byIndex(INDEX_OWNER, 'u1').length, 2);
    s.upsert(cm('a', 'y', '4'));
    assert.equal(s.byIndex(INDEX_OWNER, 'u1').length, 1, 'owner reference removed by update');
    s.remove('a/x');
    assert.equal(s.byIndex(INDEX_OWNER, 'u1').length, 0);
    assert.equal(s.byIndex(INDEX_NAMESPACE, 'a').length, 1);
    assert.deepEqual(s.byIndex(INDEX_NAMESPACE, 'nope'), []);
  });

  it('custom indexes apply to objects already stored', () => {
    const s = new Store();
    s.upsert(cm('a', 'x', '1', { labels: { model: 'llama' } }));
    s.addIndexer('model', (o) => (o.metadata.labels?.model ? [o.metadata.labels.model] : []));
    s.upsert(cm('a', 'z', '2', { labels: { model: 'llama' } }));
    assert.equal(s.byIndex('model', 'llama').length, 2);
    assert.throws(() => s.byIndex('nope', 'x'), /no index named "nope"/);
    assert.throws(() => s.addIndexer('model', () => []), /already exists/);
  });

  it('freezes stored objects deeply so readers cannot corrupt the cache', () => {
    const s = new Store();
    s.upsert(cm('a', 'x', '1', { labels: { a: 'b' } }));
    const got = s.get('a/x')!;
    assert.throws(() => {
      (got.data as Record<string, string>).k = 'changed';
    }, TypeError);
    assert.throws(() => {
      got.metadata.labels!.a = 'c';
    }, TypeError);
    const copy = thaw(got);
    (copy.data as Record<string, string>).k = 'changed';
    assert.equal((s.get('a/x')!.data as Record<string, string>).k, 'v');
  });

  it('replace reports adds, real updates and deletions, skipping unchanged resourceVersions', () => {
    const s = new Store();
    s.upsert(cm('a', 'keep', '1'));
    s.upsert(cm('a', 'change', '2'));
    s.upsert(cm('a', 'gone', '3'));
    const changes = s.replace([cm('a', 'keep', '1'), cm('a', 'change', '5'), cm('a', 'new', '6')]);
    const summary = changes.map((c) => `${c.type}:${c.obj.metadata.name}`).sort();
    assert.deepEqual(summary, ['add:new', 'delete:gone', 'update:change']);
    assert.equal(s.size, 3);
    assert.equal(s.get('a/gone'), undefined);
  });

  it('keys cluster-scoped objects by name alone', () => {
    const s = new Store();
    s.upsert({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns1', resourceVersion: '1' } });
    assert.ok(s.get('ns1'));
    assert.ok(s.getByName(undefined, 'ns1'));
    assert.deepEqual(s.keys(), ['ns1']);
  });
});
