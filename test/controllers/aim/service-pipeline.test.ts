// The AIMService pipeline end to end on the engine's in-memory fake cluster: what is applied, the
// conditions and status it writes, the events it emits, over several reconciles. `reconcile` plays the
// controller's part for a status held in the settle window: it lets the window's time pass and runs the
// requeued reconcile, as the work queue would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { aimServicePipeline } from '../../../src/controllers/aim/service/index.ts';
import type { AIMService } from '../../../src/controllers/aim/shared/kinds.ts';
import { type Condition, DEFAULT_SETTLE_WINDOW_MS, ManualClock } from '../../../src/engine/index.ts';
import { FakeCluster } from '../../engine/helpers/fake-cluster.ts';
import { model, NS, SEED_ROUTING, service } from './helpers/service-fixtures.ts';

const API = 'aim.eai.amd.com/v1alpha1';

function setup(...objects: KubeObject[]) {
  const fake = new FakeCluster('aim-service-controller');
  for (const o of objects) fake.put(o);
  const clock = new ManualClock();
  const pipeline = aimServicePipeline({ operatorNamespace: 'aim-system', clock });
  const current = (name = 'qwen-chat') => fake.getObject<AIMService>(API, 'AIMService', name, NS)!;
  const once = async (name = 'qwen-chat') => pipeline.run(current(name), fake.deps());
  const reconcile = async (name = 'qwen-chat') => {
    const out = await once(name);
    if (!out.statusHeld) return out;
    clock.advance(out.requeueAfterMs!);
    return once(name);
  };
  const cond = (type: string, name = 'qwen-chat'): Condition | undefined =>
    (current(name).status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);
  const applied = (kind: string) => fake.requests.filter((r) => r.verb === 'apply' && r.kind === kind);
  return { fake, clock, current, once, reconcile, cond, applied };
}

const nsConfig = (name: string, spec: object): KubeObject => ({
  apiVersion: API,
  kind: 'AIMRuntimeConfig',
  metadata: { name, namespace: NS },
  spec,
});

