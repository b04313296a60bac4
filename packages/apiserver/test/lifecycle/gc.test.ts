// Garbage collection by ownerReferences, in-process: the three propagation policies, cluster-scoped
// owners, dangling and cross-namespace references, several owners, cycles, and a large cascade.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LifecycleControllers } from '../../src/controller-manager/index.ts';
import { partsOf } from '../../src/handle.ts';
import { configMap, type Lab, names, ownerRef, startLab } from './fixture.ts';

let lab: Lab;
let nsCounter = 0;

/** a fresh namespace per test, so tests cannot see each other's objects */
async function freshNamespace(): Promise<string> {
  const name = `gc-${++nsCounter}`;
  await lab.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

before(async () => {
  lab = await startLab();
});
after(async () => {
  partsOf(lab.server).controllers.stop(); // one test swaps in a restarted set the server's close() does not know
  await lab.close();
});

describe('garbage collector', () => {
  it('background: dependents (and theirs) go after the owner; unrelated objects stay', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    const child = await lab.create(configMap(ns, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.create(configMap(ns, 'grandchild', { ownerReferences: [ownerRef(child)] }));
    await lab.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'secret-child', namespace: ns, ownerReferences: [ownerRef(owner)] },
    });
    await lab.create(configMap(ns, 'bystander'));
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), ['bystander', 'child', 'grandchild', 'owner']);

    const r = await lab.del('ConfigMap', ns, 'owner', { propagationPolicy: 'Background' });
    assert.equal(r.deleted, true, 'background deletion removes the owner at once');
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), ['bystander']);
    assert.deepEqual(names(lab, 'Secret', ns), []);
  });

  it('the default policy is background for configmaps', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    await lab.create(configMap(ns, 'child', { ownerReferences: [ownerRef(owner)] }));
    const r = await lab.del('ConfigMap', ns, 'owner');
    assert.deepEqual(r.warnings, []);
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), []);
  });

  it('foreground: the owner waits for blocking dependents, including one held by a finalizer', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    await lab.create(
      configMap(ns, 'held', {
        ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })],
        finalizers: ['example.com/hold'],
      }),
    );
    await lab.create(configMap(ns, 'free', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));

    const r = await lab.del('ConfigMap', ns, 'owner', { propagationPolicy: 'Foreground' });
    assert.equal(r.deleted, false);
    await lab.settle();
    const waiting = lab.get('ConfigMap', ns, 'owner');
    assert.ok(waiting?.metadata.deletionTimestamp, 'owner is marked for deletion');
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    assert.equal(lab.get('ConfigMap', ns, 'free'), undefined, 'a dependent without finalizers is deleted');
    assert.ok(lab.get('ConfigMap', ns, 'held')?.metadata.deletionTimestamp, 'the held dependent is being deleted');

    await lab.update('ConfigMap', ns, 'held', (o) => {
      o.metadata.finalizers = [];
    });
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), []);
  });

  it('foreground: dependents that do not block are deleted but not waited for', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    await lab.create(configMap(ns, 'held', { ownerReferences: [ownerRef(owner)], finalizers: ['example.com/hold'] }));
    await lab.del('ConfigMap', ns, 'owner', { propagationPolicy: 'Foreground' });
    await lab.settle();
    assert.equal(lab.get('ConfigMap', ns, 'owner'), undefined, 'owner gone without waiting');
    assert.ok(lab.get('ConfigMap', ns, 'held')?.metadata.deletionTimestamp);
  });

  it('foreground propagates down a chain: every level waits for the one below', async () => {
    const ns = await freshNamespace();
    const a = await lab.create(configMap(ns, 'a'));
    const b = await lab.create(configMap(ns, 'b', { ownerReferences: [ownerRef(a, { blockOwnerDeletion: true })] }));
    await lab.create(
      configMap(ns, 'c', {
        ownerReferences: [ownerRef(b, { blockOwnerDeletion: true })],
        finalizers: ['example.com/hold'],
      }),
    );
    await lab.del('ConfigMap', ns, 'a', { propagationPolicy: 'Foreground' });
    await lab.settle();
    assert.deepEqual(lab.get('ConfigMap', ns, 'a')?.metadata.finalizers, ['foregroundDeletion']);
    assert.deepEqual(
      lab.get('ConfigMap', ns, 'b')?.metadata.finalizers,
      ['foregroundDeletion'],
      'b is deleted in the foreground because a waits',
    );
    await lab.update('ConfigMap', ns, 'c', (o) => {
      o.metadata.finalizers = [];
    });
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), []);
  });

  it('foreground ownership cycles do not deadlock', async () => {
    const ns = await freshNamespace();
    const a = await lab.create(configMap(ns, 'a'));
    const b = await lab.create(configMap(ns, 'b', { ownerReferences: [ownerRef(a, { blockOwnerDeletion: true })] }));
    await lab.update('ConfigMap', ns, 'a', (o) => {
      o.metadata.ownerReferences = [ownerRef(b, { blockOwnerDeletion: true })];
    });
    await lab.del('ConfigMap', ns, 'a', { propagationPolicy: 'Foreground' });
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), []);
  });

  it('orphan: dependents lose the owner reference (keeping their others) and survive', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    const other = await lab.create(configMap(ns, 'other'));
    await lab.create(configMap(ns, 'only', { ownerReferences: [ownerRef(owner)] }));
    await lab.create(configMap(ns, 'both', { ownerReferences: [ownerRef(owner), ownerRef(other)] }));
    const r = await lab.del('ConfigMap', ns, 'owner', { propagationPolicy: 'Orphan' });
    assert.equal(r.deleted, false, 'the orphan finalizer holds the owner until dependents are released');
    await lab.settle();
    assert.equal(lab.get('ConfigMap', ns, 'owner'), undefined);
    assert.equal(lab.get('ConfigMap', ns, 'only')?.metadata.ownerReferences, undefined);
    assert.deepEqual(
      lab.get('ConfigMap', ns, 'both')?.metadata.ownerReferences?.map((r) => r.name),
      ['other'],
    );
    assert.doesNotMatch(
      JSON.stringify(lab.get('ConfigMap', ns, 'only')?.metadata.managedFields),
      /ownerReferences/,
      'nobody owns the removed reference any more',
    );
  });

  it('orphan waits for other finalizers on the owner', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner', { finalizers: ['example.com/hold'] }));
    await lab.create(configMap(ns, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.del('ConfigMap', ns, 'owner', { propagationPolicy: 'Orphan' });
    await lab.settle();
    assert.deepEqual(lab.get('ConfigMap', ns, 'owner')?.metadata.finalizers, ['example.com/hold']);
    assert.equal(lab.get('ConfigMap', ns, 'child')?.metadata.ownerReferences, undefined);
    await lab.update('ConfigMap', ns, 'owner', (o) => {
      o.metadata.finalizers = [];
    });
    assert.equal(lab.get('ConfigMap', ns, 'owner'), undefined);
    assert.ok(lab.get('ConfigMap', ns, 'child'));
  });

  it('background waits while the owner is held by a finalizer', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner', { finalizers: ['example.com/hold'] }));
    await lab.create(configMap(ns, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.del('ConfigMap', ns, 'owner');
    await lab.settle();
    assert.ok(lab.get('ConfigMap', ns, 'child'), 'an owner that still exists keeps its dependents');
    await lab.update('ConfigMap', ns, 'owner', (o) => {
      o.metadata.finalizers = [];
    });
    await lab.settle();
    assert.deepEqual(names(lab, 'ConfigMap', ns), []);
  });

  it('a cluster-scoped owner collects namespaced dependents in any namespace', async () => {
    const ns1 = await freshNamespace();
    const ns2 = await freshNamespace();
    const owner = await lab.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `owner-${ns1}` },
      rules: [],
    });
    await lab.create(configMap(ns1, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.create(configMap(ns2, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.settle();
    assert.equal(names(lab, 'ConfigMap', ns1).length + names(lab, 'ConfigMap', ns2).length, 2);
    await lab.del('ClusterRole', undefined, `owner-${ns1}`);
    await lab.settle();
    assert.deepEqual([...names(lab, 'ConfigMap', ns1), ...names(lab, 'ConfigMap', ns2)], []);
  });

  const dangling: Array<{ name: string; ref: (ns: string, other: string) => Promise<Record<string, unknown>> }> = [
    {
      name: 'an owner uid that never existed',
      ref: async () => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'ghost',
        uid: '00000000-0000-0000-0000-000000000000',
      }),
    },
    {
      name: 'an owner recreated under the same name (new uid)',
      ref: async (ns) => {
        const first = await lab.create(configMap(ns, 'reborn'));
        await lab.del('ConfigMap', ns, 'reborn');
        await lab.create(configMap(ns, 'reborn'));
        return ownerRef(first) as unknown as Record<string, unknown>;
      },
    },
    {
      name: 'a namespaced owner in another namespace',
      ref: async (_ns, other) =>
        ownerRef(await lab.create(configMap(other, 'elsewhere'))) as unknown as Record<string, unknown>,
    },
  ];
  for (const c of dangling) {
    it(`collects a dependent whose owner reference is dangling: ${c.name}`, async () => {
      const ns = await freshNamespace();
      const other = await freshNamespace();
      const ref = await c.ref(ns, other);
      await lab.create(configMap(ns, 'orphaned', { ownerReferences: [ref] }));
      await lab.settle();
      assert.equal(lab.get('ConfigMap', ns, 'orphaned'), undefined);
    });
  }

  it('a dependent with several owners lives while any owner exists', async () => {
    const ns = await freshNamespace();
    const a = await lab.create(configMap(ns, 'a'));
    const b = await lab.create(configMap(ns, 'b'));
    await lab.create(configMap(ns, 'shared', { ownerReferences: [ownerRef(a), ownerRef(b)] }));
    await lab.del('ConfigMap', ns, 'a');
    await lab.settle();
    const shared = lab.get('ConfigMap', ns, 'shared');
    assert.ok(shared, 'survives while b exists');
    assert.deepEqual(
      shared.metadata.ownerReferences?.map((r) => r.name),
      ['b'],
      'the dangling reference is dropped',
    );
    await lab.del('ConfigMap', ns, 'b');
    await lab.settle();
    assert.equal(lab.get('ConfigMap', ns, 'shared'), undefined);
  });

  it('never collects what it cannot resolve: unknown owner kinds, or a cluster-scoped dependent naming a namespaced owner', async () => {
    const ns = await freshNamespace();
    await lab.create(
      configMap(ns, 'unknown-kind', {
        ownerReferences: [
          { apiVersion: 'example.com/v1', kind: 'Nothing', name: 'x', uid: '11111111-1111-1111-1111-111111111111' },
        ],
      }),
    );
    const nsOwner = await lab.create(configMap(ns, 'ns-owner'));
    await lab.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `cluster-dep-${ns}`, ownerReferences: [ownerRef(nsOwner)] },
      rules: [],
    });
    await lab.del('ConfigMap', ns, 'ns-owner');
    await lab.settle();
    assert.ok(lab.get('ConfigMap', ns, 'unknown-kind'));
    assert.ok(lab.get('ClusterRole', undefined, `cluster-dep-${ns}`));
  });

  it("batch/v1 Jobs orphan their pods by default, with kube's warning; an explicit policy is not warned about", async () => {
    const ns = await freshNamespace();
    const job = (name: string) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: ns },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    const pod = (name: string, owner: Awaited<ReturnType<Lab['create']>>) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: ns,
        ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })],
      },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const j1 = await lab.create(job('j1'));
    await lab.create(pod('p1', j1));
    const r1 = await lab.del('Job', ns, 'j1');
    assert.match(r1.warnings.join('\n'), /child pods are preserved by default when jobs are deleted/);
    await lab.settle();
    assert.equal(lab.get('Job', ns, 'j1'), undefined);
    assert.equal(lab.get('Pod', ns, 'p1')?.metadata.ownerReferences, undefined, 'the pod is orphaned');

    const j2 = await lab.create(job('j2'));
    await lab.create(pod('p2', j2));
    const r2 = await lab.del('Job', ns, 'j2', { propagationPolicy: 'Background' });
    assert.deepEqual(r2.warnings, []);
    await lab.settle();
    assert.equal(lab.get('Pod', ns, 'p2'), undefined);
  });

  it('collects dangling dependents that existed before it started', async () => {
    const ns = await freshNamespace();
    const { core } = partsOf(lab.server);
    partsOf(lab.server).controllers.stop();
    const owner = await lab.create(configMap(ns, 'owner'));
    await lab.create(configMap(ns, 'child', { ownerReferences: [ownerRef(owner)] }));
    await lab.del('ConfigMap', ns, 'owner');
    assert.ok(lab.get('ConfigMap', ns, 'child'), 'nothing collects while stopped');
    const restarted = new LifecycleControllers(core, { caPem: lab.server.caPem });
    partsOf(lab.server).controllers = restarted;
    restarted.start();
    await lab.settle();
    assert.equal(lab.get('ConfigMap', ns, 'child'), undefined);
  });

  it('cascades through thousands of dependents, with the index tracking each', async () => {
    const ns = await freshNamespace();
    const owner = await lab.create(configMap(ns, 'owner'));
    const n = 2000;
    for (let i = 0; i < n; i++) await lab.create(configMap(ns, `child-${i}`, { ownerReferences: [ownerRef(owner)] }));
    for (let i = 0; i < 500; i++) await lab.create(configMap(ns, `bystander-${i}`));
    await lab.settle();
    assert.equal(partsOf(lab.server).controllers.gc.dependentsOf(owner.metadata.uid!).length, n);
    await lab.del('ConfigMap', ns, 'owner');
    await lab.settle();
    assert.equal(names(lab, 'ConfigMap', ns).length, 500);
    assert.equal(partsOf(lab.server).controllers.gc.dependentsOf(owner.metadata.uid!).length, 0);
  });
});
