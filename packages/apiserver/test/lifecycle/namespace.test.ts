// Namespace lifecycle, in-process: system namespaces, 404 for a missing namespace, and deletion —
// Terminating, content removed through the normal delete path (finalizers honoured), kube's status
// conditions, creates refused meanwhile, then the `kubernetes` finalizer removed and the namespace gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NamespaceCondition } from '../../src/controller-manager/namespace-conditions.ts';
import { errors } from '../../src/errors.ts';
import { partsOf } from '../../src/handle.ts';
import type { AdmissionChain } from '../../src/objects/hooks.ts';
import type { KubeObject } from '../../src/types.ts';
import { configMap, type Lab, startLab } from './fixture.ts';

let lab: Lab;
let counter = 0;

async function namespace(extra: Record<string, unknown> = {}): Promise<string> {
  const name = `ns-${++counter}`;
  await lab.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...extra } });
  return name;
}

function ns(name: string): KubeObject | undefined {
  return lab.get('Namespace', undefined, name);
}

function phase(name: string): string | undefined {
  return (ns(name)?.status as { phase?: string } | undefined)?.phase;
}

function specFinalizers(name: string): string[] | undefined {
  return (ns(name)?.spec as { finalizers?: string[] } | undefined)?.finalizers;
}

function condition(name: string, type: string): NamespaceCondition | undefined {
  return ((ns(name)?.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []).find(
    (c) => c.type === type,
  );
}

async function rejection(
  p: Promise<unknown>,
): Promise<{ code: number; message: string; reason: string; details?: unknown }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string; reason: string };
  }
  assert.fail('expected the request to be refused');
}

// a refusal test sets this to make deletes of the named ConfigMap fail in admission until it clears it
let refuseDeleteOf: string | undefined;
const refusing = (inner: AdmissionChain): AdmissionChain => ({
  mutate: (a) => inner.mutate(a),
  validate: async (a) => {
    if (a.operation === 'DELETE' && a.name === refuseDeleteOf)
      throw errors.forbidden(`configmaps "${a.name}" is forbidden: not yet`);
    await inner.validate(a);
  },
});

before(async () => {
  lab = await startLab({ wrapAdmission: refusing });
});
after(async () => {
  await lab.close();
});

