// The two serving invariants of docs/aim.md ("A running service is never disturbed", "Nothing is served
// before it can serve"), on `modelplane dev`'s cluster with the whole `aim` controller set. Both are
// asserted on the complete watch history of the InferenceServices and services, so a brief violation
// (an InferenceService created too early, a generation bump, a moment out of Running) fails the test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  AIM_API,
  cond,
  type Json,
  Kinds,
  kubectlApply,
  LLAMA_IMAGE,
  type Obj,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';
import { type History, recordHistory } from './helpers/history.ts';

const GATED = 'gated';
const STABLE = 'stable';
const rv = (o: Obj) => Number(o.metadata.resourceVersion);

describe('AIM serving invariants', { timeout: 240_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const histories: Array<History<Obj>> = [];
  const record = async (kind: (typeof Kinds)[keyof typeof Kinds], ns: string) => {
    const h = await recordHistory(admin, kind, ns);
    histories.push(h);
    return h;
  };
  const running = (ns: string, name: string) =>
    waitForObject(admin, Kinds.Services, name, ns, 'Running', (s) => s.status?.status === 'Running', {
      timeoutMs: 90_000,
    });

  before(async () => {
    cluster = await startAimCluster('aim-serving-invariants', { namespaces: [GATED, STABLE] });
    admin = cluster.admin;
  });
  after(async () => {
    for (const h of histories) await h.stop();
    await cluster?.stop();
  });

  it('by name and by image: no InferenceService before model, template and cache are Ready; one spec each; InferenceServiceReady never before CacheReady', async () => {
    const isvcs = await record(Kinds.InferenceServices, GATED);
    const services = await record(Kinds.Services, GATED);
    const models = await record(Kinds.Models, GATED);
    const templates = await record(Kinds.Templates, GATED);
    const caches = await record(Kinds.Caches, GATED);
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'qwen8', namespace: GATED },
      spec: { image: QWEN8_IMAGE },
    });
    const svc = (name: string, model: Json) =>
      kubectlApply(cluster, {
        apiVersion: AIM_API,
        kind: 'AIMService',
        metadata: { name, namespace: GATED },
        spec: { model },
      });
    await svc('by-name', { name: 'qwen8' });
    await svc('by-image', { image: LLAMA_IMAGE });
    for (const name of ['by-name', 'by-image']) {
      const s = await running(GATED, name);
      await isvcs.caughtUp(name);
      await services.caughtUp(name);
      const created = isvcs.of(name).find((v) => v.type === 'ADDED' || v.type === 'LISTED');
      assert.ok(created, `${name}: its InferenceService was seen being created`);
      const createdAt = rv(created.object);
      // everything the InferenceService is built from was Ready before it was created
      const readyBefore = (h: History<Obj>, objName: string, what: string) => {
        const first = h.of(objName).find((v) => v.object.status?.status === 'Ready');
        assert.ok(first, `${name}: ${what} ${objName} was seen Ready`);
        assert.ok(
          rv(first.object) < createdAt,
          `${name}: ${what} ${objName} Ready (rv ${rv(first.object)}) before the InferenceService (rv ${createdAt})`,
        );
      };
      readyBefore(models, s.status?.resolvedModel?.name, 'model');
      readyBefore(templates, s.status?.resolvedTemplate?.name, 'template');
      readyBefore(caches, s.status?.cache?.templateCacheRef?.name, 'cache');
      const specs = new Set(isvcs.of(name).map((v) => JSON.stringify(v.object.spec)));
      const generations = new Set(isvcs.of(name).map((v) => v.object.metadata.generation));
      assert.equal(specs.size, 1, `${name}: the InferenceService went through exactly one spec`);
      assert.deepEqual([...generations], [1], `${name}: generation 1 only`);
      for (const v of services.of(name)) {
        if (cond(v.object, 'InferenceServiceReady')?.status === 'True')
          assert.equal(
            cond(v.object, 'CacheReady')?.status,
            'True',
            `${name}: InferenceServiceReady never precedes CacheReady`,
          );
      }
    }
  });

  it('a running service under every upstream change: its InferenceService generation moves only for its own spec and an explicit runtime-config change, and it never leaves Running for the rest', async () => {
    const k = (args: string[]) => cluster.k(args);
    const patch = (resource: string, name: string, body: object) =>
      k(['patch', resource, name, '-n', STABLE, '--type=merge', '-p', JSON.stringify(body)]);
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'default', namespace: STABLE },
      spec: { env: [{ name: 'TEAM_SETTING', value: 'one' }] },
    });
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'qwen8', namespace: STABLE },
      spec: { image: QWEN8_IMAGE },
    });
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMService',
      metadata: { name: 'steady', namespace: STABLE },
      spec: { model: { name: 'qwen8' } },
    });
    const s0 = await running(STABLE, 'steady');
    const isvcBefore = await admin.get(Kinds.InferenceServices, 'steady', STABLE);
    const specBefore = JSON.stringify(isvcBefore.spec);
    assert.ok(isvcBefore.spec.predictor.containers[0].resources?.limits?.['amd.com/gpu'], 'built with its GPU');
    assert.ok(isvcBefore.spec.predictor.affinity?.nodeAffinity, 'built with its node affinity');
    const isvcs = await record(Kinds.InferenceServices, STABLE);
    const services = await record(Kinds.Services, STABLE);
    const tplName = s0.status?.resolvedTemplate?.name as string;
    const template = () => admin.getOrUndefined(Kinds.Templates, tplName, STABLE);
    const serviceReason = (type: string, reason: string) =>
      waitForObject(
        admin,
        Kinds.Services,
        'steady',
        STABLE,
        `${type} reason ${reason}`,
        (s) => cond(s, type)?.reason === reason,
        {
          timeoutMs: 60_000,
        },
      );

    // 1. the GPU nodes relabelled: the template goes NotAvailable, then Ready again
    const amdNodes = (await admin.list(Kinds.Nodes)).items.filter((n) => n.metadata.name?.startsWith('amd-node'));
    for (const n of amdNodes)
      await k(['label', 'node', n.metadata.name!, 'amd.com/gpu.device-id-', 'amd.com/gpu.family-']);
    await waitFor('the template NotAvailable', async () => (await template())?.status?.status === 'NotAvailable', {
      timeoutMs: 60_000,
    });
    await serviceReason('TemplateReady', 'TemplateNotReadyWhileServing');
    for (const n of amdNodes)
      await k(['label', 'node', n.metadata.name!, 'amd.com/gpu.device-id=74a1', 'amd.com/gpu.family=AI']);
    await waitFor('the template Ready again', async () => (await template())?.status?.status === 'Ready', {
      timeoutMs: 60_000,
    });
    await serviceReason('TemplateReady', 'Resolved');

    // 2. the template deleted: its model recreates it (a new object of the same name)
    const uid = (await template())!.metadata.uid;
    await k(['delete', 'aimtpl', tplName, '-n', STABLE]);
    await waitFor(
      'the template recreated and Ready',
      async () => {
        const t = await template();
        return t && t.metadata.uid !== uid && t.status?.status === 'Ready';
      },
      { timeoutMs: 60_000 },
    );
    await serviceReason('TemplateReady', 'TemplateRecreated');

    // 3. the model updated (a pull secret added) and 4. the cache deleted and rebuilt
    await patch('aimmdl', 'qwen8', { spec: { imagePullSecrets: [{ name: 'extra' }] } });
    const cacheName = s0.status?.cache?.templateCacheRef?.name as string;
    const cacheUid = (await admin.get(Kinds.Caches, cacheName, STABLE)).metadata.uid;
    await k(['delete', 'aimtemplatecache', cacheName, '-n', STABLE]);
    await waitForObject(
      admin,
      Kinds.Caches,
      cacheName,
      STABLE,
      'recreated and Ready',
      (c) => c.metadata.uid !== cacheUid && c.status?.status === 'Ready',
      {
        timeoutMs: 60_000,
      },
    );

    // 5. a runtime-config edit that concerns no field of the InferenceService spec
    await patch('aimrc', 'default', { spec: { labelPropagation: { enabled: true, match: ['team'] } } });

    // 6. the model deleted (its templates go with it), then created again
    await k(['delete', 'aimmdl', 'qwen8', '-n', STABLE]);
    await serviceReason('ModelReady', 'ModelDeleted');
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'qwen8', namespace: STABLE },
      spec: { image: QWEN8_IMAGE },
    });
    await serviceReason('ModelReady', 'ModelRecreated');

    await isvcs.caughtUp('steady');
    await services.caughtUp('steady');
    const noise = services.of('steady').filter((v) => v.object.status?.status !== 'Running');
    assert.deepEqual(
      noise.map(
        (v) =>
          `${v.object.status?.status}: ${JSON.stringify(v.object.status?.conditions?.filter((c: Json) => c.status !== 'True'))}`,
      ),
      [],
      'the service never left Running for upstream noise',
    );
    assert.deepEqual(
      [...new Set(isvcs.of('steady').map((v) => v.object.metadata.generation))],
      [isvcBefore.metadata.generation],
    );
    assert.equal(
      JSON.stringify((await admin.get(Kinds.InferenceServices, 'steady', STABLE)).spec),
      specBefore,
      'the spec as built',
    );

    // explicit changes do reach it, one generation each: the runtime config's env, then the service's replicas
    const gen0 = isvcBefore.metadata.generation!;
    await patch('aimrc', 'default', { spec: { env: [{ name: 'TEAM_SETTING', value: 'two' }] } });
    const afterConfig = await waitForObject(admin, Kinds.InferenceServices, 'steady', STABLE, 'the env change', (i) =>
      (i.spec.predictor.containers[0].env as Json[]).some((e) => e.name === 'TEAM_SETTING' && e.value === 'two'),
    );
    assert.equal(afterConfig.metadata.generation, gen0 + 1);
    await patch('aimsvc', 'steady', { spec: { replicas: 2 } });
    const afterSpec = await waitForObject(
      admin,
      Kinds.InferenceServices,
      'steady',
      STABLE,
      'two replicas',
      (i) => i.spec.predictor.minReplicas === 2,
    );
    assert.equal(afterSpec.metadata.generation, gen0 + 2);
    // GPU, node affinity and the template's env survived everything
    assert.deepEqual(afterSpec.spec.predictor.affinity, isvcBefore.spec.predictor.affinity);
    assert.deepEqual(
      afterSpec.spec.predictor.containers[0].resources,
      isvcBefore.spec.predictor.containers[0].resources,
    );
    await running(STABLE, 'steady');
  });
});
