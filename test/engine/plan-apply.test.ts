import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  addLabelsIfAbsent,
  executePlan,
  extractOwned,
  type LabelPropagator,
  ownedStatus,
  PlanResult,
  prepareForApply,
  staticLabels,
} from '../../src/engine/index.ts';
import { apiError, FakeCluster } from './helpers/fake-cluster.ts';

const owner: KubeObject = {
  apiVersion: 'test.modelplane.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'owner-uid', labels: { team: 'a', 'aim.eai.amd.com/x': '1' } },
};
const obj = (apiVersion: string, kind: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'ns' },
  ...extra,
});

describe('PlanResult', () => {
  it('orders applies deterministically: dependencies first, custom kinds last, then by name', () => {
    const plan = new PlanResult()
      .apply(obj('serving.kserve.io/v1beta1', 'InferenceService', 'isvc'))
      .apply(obj('apps/v1', 'Deployment', 'b'))
      .apply(obj('apps/v1', 'Deployment', 'a'))
      .apply(obj('gateway.networking.k8s.io/v1', 'HTTPRoute', 'route'))
      .apply(obj('v1', 'Service', 'svc'))
      .applyWithoutOwnerRef(obj('v1', 'ConfigMap', 'shared'))
      .apply(obj('v1', 'Secret', 's'))
      .apply(obj('v1', 'PersistentVolumeClaim', 'pvc'));
    assert.deepEqual(
      plan.applies.map((a) => `${a.object.kind}/${a.object.metadata.name}`),
      [
        'Secret/s',
        'ConfigMap/shared',
        'PersistentVolumeClaim/pvc',
        'Service/svc',
        'Deployment/a',
        'Deployment/b',
        'HTTPRoute/route',
        'InferenceService/isvc',
      ],
    );
    assert.equal(plan.applies.find((a) => a.object.kind === 'ConfigMap')!.mode, 'shared');
  });

  it('deletes run in reverse apply order; requeueAfter keeps the shortest', () => {
    const plan = new PlanResult()
      .delete(obj('v1', 'ConfigMap', 'c'))
      .delete(obj('apps/v1', 'Deployment', 'd'))
      .requeueAfter(30_000)
      .requeueAfter(5_000)
      .requeueAfter(60_000);
    assert.deepEqual(
      plan.deletes.map((d) => d.kind),
      ['Deployment', 'ConfigMap'],
    );
    assert.equal(plan.requeueAfterMs, 5_000);
  });

  it('rejects planner mistakes with messages naming the object', () => {
    assert.throws(
      () => new PlanResult().apply(obj('v1', 'ConfigMap', 'c')).apply(obj('v1', 'ConfigMap', 'c')),
      /ConfigMap ns\/c is planned twice/,
    );
    assert.throws(
      () => new PlanResult().apply(obj('v1', 'ConfigMap', 'c')).delete(obj('v1', 'ConfigMap', 'c')),
      /both applied and deleted/,
    );
    assert.throws(
      () => new PlanResult().apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
      /needs apiVersion, kind and metadata.name/,
    );
    assert.throws(() => new PlanResult().requeueAfter(0), /positive/);
  });
});