describe('namespaces', () => {
  it('the system namespaces exist at start, Active, and the immortal ones cannot be deleted', async () => {
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      assert.equal(phase(name), 'Active', name);
    }
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const err = await rejection(lab.del('Namespace', undefined, name));
      assert.equal(err.code, 403);
      assert.equal(err.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
  });

  it('creating in a missing namespace is 404', async () => {
    const err = await rejection(lab.create(configMap('no-such-namespace', 'x')));
    assert.equal(err.code, 404);
    assert.equal(err.message, 'namespaces "no-such-namespace" not found');
  });

  it('deleting a namespace removes every kind of content, then the namespace', async () => {
    const name = await namespace();
    await lab.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.lifecycle.example.com' },
      spec: {
        group: 'lifecycle.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    await lab.settle();
    await lab.create(configMap(name, 'cm'));
    await lab.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: name } });
    await lab.create({
      apiVersion: 'lifecycle.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: name },
      spec: { size: 1 },
    });
    await lab.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: name },
      involvedObject: { kind: 'ConfigMap', name: 'cm', namespace: name },
      reason: 'Test',
      message: 'm',
    });
    await lab.settle();
    assert.ok(lab.get('ServiceAccount', name, 'default'), 'the namespace got its default ServiceAccount');

    const r = await lab.del('Namespace', undefined, name);
    assert.equal(r.deleted, false, 'the first DELETE only marks the namespace');
    await lab.settle();
    assert.equal(ns(name), undefined);
    for (const [kind, n] of [
      ['ConfigMap', 'cm'],
      ['Secret', 's'],
      ['Widget', 'w'],
      ['Event', 'e'],
      ['ServiceAccount', 'default'],
      ['ConfigMap', 'kube-root-ca.crt'],
    ] as const) {
      assert.equal(lab.get(kind, name, n), undefined, `${kind} ${n} deleted`);
    }
  });

  it("a finalizer on content keeps the namespace Terminating, with kube's conditions, and creates are refused", async () => {
    const name = await namespace();
    await lab.create(configMap(name, 'held', { finalizers: ['example.com/hold'] }));
    await lab.create(configMap(name, 'free'));
    await lab.del('Namespace', undefined, name);
    await lab.settle();

    const terminating = ns(name);
    assert.ok(terminating?.metadata.deletionTimestamp);
    assert.equal((terminating.status as { phase: string }).phase, 'Terminating');
    assert.deepEqual((terminating.spec as { finalizers: string[] }).finalizers, ['kubernetes']);
    assert.equal(lab.get('ConfigMap', name, 'free'), undefined);
    assert.ok(lab.get('ConfigMap', name, 'held')?.metadata.deletionTimestamp);
    assert.deepEqual(
      { ...condition(name, 'NamespaceContentRemaining'), lastTransitionTime: undefined },
      {
        type: 'NamespaceContentRemaining',
        status: 'True',
        reason: 'SomeResourcesRemain',
        message: 'Some resources are remaining: configmaps. has 1 resource instances',
        lastTransitionTime: undefined,
      },
    );
    assert.equal(
      condition(name, 'NamespaceFinalizersRemaining')?.message,
      'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
    );
    assert.equal(condition(name, 'NamespaceDeletionContentFailure')?.status, 'False');
    assert.equal(condition(name, 'NamespaceDeletionDiscoveryFailure')?.reason, 'ResourcesDiscovered');

    const err = await rejection(lab.create(configMap(name, 'late')));
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(
      err.message,
      `configmaps "late" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
    );
    assert.deepEqual((err.details as { causes: unknown[] }).causes, [
      { reason: 'NamespaceTerminating', message: `namespace ${name} is being terminated`, field: 'metadata.namespace' },
    ]);

    // Updating the Terminating namespace itself must not finish it early.
    await lab.update('Namespace', undefined, name, (o) => {
      o.metadata.labels = { ...o.metadata.labels, touched: 'yes' };
    });
    assert.ok(ns(name));

    await lab.update('ConfigMap', name, 'held', (o) => {
      o.metadata.finalizers = [];
    });
    await lab.settle();
    assert.equal(ns(name), undefined);
  });

  it('other finalizers on the namespace keep it after its content is gone', async () => {
    const name = await namespace({ finalizers: ['example.com/ns-hold'] });
    await lab.create(configMap(name, 'cm'));
    await lab.del('Namespace', undefined, name);
    await lab.settle();
    const held = ns(name);
    assert.ok(held, 'held by its metadata finalizer');
    assert.deepEqual((held.spec as { finalizers?: string[] }).finalizers, [], 'the kubernetes finalizer was removed');
    assert.equal(lab.get('ConfigMap', name, 'cm'), undefined);
    assert.equal(condition(name, 'NamespaceContentRemaining')?.status, 'False');
    await lab.update('Namespace', undefined, name, (o) => {
      o.metadata.finalizers = [];
    });
    assert.equal(ns(name), undefined);
  });

  it('a spec finalizer of another controller holds the namespace until removed', async () => {
    const name = `ns-${++counter}`;
    await lab.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
      spec: { finalizers: ['kubernetes', 'example.com/other'] },
    });
    await lab.del('Namespace', undefined, name);
    await lab.settle();
    assert.deepEqual(specFinalizers(name), ['example.com/other']);
    // spec.finalizers change only through the finalize subresource, as in kube
    const { core } = partsOf(lab.server);
    const rt = core.registry.byResource('', 'namespaces')!;
    const old = core.store.get(rt.storageKey, undefined, name)!;
    await core.lifecycle.write({
      rt,
      version: 'v1',
      ctx: {
        user: { username: 'admin', groups: ['system:masters'] },
        dryRun: false,
        fieldValidation: 'Strict',
        warnings: [],
      },
      candidate: { ...old, spec: { finalizers: [] } },
      old,
      subresource: 'finalize',
    });
    assert.equal(ns(name), undefined);
  });

  it('reports content that fails to delete and retries until it can', async () => {
    const name = await namespace();
    await lab.create(configMap(name, 'guarded'));
    refuseDeleteOf = 'guarded';
    try {
      await lab.del('Namespace', undefined, name);
      await lab.settle();
      const failure = condition(name, 'NamespaceDeletionContentFailure');
      assert.equal(failure?.status, 'True');
      assert.equal(failure?.reason, 'ContentDeletionFailed');
      assert.match(
        failure?.message ?? '',
        /^Failed to delete all resource types, 1 remaining: configmaps\. "guarded": configmaps "guarded" is forbidden: not yet$/,
      );
      refuseDeleteOf = undefined;
      for (let i = 0; i < 200 && ns(name); i++) await new Promise((r) => setTimeout(r, 25));
      assert.equal(ns(name), undefined, 'the retry deleted the content and the namespace');
    } finally {
      refuseDeleteOf = undefined;
    }
  });

  it('a namespace can be recreated under the same name once it is gone', async () => {
    const name = await namespace();
    await lab.create(configMap(name, 'cm'));
    await lab.del('Namespace', undefined, name);
    await lab.settle();
    await lab.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await lab.settle();
    assert.equal(phase(name), 'Active');
    assert.equal(lab.get('ConfigMap', name, 'cm'), undefined);
    assert.ok(lab.get('ServiceAccount', name, 'default'));
  });

  it('deletes hundreds of objects across kinds in one pass', async () => {
    const name = await namespace();
    for (let i = 0; i < 300; i++) {
      await lab.create(configMap(name, `cm-${i}`));
      await lab.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `s-${i}`, namespace: name } });
    }
    await lab.del('Namespace', undefined, name);
    await lab.settle();
    assert.equal(ns(name), undefined);
    assert.equal(
      partsOf(lab.server).core.store.list('/configmaps', name).length +
        partsOf(lab.server).core.store.list('/secrets', name).length,
      0,
    );
  });
});
