// Scale from zero on the test cluster: a model whose every variant is at 0 replicas is woken (its cheapest
// variant's Deployment patched to 1 through /scale, with an event and a logged decision) only when requests
// wait for it at the gateway; a model with a replica, a duplicate VA, an excluded namespace or no queue stays.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCrd } from '@modelplane/runtime/crd';
import { rootLogger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { startCluster, type TestCluster } from '@modelplane/runtime/testing';
import { variantAutoscalingCrd } from '../../../src/apis/llmd/index.ts';
import { DecisionStore } from '../../../src/controllers/llmd/decisions.ts';
import { AutoscaledDeployments } from '../../../src/controllers/llmd/kinds.ts';
import { ScaleFromZero, variantToWake } from '../../../src/controllers/llmd/scale-from-zero.ts';
import { waitFor } from '../../helpers/wait.ts';
import { namespaces, SettableMetrics, variantAutoscaling, variantWorkload } from './fixture.ts';

describe('variantToWake (pure)', () => {
  it('the cheapest present variant, only when every present one is at 0', () => {
    assert.equal(
      variantToWake([
        { name: 'b', cost: 5, replicas: 0 },
        { name: 'a', cost: 10, replicas: 0 },
        { name: 'c', cost: 1, replicas: undefined },
      ]),
      'b',
    );
    assert.equal(
      variantToWake([
        { name: 'a', cost: 1, replicas: 0 },
        { name: 'b', cost: 1, replicas: 0 },
      ]),
      'a',
    );
    assert.equal(
      variantToWake([
        { name: 'a', cost: 1, replicas: 0 },
        { name: 'b', cost: 9, replicas: 1 },
      ]),
      undefined,
    );
    assert.equal(variantToWake([{ name: 'a', cost: 1, replicas: undefined }]), undefined);
  });
});

describe('scale from zero (test cluster)', () => {
  let cluster: TestCluster;
  let mgr: Manager;
  let fromZero: ScaleFromZero;
  const metrics = new SettableMetrics();
  const lines: Array<Record<string, unknown>> = [];
  const decisions = new DecisionStore();
  const told: string[] = [];
  let clock: number | undefined;
  const replicas = async (ns: string, name: string) =>
    (await cluster.admin.get(AutoscaledDeployments, name, ns)).spec?.replicas;

  before(async () => {
    cluster = await startCluster({ operatorUser: 'wva-controller' });
    await ensureCrd(cluster.admin, variantAutoscalingCrd());
    await namespaces(cluster.admin, 'z', 'busy', 'ex');
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: rootLogger() });
    await mgr.start();
    fromZero = new ScaleFromZero({
      reader: mgr.cache,
      client: mgr.client.withFieldManager('scale-from-zero'),
      source: metrics,
      recorder: mgr.recorder('scale-from-zero'),
      log: {
        info: (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, ...fields }),
        warn: () => undefined,
      } as never,
      decisions,
      onDecision: (key) => told.push(key),
      now: () => clock ?? Date.now(),
    });
    await variantWorkload(cluster.admin, 'z', 'cheap', 0);
    await variantWorkload(cluster.admin, 'z', 'pricey', 0);
    await cluster.admin.apply(variantAutoscaling('z', 'cheap', 'm', { minReplicas: 0, variantCost: '5' }));
    await cluster.admin.apply(variantAutoscaling('z', 'pricey', 'm', { minReplicas: 0, variantCost: '50' }));
    await variantWorkload(cluster.admin, 'busy', 'one', 1);
    await cluster.admin.apply(variantAutoscaling('busy', 'one', 'm', { minReplicas: 0 }));
    await variantWorkload(cluster.admin, 'ex', 'skip', 0);
    await cluster.admin.apply(variantAutoscaling('ex', 'skip', 'm', { minReplicas: 0 }));
    await cluster.admin.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'ex', annotations: { 'wva.llmd.ai/exclude': 'true' } },
    } as KubeObject);
    await waitFor(
      'the VAs in the cache',
      async () =>
        (await mgr.cache.list({ apiVersion: 'llmd.ai/v1alpha1', kind: 'VariantAutoscaling' } as never)).length === 4,
    );
  });

  after(async () => {
    await mgr?.stop();
    await cluster?.close();
  });

  it('nothing waiting: nothing is woken', async () => {
    metrics.queued = 0;
    assert.deepEqual(await fromZero.runOnce(), []);
    metrics.queued = undefined;
    assert.deepEqual(await fromZero.runOnce(), []);
    assert.equal(await replicas('z', 'cheap'), 0);
  });

  it('a queue sampled after the last whole second (not yet in KEDA’s view) wakes nothing', async () => {
    // KEDA's prometheus trigger evaluates at the current time cut to the whole second: woken on a sample it
    // cannot see yet, the model would be taken straight back to 0 by KEDA's next poll
    metrics.queued = 2;
    metrics.queuedAt = 1_700_000_000.4;
    clock = 1_700_000_000_900;
    try {
      assert.deepEqual(await fromZero.runOnce(), []);
      assert.equal(await replicas('z', 'cheap'), 0);
      assert.equal(metrics.queueAsked.at(-1), 1_700_000_000, 'asked as of the last whole second');
      assert.equal(lines.filter((l) => l.msg === 'scaling decision').length, 0);
      clock = 1_700_000_001_050;
      metrics.queuedAt = 1_700_000_001.1;
      assert.deepEqual(await fromZero.runOnce(), [], 'still newer than the whole second');
    } finally {
      clock = undefined;
      metrics.queuedAt = undefined;
    }
  });

  it('requests waiting: the cheapest variant of the model at zero goes to 1, once, with an event and a logged decision', async () => {
    metrics.queued = 2;
    assert.deepEqual(await fromZero.runOnce(), ['z/cheap']);
    assert.equal(await replicas('z', 'cheap'), 1);
    assert.equal(await replicas('z', 'pricey'), 0);
    assert.equal(await replicas('busy', 'one'), 1, 'a model with a replica is the saturation engine’s');
    assert.equal(await replicas('ex', 'skip'), 0, 'an excluded namespace is left alone');
    const decision = lines.find((l) => l.msg === 'scaling decision');
    assert.equal(decision?.variantAutoscaling, 'z/cheap');
    assert.equal(decision?.to, 1);
    assert.match(String(decision?.reason), /2 request\(s\) wait at the gateway for model m/);
    // recorded as the variant's decision (so wva_desired_replicas says 1 before KEDA polls), and told
    const recorded = decisions.latest('z', 'cheap');
    assert.equal(recorded?.target, 1);
    assert.equal(recorded?.action, 'scale-from-zero');
    assert.equal(decisions.latest('z', 'pricey'), undefined);
    assert.deepEqual(told, ['z/cheap']);
    await waitFor('the ScaledFromZero event', async () =>
      (await cluster.admin.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: 'z' })).items.some(
        (e: unknown) => (e as { reason: string }).reason === 'ScaledFromZero',
      ),
    );
    // the model now has a replica: the next pass leaves it to the engine even with requests still queued
    await waitFor(
      'the cache sees 1 replica',
      async () => (await mgr.cache.get(AutoscaledDeployments, 'cheap', 'z'))?.spec?.replicas === 1,
    );
    assert.deepEqual(await fromZero.runOnce(), []);
  });

  it('a cache that still shows 0 after the wake-up: the target itself is read, so no second wake-up', async () => {
    const lagging = new ScaleFromZero({
      reader: {
        list: (kind, o) => mgr.cache.list(kind, o),
        get: async (kind, name, ns) => {
          const obj = (await mgr.cache.get(kind, name, ns)) as { spec?: Record<string, unknown> } | undefined;
          return (kind.kind === 'Deployment' && obj ? { ...obj, spec: { ...obj.spec, replicas: 0 } } : obj) as never;
        },
      },
      client: mgr.client.withFieldManager('scale-from-zero'),
      source: metrics,
      recorder: mgr.recorder('scale-from-zero'),
      log: {
        info: (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, ...fields }),
        warn: () => undefined,
      } as never,
      decisions,
      onDecision: (key) => told.push(key),
    });
    const before = lines.filter((l) => l.msg === 'scaling decision').length;
    metrics.queued = 2;
    assert.deepEqual(await lagging.runOnce(), [], 'z/cheap is at 1 already');
    assert.equal(lines.filter((l) => l.msg === 'scaling decision').length, before);
    assert.deepEqual(told, ['z/cheap']);
  });
});
