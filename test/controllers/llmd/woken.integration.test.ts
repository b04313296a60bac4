// A model woken after a decision of 0 (KEDA scaled it up on a trigger of its own, e.g. the gateway's queue),
// on the test cluster: while its replica reports no metrics yet, the engine publishes the replica it has
// instead of keeping the 0 (which would have KEDA take it back to zero), and the change is said once: a
// ScaledFromZero event, one count of wva_replica_scaling_total, the gauge at 1 — not again on later cycles.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCrd } from '@modelplane/runtime/crd';
import { rootLogger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { startCluster, type TestCluster } from '@modelplane/runtime/testing';
import { DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME, variantAutoscalingCrd } from '../../../src/apis/llmd/index.ts';
import { type Autoscaler, registerAutoscaler } from '../../../src/controllers/llmd/index.ts';
import { VariantAutoscalings } from '../../../src/controllers/llmd/kinds.ts';
import { waitFor } from '../../helpers/wait.ts';
import {
  AUTOSCALER_NAMES,
  configMap,
  DEFAULT_ENTRY,
  namespaces,
  SettableMetrics,
  variantAutoscaling,
  variantWorkload,
  WVA_NS,
} from './fixture.ts';

const quiet = rootLogger().child({ test: 'autoscaler-woken' });

describe('a model woken after a decision of 0 (test cluster)', () => {
  let cluster: TestCluster;
  let mgr: Manager;
  let autoscaler: Autoscaler;
  const metrics = new SettableMetrics();
  const desired = async () =>
    (await cluster.admin.get(VariantAutoscalings, 'w', 'wk')).status?.desiredOptimizedAlloc?.numReplicas;
  const events = async (reason: string) =>
    (
      (await cluster.admin.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: 'wk' }))
        .items as unknown as Array<{
        reason: string;
        message: string;
      }>
    ).filter((e) => e.reason === reason);
  const metricsText = async () => (await fetch(`${mgr.url}/metrics`)).text();
  const COUNTED =
    /wva_replica_scaling_total\{variant_name="w",namespace="wk",direction="up",reason="scale-from-zero"\} (\d+)/;

  before(async () => {
    cluster = await startCluster({ operatorUser: 'wva-controller' });
    await ensureCrd(cluster.admin, variantAutoscalingCrd());
    await namespaces(cluster.admin, WVA_NS, 'wk');
    await cluster.admin.apply(configMap(WVA_NS, AUTOSCALER_NAMES.saturationConfigMapName, { default: DEFAULT_ENTRY }));
    // a window of 1 ms: the second idle cycle may decide 0
    await cluster.admin.apply(
      configMap(WVA_NS, DEFAULT_SCALE_TO_ZERO_CONFIG_MAP_NAME, {
        m: 'enable_scale_to_zero: true\nretention_period: 1ms',
      }),
    );
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet, httpPort: 0 });
    autoscaler = await registerAutoscaler(
      mgr,
      { ...AUTOSCALER_NAMES, metricsSource: metrics, autoStart: false },
      quiet,
    );
    await mgr.start();
    await waitFor('both ConfigMaps in the cache', () => {
      const s = autoscaler.config.snapshot();
      return s.global !== undefined && s.scaleToZero !== undefined;
    });
  });

  after(async () => {
    await mgr?.stop();
    await cluster?.close();
  });

  it('publishes its replica at once, with one ScaledFromZero event and one count, and not again', async () => {
    const [pod] = await variantWorkload(cluster.admin, 'wk', 'w', 1);
    await cluster.admin.apply(variantAutoscaling('wk', 'w', 'm', { minReplicas: 0 }));
    metrics.requests = 0;
    metrics.peakInFlight = 0;
    metrics.load.set(pod!, { kvCacheUsage: 0.05, queueLength: 0, inFlight: 0 });
    await waitFor('the VA in the cache', async () => (await mgr.cache.list(VariantAutoscalings)).length === 1);
    await waitFor(
      'a decision of 0 after an idle window',
      async () => {
        await autoscaler.engine.runCycle();
        return (await desired()) === 0;
      },
      { timeoutMs: 30_000 },
    );
    await waitFor('the ScaledToZero event', async () => (await events('ScaledToZero')).length === 1);
    // KEDA brought a replica back; it reports no metrics yet
    metrics.load.clear();
    await autoscaler.engine.runCycle();
    const d = autoscaler.decisions.latest('wk', 'w');
    assert.equal(d?.outcome, 'withheld');
    assert.equal(d?.action, 'scale-from-zero');
    assert.equal(d?.target, 1);
    await waitFor('one ScaledFromZero event', async () => (await events('ScaledFromZero')).length === 1);
    assert.match(
      (await events('ScaledFromZero'))[0]!.message,
      /desired replicas 0 → 1 \(current 1\): the model was woken/,
    );
    await waitFor('counted once, the gauge at 1', async () => {
      const text = await metricsText();
      return (
        text.match(COUNTED)?.[1] === '1' &&
        /wva_desired_replicas\{variant_name="w",namespace="wk"[^}]*\} 1\n/.test(text)
      );
    });
    for (let i = 0; i < 3; i++) await autoscaler.engine.runCycle();
    await waitFor('the later cycles reconciled', async () => autoscaler.decisions.latest('wk', 'w')?.target === 1);
    assert.equal((await metricsText()).match(COUNTED)?.[1], '1', 'still one count');
    assert.equal((await events('ScaledFromZero')).length, 1, 'still one event');
  });
});