describe('label propagation and ownership', () => {
  const fromParent: LabelPropagator = (_child, ctx) =>
    Object.fromEntries(
      Object.entries(ctx.parent.metadata.labels ?? {}).filter(([k]) => k.startsWith('aim.eai.amd.com/')),
    );

  it("propagated labels never override the child's own; Jobs get them on the pod template too", () => {
    const job = obj('batch/v1', 'Job', 'j', {
      metadata: { name: 'j', namespace: 'ns', labels: { team: 'mine' } },
      spec: { template: { metadata: { labels: { team: 'pod-own' } }, spec: {} } },
    });
    const out = addLabelsIfAbsent(job, { team: 'parent', env: 'prod' });
    assert.deepEqual(out.metadata.labels, { team: 'mine', env: 'prod' });
    assert.deepEqual((out.spec as any).template.metadata.labels, { team: 'pod-own', env: 'prod' });
    assert.deepEqual(job.metadata.labels, { team: 'mine' }, 'the planned object is not mutated');
    const deploy = addLabelsIfAbsent(obj('apps/v1', 'Deployment', 'd', { spec: { template: { metadata: {} } } }), {
      env: 'prod',
    });
    assert.equal((deploy.spec as any).template.metadata.labels, undefined, 'only Jobs get pod-template labels');
  });

  it('owned objects get the controller ownerReference (no blockOwnerDeletion) and the owner namespace; shared ones do not', () => {
    const ctx = { parent: owner, runtimeConfig: undefined };
    const owned = prepareForApply(
      { object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, mode: 'owned' },
      owner,
      [fromParent, staticLabels({ 'app.kubernetes.io/managed-by': 'modelplane' })],
      ctx,
    );
    assert.deepEqual(owned.metadata.ownerReferences, [
      { apiVersion: 'test.modelplane.io/v1', kind: 'Widget', name: 'w', uid: 'owner-uid', controller: true },
    ]);
    assert.equal(owned.metadata.namespace, 'ns');
    assert.deepEqual(owned.metadata.labels, { 'aim.eai.amd.com/x': '1', 'app.kubernetes.io/managed-by': 'modelplane' });
    const shared = prepareForApply({ object: obj('v1', 'ConfigMap', 'c'), mode: 'shared' }, owner, [fromParent], ctx);
    assert.equal(shared.metadata.ownerReferences, undefined);
    assert.deepEqual(shared.metadata.labels, { 'aim.eai.amd.com/x': '1' }, 'shared objects get propagated labels too');
    assert.throws(
      () =>
        prepareForApply(
          { object: { ...obj('v1', 'ConfigMap', 'c'), metadata: { name: 'c', namespace: 'other' } }, mode: 'owned' },
          owner,
          [],
          ctx,
        ),
      /owner's namespace "ns"/,
    );
  });

  it('executePlan: deletes, applies with the field manager, skips no-op applies, collects categorised failures', async () => {
    const cluster = new FakeCluster();
    cluster.put(obj('v1', 'ConfigMap', 'old'));
    const plan = new PlanResult()
      .apply(obj('v1', 'ConfigMap', 'a', { data: { x: '1' } }))
      .apply(obj('v1', 'Secret', 's'))
      .delete(obj('v1', 'ConfigMap', 'old'))
      .delete(obj('v1', 'ConfigMap', 'never-existed'));
    const live = (ref: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } }) =>
      cluster.reader.get({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.metadata.name!, ref.metadata.namespace);
    const deps = { client: cluster.client, fieldManager: cluster.fieldManager, live };
    const first = await executePlan(plan, owner, deps);
    assert.deepEqual([first.applied, first.skipped, first.deleted, first.errors.length], [2, 0, 1, 0]);
    assert.equal(
      cluster.requests.filter((r) => r.verb === 'delete').length,
      1,
      'a delete of an object the cache does not have is skipped',
    );
    const second = await executePlan(
      new PlanResult().apply(obj('v1', 'ConfigMap', 'a', { data: { x: '1' } })).apply(obj('v1', 'Secret', 's')),
      owner,
      deps,
    );
    assert.deepEqual([second.applied, second.skipped], [0, 2], 'nothing changed: no writes');

    cluster.faults = [(verb, o) => (verb === 'apply' && o.kind === 'Secret' ? apiError(403) : undefined)];
    const third = await executePlan(
      new PlanResult()
        .apply(obj('v1', 'ConfigMap', 'a', { data: { x: '2' } }))
        .apply(obj('v1', 'Secret', 's', { data: { k: 'dg==' } })),
      owner,
      deps,
    );
    assert.equal(third.applied, 1, 'one failure does not stop the other applies');
    assert.equal(third.errors.length, 1);
    assert.equal(third.errors[0]!.category, 'Auth');
    assert.match(third.errors[0]!.message, /^apply Secret ns\/s: /);
  });
});

describe('owned status fields', () => {
  it('extracts only what our field manager owns, keeping the live order of list elements', () => {
    const live: KubeObject = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: {
        name: 'x',
        managedFields: [
          {
            manager: 'provider',
            operation: 'Apply',
            subresource: 'status',
            fieldsV1: {
              'f:status': {
                'f:phase': {},
                'f:provider': { 'f:resourceName': {} },
                'f:conditions': {
                  'k:{"type":"Ready"}': { '.': {}, 'f:type': {}, 'f:status': {} },
                  'k:{"type":"ResourceCreated"}': { '.': {}, 'f:type': {}, 'f:status': {} },
                },
              },
            },
          },
          {
            manager: 'core',
            operation: 'Apply',
            subresource: 'status',
            fieldsV1: {
              'f:status': { 'f:provider': { 'f:name': {} }, 'f:conditions': { 'k:{"type":"ProviderSelected"}': {} } },
            },
          },
        ],
      },
      status: {
        phase: 'Running',
        provider: { name: 'kaito', resourceName: 'ws' },
        conditions: [
          { type: 'ProviderSelected', status: 'True' },
          { type: 'Ready', status: 'True' },
          { type: 'ResourceCreated', status: 'True' },
        ],
      },
    };
    assert.deepEqual(ownedStatus(live, 'provider'), {
      phase: 'Running',
      provider: { resourceName: 'ws' },
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'ResourceCreated', status: 'True' },
      ],
    });
    assert.deepEqual(ownedStatus(live, 'core'), {
      provider: { name: 'kaito' },
      conditions: [{ type: 'ProviderSelected', status: 'True' }],
    });
    assert.deepEqual(ownedStatus(live, 'nobody'), {});
  });

  it('an atomic field (a leaf in fieldsV1) is taken whole', () => {
    assert.deepEqual(extractOwned({ conditions: [{ type: 'A' }, { type: 'B' }], other: 1 }, { 'f:conditions': {} }), {
      conditions: [{ type: 'A' }, { type: 'B' }],
    });
  });
});