describe('AIMService pipeline', () => {
  it('DefaultConfigNotFound: RuntimeConfigReady=True with that reason, one Normal event over many reconciles', async () => {
    const t = setup(model(), service());
    for (let i = 0; i < 4; i++) await t.reconcile();
    const c = t.cond('RuntimeConfigReady');
    assert.equal(c?.status, 'True');
    assert.equal(c?.reason, 'DefaultConfigNotFound');
    const events = t.fake.events.filter((e) => e.reason === 'DefaultConfigNotFound');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.type, 'Normal');
    assert.equal(t.current().status?.resolvedRuntimeConfig, undefined);
    assert.equal(t.applied('InferenceService').length, 1, 'applied once, then skipped as unchanged');
    assert.equal(t.applied('HTTPRoute').length, 0, 'routing is off without a config');
  });

  it('ConfigNotFound: nothing applied, Failed with the reason; creating the config recovers it', async () => {
    const t = setup(
      model(),
      service({ spec: { model: { name: 'qwen-qwen3-32b' }, runtimeConfigName: 'non-existent' } }),
    );
    await t.reconcile();
    assert.equal(t.fake.count('apply'), 0);
    assert.equal(t.cond('RuntimeConfigReady')?.status, 'False');
    assert.equal(t.cond('RuntimeConfigReady')?.reason, 'ConfigNotFound');
    assert.match(t.cond('RuntimeConfigReady')!.message, /RuntimeConfig non-existent not found/);
    assert.equal(t.cond('ConfigValid')?.reason, 'ReferenceNotFound');
    assert.equal(t.current().status?.status, 'Failed');

    t.fake.put(nsConfig('non-existent', {}));
    await t.reconcile();
    assert.equal(t.cond('RuntimeConfigReady')?.status, 'True');
    assert.equal(t.cond('ConfigValid')?.status, 'True');
    assert.equal(t.applied('InferenceService').length, 1);
    assert.deepEqual(t.current().status?.resolvedRuntimeConfig, {
      kind: 'AIMRuntimeConfig',
      name: 'non-existent',
      namespace: NS,
      scope: 'Namespace',
      uid: t.fake.getObject(API, 'AIMRuntimeConfig', 'non-existent', NS)!.metadata.uid,
    });
  });

  it('PathTemplateInvalid: InferenceService applied, no HTTPRoute, Degraded with the reason', async () => {
    const t = setup(model(), nsConfig('default', SEED_ROUTING), service({ metadata: { labels: {} } }));
    await t.reconcile();
    assert.equal(t.applied('InferenceService').length, 1);
    assert.equal(t.applied('HTTPRoute').length, 0);
    assert.equal(t.current().status?.status, 'Degraded');
    assert.equal(t.cond('RoutingReady')?.status, 'False');
    assert.equal(t.cond('RoutingReady')?.reason, 'PathTemplateInvalid');
    assert.equal(t.cond('Ready')?.reason, 'PathTemplateInvalid');
    assert.match(
      t.cond('Ready')!.message,
      /spec\.routing\.pathTemplate of AIMRuntimeConfig ml-team\/default: .*project/,
    );
    assert.equal(t.current().status?.routing, undefined);
  });

  it('routing, labels and status: docs/aim.md example routed, cost-center labels on both children, Running once ready', async () => {
    const config = nsConfig('default', {
      ...SEED_ROUTING,
      labelPropagation: { enabled: true, match: ['org.example/*', 'app.kubernetes.io/*'] },
    });
    const labels = {
      project: 'conversational-ai',
      'org.example/cost-center': 'eng-ml',
      'app.kubernetes.io/component': 'parent-value',
    };
    const t = setup(model(), config, service({ metadata: { labels } }));
    await t.reconcile();
    const [isvc] = t.applied('InferenceService');
    const [route] = t.applied('HTTPRoute');
    for (const child of [isvc!.body!, route!.body!]) {
      assert.equal(child.metadata.labels?.['org.example/cost-center'], 'eng-ml');
      assert.notEqual(
        child.metadata.labels?.['app.kubernetes.io/component'],
        'parent-value',
        "the child's own label wins",
      );
      assert.equal(child.metadata.labels?.project, undefined, 'labels not matched are not propagated');
      assert.equal(child.metadata.ownerReferences?.[0]?.uid, t.current().metadata.uid);
    }
    assert.equal(t.current().status?.routing?.path, '/ml/ml-team/conversational-ai');
    assert.equal(t.current().status?.resolvedModel?.name, 'qwen-qwen3-32b');
    assert.equal(t.current().status?.status, 'Starting', 'children exist but are not ready');

    // KServe and the gateway report ready
    const live = t.fake.getObject<KubeObject>('serving.kserve.io/v1beta1', 'InferenceService', 'qwen-chat', NS)!;
    t.fake.put({
      ...live,
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    } as KubeObject);
    const liveRoute = t.fake.getObject<KubeObject>('gateway.networking.k8s.io/v1', 'HTTPRoute', 'qwen-chat', NS)!;
    t.fake.put({
      ...liveRoute,
      status: {
        parents: [
          {
            parentRef: { name: 'inference-gateway', namespace: 'gateways' },
            controllerName: 'x',
            conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted' }],
          },
        ],
      },
    } as KubeObject);
    await t.reconcile();
    assert.equal(t.current().status?.status, 'Running');
    assert.equal(t.cond('HTTPRouteReady')?.status, 'True');
    assert.equal(t.cond('InferenceServiceReady')?.status, 'True');
    assert.equal(t.cond('Ready')?.status, 'True');
  });

  it('children just created: their not-ready status waits out the settle window; ready within it, one write says Running', async () => {
    const t = setup(
      model(),
      nsConfig('default', SEED_ROUTING),
      service({ metadata: { labels: { project: 'conversational-ai' } } }),
    );
    const first = await t.once();
    assert.equal(t.applied('InferenceService').length, 1);
    assert.equal(first.statusHeld, true);
    assert.equal(first.requeueAfterMs, DEFAULT_SETTLE_WINDOW_MS, 'requeued for the end of the window');
    assert.equal(t.fake.count('applyStatus'), 0, 'nothing written yet');
    assert.equal(t.fake.events.length, 0, 'nor reported');

    // within the window a reconcile that writes no child holds on, for what is left of it
    t.clock.advance(500);
    const again = await t.once();
    assert.equal(again.statusHeld, true);
    assert.equal(again.requeueAfterMs, DEFAULT_SETTLE_WINDOW_MS - 500);

    const live = t.fake.getObject<KubeObject>('serving.kserve.io/v1beta1', 'InferenceService', 'qwen-chat', NS)!;
    t.fake.put({
      ...live,
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    } as KubeObject);
    const liveRoute = t.fake.getObject<KubeObject>('gateway.networking.k8s.io/v1', 'HTTPRoute', 'qwen-chat', NS)!;
    t.fake.put({
      ...liveRoute,
      status: {
        parents: [
          {
            parentRef: { name: 'inference-gateway', namespace: 'gateways' },
            controllerName: 'x',
            conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted' }],
          },
        ],
      },
    } as KubeObject);
    const done = await t.once();
    assert.equal(done.statusHeld, false);
    assert.equal(t.fake.count('applyStatus'), 1, 'one status write');
    assert.equal(t.current().status?.status, 'Running');
    assert.equal(t.fake.events.length, 0, 'ready at its first status write: the status says it, no event repeats it');
  });

  it('a window that ended is not reopened by a child that keeps being written; a Failed status is never held', async () => {
    const t = setup(model(), service());
    await t.reconcile();
    assert.equal(t.current().status?.status, 'Starting', 'written once the window ended');
    const writes = t.fake.count('applyStatus');
    // a spec change rewrites the InferenceService: a new generation gets a window of its own
    t.fake.put({
      ...t.current(),
      metadata: { ...t.current().metadata, generation: 2 },
      spec: { ...t.current().spec, replicas: 2 },
    } as AIMService);
    const held = await t.once();
    assert.equal(held.statusHeld, true, 'the new generation waits for the changed child');
    t.clock.advance(DEFAULT_SETTLE_WINDOW_MS);
    // someone edits the child: the reconcile after the window writes it back and the status with it
    const isvc = t.fake.getObject<KubeObject & { spec: object }>(
      'serving.kserve.io/v1beta1',
      'InferenceService',
      'qwen-chat',
      NS,
    )!;
    t.fake.put({ ...isvc, spec: {} } as KubeObject);
    const applies = t.applied('InferenceService').length;
    const after = await t.once();
    assert.equal(t.applied('InferenceService').length, applies + 1, 'the child was written again');
    assert.equal(after.statusHeld, false, 'and yet the ended window did not reopen');
    assert.equal(t.fake.count('applyStatus'), writes + 1);
    assert.equal(t.current().status?.observedGeneration, 2);

    const failing = setup(
      model(),
      service({ spec: { model: { name: 'qwen-qwen3-32b' }, runtimeConfigName: 'non-existent' } }),
    );
    const out = await failing.once();
    assert.equal(out.statusHeld, false);
    assert.equal(failing.current().status?.status, 'Failed');
  });

  it("paused services are left alone, under both spellings of the annotation (AIM engine's reconciliation-paused too)", async () => {
    for (const annotation of ['aim.eai.amd.com/reconcile-paused', 'aim.eai.amd.com/reconciliation-paused']) {
      const t = setup(model(), service({ metadata: { annotations: { [annotation]: 'true' } } }));
      const out = await t.reconcile();
      assert.equal(out.phase, 'paused', annotation);
      assert.equal(t.fake.requests.length, 0, annotation);
    }
    const notExactlyTrue = setup(
      model(),
      service({ metadata: { annotations: { 'aim.eai.amd.com/reconciliation-paused': 'True' } } }),
    );
    assert.equal((await notExactlyTrue.reconcile()).phase, 'reconciled', 'only the exact value "true" pauses');
  });

  it('a named model deleted after the InferenceService exists: not Failed, applies go on, the InferenceService is left as built', async () => {
    const t = setup(
      model(),
      nsConfig('default', { routing: { ...SEED_ROUTING.routing, pathTemplate: '/{.metadata.name}' } }),
      service(),
    );
    await t.reconcile();
    const built = t.fake.getObject<KubeObject>('serving.kserve.io/v1beta1', 'InferenceService', 'qwen-chat', NS)!;
    t.fake.put({
      ...built,
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    } as KubeObject);
    await t.reconcile();
    assert.equal(t.current().status?.resolvedModel?.name, 'qwen-qwen3-32b');

    t.fake.remove(API, 'AIMModel', 'qwen-qwen3-32b', NS);
    // the user changes the route: the apply must not be blocked by the missing model
    t.fake.put({
      ...t.current(),
      spec: { ...t.current().spec, routing: { pathTemplate: '/renamed/{.metadata.name}' } },
    } as KubeObject);
    const before = t.applied('InferenceService').length;
    await t.reconcile();
    assert.notEqual(t.current().status?.status, 'Failed');
    assert.equal(t.cond('ModelReady')?.status, 'True');
    assert.equal(t.cond('ModelReady')?.reason, 'ModelDeleted');
    assert.match(t.cond('ModelReady')!.message, /AIMModel ml-team\/qwen-qwen3-32b was deleted/);
    assert.equal(t.current().status?.resolvedModel?.name, 'qwen-qwen3-32b', 'the resolved reference is kept');
    assert.equal(t.applied('InferenceService').length, before, 'the InferenceService is not rebuilt without its model');
    assert.equal(t.current().status?.routing?.path, '/renamed/qwen-chat', 'the route change went through');

    // the InferenceService gone too: now the model is needed again, and its absence fails the service
    t.fake.remove('serving.kserve.io/v1beta1', 'InferenceService', 'qwen-chat', NS);
    await t.reconcile();
    assert.equal(t.current().status?.status, 'Failed');
    assert.equal(t.cond('ModelReady')?.reason, 'ModelNotFound');
  });

  it('upstream changes under a running InferenceService: a model given another image, not Ready, deleted and recreated never re-apply it and never take the service out of Running', async () => {
    const t = setup(model(), service());
    await t.reconcile();
    const built = t.fake.getObject<KubeObject>('serving.kserve.io/v1beta1', 'InferenceService', 'qwen-chat', NS)!;
    t.fake.put({
      ...built,
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    } as KubeObject);
    await t.reconcile();
    assert.equal(t.current().status?.status, 'Running');
    const applies = t.applied('InferenceService').length;
    const steps: Array<[string, () => void, string]> = [
      ['another image', () => t.fake.put(model({ image: 'other/image:2' })), 'ModelChanged'],
      ['not Ready', () => t.fake.put(model({ status: 'Progressing' })), 'ModelNotReadyWhileServing'],
      ['deleted', () => t.fake.remove(API, 'AIMModel', 'qwen-qwen3-32b', NS), 'ModelDeleted'],
      [
        'recreated',
        () => t.fake.put({ ...model(), metadata: { ...model().metadata, uid: 'uid-new' } } as KubeObject),
        'ModelRecreated',
      ],
    ];
    for (const [what, change, reason] of steps) {
      change();
      await t.reconcile();
      assert.equal(t.current().status?.status, 'Running', `${what}: still Running`);
      assert.equal(t.cond('ModelReady')?.status, 'True', what);
      assert.equal(t.cond('ModelReady')?.reason, reason, what);
      assert.equal(t.applied('InferenceService').length, applies, `${what}: the InferenceService is not re-applied`);
    }
    const isvc = t.fake.getObject<KubeObject & { spec: any }>(
      'serving.kserve.io/v1beta1',
      'InferenceService',
      'qwen-chat',
      NS,
    )!;
    assert.equal(
      isvc.spec.predictor.containers[0].image,
      built.spec && (built.spec as any).predictor.containers[0].image,
    );
    assert.match(t.cond('ModelReady')!.message, /delete InferenceService ml-team\/qwen-chat/);
  });

  it('a path template that stops rendering keeps the last good HTTPRoute, and status says which path it still routes', async () => {
    const t = setup(model(), nsConfig('default', SEED_ROUTING), service());
    await t.reconcile();
    assert.equal(t.current().status?.routing?.path, '/ml/ml-team/conversational-ai');
    // the label the template needs is removed: the template no longer renders
    t.fake.put({ ...t.current(), metadata: { ...t.current().metadata, labels: {} } } as KubeObject);
    await t.reconcile();
    assert.ok(t.fake.getObject('gateway.networking.k8s.io/v1', 'HTTPRoute', 'qwen-chat', NS), 'the route is kept');
    assert.equal(t.fake.requests.filter((r) => r.verb === 'delete').length, 0);
    assert.equal(
      t.current().status?.routing?.path,
      '/ml/ml-team/conversational-ai',
      'the path the kept route really serves',
    );
    assert.equal(t.cond('RoutingReady')?.reason, 'PathTemplateInvalid');
    assert.match(
      t.cond('RoutingReady')!.message,
      /HTTPRoute ml-team\/qwen-chat is kept and still routes the last valid path \/ml\/ml-team\/conversational-ai/,
    );
    assert.equal(t.current().status?.status, 'Degraded');
  });
});
