// No decision without evidence, on the test cluster: VAs whose target is missing, at 0 replicas, claimed
// twice, with poisoned or stale samples, in an excluded namespace or labelled for another instance get no
// decision and a condition (and Warning event) saying why; events and wva_replica_scaling_total follow
// decision changes, not cycles; the interval floor and per-entry last-good config reach the cluster as
// Warnings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCrd } from '@modelplane/runtime/crd';
import { rootLogger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { startCluster, type TestCluster } from '@modelplane/runtime/testing';
import { variantAutoscalingCrd } from '../../../src/apis/llmd/index.ts';
import { type Autoscaler, registerAutoscaler } from '../../../src/controllers/llmd/index.ts';
import { type VariantAutoscaling, VariantAutoscalings } from '../../../src/controllers/llmd/kinds.ts';
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

const NAMES = AUTOSCALER_NAMES;
const quiet = rootLogger().child({ test: 'autoscaler-evidence' });

describe('no decision without evidence (test cluster)', () => {
  let cluster: TestCluster;
  let mgr: Manager;
  let autoscaler: Autoscaler;
  const metrics = new SettableMetrics();

  const get = (ns: string, name: string) =>
    cluster.admin.get(VariantAutoscalings, name, ns) as Promise<VariantAutoscaling>;
  const condition = (v: VariantAutoscaling, type: string) => v.status?.conditions?.find((c) => c.type === type);
  const events = async (ns: string, reason?: string) =>
    (
      (await cluster.admin.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: ns }))
        .items as unknown as Array<{
        reason: string;
        message: string;
        type: string;
        involvedObject?: { name?: string };
      }>
    ).filter((e) => reason === undefined || e.reason === reason);
  const metricsText = async () => (await fetch(`${mgr.url}/metrics`)).text();
  /** the VA controller's reconcile count, once its queue is empty and no worker is busy (else undefined) */
  const settledReconciles = async () => {
    const text = await metricsText();
    const value = (re: RegExp) => [...text.matchAll(re)].reduce((sum, m) => sum + Number(m[1]), 0);
    const busy =
      value(/^workqueue_depth\{name="variantautoscaling"\} (\S+)$/gm) +
      value(/^controller_runtime_active_workers\{controller="variantautoscaling"\} (\S+)$/gm);
    return busy === 0
      ? value(/^controller_runtime_reconcile_total\{controller="variantautoscaling",[^}]*\} (\S+)$/gm)
      : undefined;
  };
  /** runs cycles, each one reconciled by the VA controller before the next (so none is skipped) */
  const cycles = async (n: number, ns: string, name: string) => {
    for (let i = 0; i < n; i++) {
      const before = (await settledReconciles()) ?? 0;
      const r = await autoscaler.engine.runCycle();
      assert.equal(autoscaler.decisions.latest(ns, name)?.cycle, r.cycle, `cycle ${r.cycle} decided ${ns}/${name}`);
      await waitFor(`cycle ${r.cycle} reconciled`, async () => ((await settledReconciles()) ?? 0) > before);
    }
  };

  before(async () => {
    cluster = await startCluster({ operatorUser: 'wva-controller' });
    await ensureCrd(cluster.admin, variantAutoscalingCrd());
    await namespaces(cluster.admin, WVA_NS, 'missing', 'zero', 'dup', 'poison', 'stale', 'flap', 'multi');
    await cluster.admin.apply(configMap(WVA_NS, NAMES.saturationConfigMapName, { default: DEFAULT_ENTRY }));
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet, httpPort: 0 });
    autoscaler = await registerAutoscaler(mgr, { ...NAMES, metricsSource: metrics, autoStart: false }, quiet);
    await mgr.start();
    await waitFor('the saturation ConfigMap in the cache', () => autoscaler.config.snapshot().global !== undefined);
    await waitFor('ready once the ConfigMaps are read', async () => (await fetch(`${mgr.url}/readyz`)).status === 200);
    assert.match(await (await fetch(`${mgr.url}/readyz?verbose`)).text(), /autoscaler-config/);
  });

  after(async () => {
    await mgr?.stop();
    await cluster?.close();
  });

  it('a missing target: TargetNotFound as a Warning, no desired replicas, no ScaleUp, no gauge, over many cycles', async () => {
    await cluster.admin.apply(variantAutoscaling('missing', 'ghost', 'm-ghost'));
    await waitFor(
      'TargetNotFound',
      async () => condition(await get('missing', 'ghost'), 'TargetResolved')?.reason === 'TargetNotFound',
    );
    await cycles(5, 'missing', 'ghost');
    const v = await get('missing', 'ghost');
    assert.equal(v.status?.desiredOptimizedAlloc, undefined);
    assert.equal(condition(v, 'OptimizationReady')?.status, 'False');
    assert.equal(autoscaler.decisions.latest('missing', 'ghost')?.outcome, 'withheld');
    await waitFor('the TargetNotFound Warning', async () => (await events('missing', 'TargetNotFound')).length > 0);
    assert.ok((await events('missing', 'TargetNotFound')).every((e) => e.type === 'Warning'));
    assert.deepEqual(await events('missing', 'ScaleUp'), []);
    assert.doesNotMatch(await metricsText(), /variant_name="ghost"/);
  });

  it('a Deployment at 0 replicas: MetricsMissing as a Warning and no decision (no 0 → 1 flap)', async () => {
    await variantWorkload(cluster.admin, 'zero', 'idle', 0);
    await cluster.admin.apply(variantAutoscaling('zero', 'idle', 'm-idle', { minReplicas: 0 }));
    metrics.requests = 0;
    try {
      await cycles(6, 'zero', 'idle');
    } finally {
      metrics.requests = 100;
    }
    await waitFor(
      'MetricsMissing',
      async () => condition(await get('zero', 'idle'), 'MetricsAvailable')?.reason === 'MetricsMissing',
    );
    const v = await get('zero', 'idle');
    assert.equal(v.status?.desiredOptimizedAlloc, undefined);
    assert.match(condition(v, 'MetricsAvailable')?.message ?? '', /has 0 replicas/);
    await waitFor('the MetricsMissing Warning', async () => (await events('zero', 'MetricsMissing')).length > 0);
    assert.equal((await events('zero', 'MetricsMissing'))[0]!.type, 'Warning');
    assert.deepEqual(await events('zero', 'ScaleUp'), []);
    assert.doesNotMatch(await metricsText(), /wva_replica_scaling_total\{variant_name="idle"/);
  });

  it('two VAs on one Deployment: the later one gets DuplicateTarget, the first decides from its pods counted once', async () => {
    const pods = await variantWorkload(cluster.admin, 'dup', 'shared', 2);
    metrics.setAll(pods, 0.5, 0); // neither trigger fires, and one replica fewer would not be safe
    await cluster.admin.apply(variantAutoscaling('dup', 'first', 'm-dup', {}, 'H100'));
    await waitFor('first exists', async () => (await get('dup', 'first')).metadata.uid !== undefined);
    // creation timestamps have one-second resolution: make sure the second VA is later
    await waitFor(
      'a second later',
      async () => Date.now() - Date.parse((await get('dup', 'first')).metadata.creationTimestamp!) > 1_000,
    );
    const second = variantAutoscaling('dup', 'second', 'm-dup') as KubeObject & {
      spec: { scaleTargetRef: { name: string } };
    };
    second.spec.scaleTargetRef.name = 'shared';
    const first = variantAutoscaling('dup', 'first', 'm-dup') as KubeObject & {
      spec: { scaleTargetRef: { name: string } };
    };
    first.spec.scaleTargetRef.name = 'shared';
    await cluster.admin.apply(first);
    await cluster.admin.apply(second);
    await waitFor(
      'DuplicateTarget on the second',
      async () => condition(await get('dup', 'second'), 'TargetResolved')?.reason === 'DuplicateTarget',
    );
    await cycles(2, 'dup', 'first');
    const d = autoscaler.decisions.latest('dup', 'first')!;
    assert.equal(d.outcome, 'optimized');
    assert.equal(d.replicasWithMetrics, 2);
    assert.equal(d.target, 2);
    assert.equal(autoscaler.decisions.latest('dup', 'second')?.withheld?.reason, 'DuplicateTarget');
    const s = await get('dup', 'second');
    assert.match(condition(s, 'TargetResolved')?.message ?? '', /already the target of VariantAutoscaling dup\/first/);
    assert.equal(s.status?.desiredOptimizedAlloc, undefined);
    await waitFor('the DuplicateTarget Warning', async () => (await events('dup', 'DuplicateTarget')).length > 0);
    assert.equal((await events('dup', 'DuplicateTarget'))[0]!.type, 'Warning');
    assert.equal(condition(await get('dup', 'first'), 'TargetResolved')?.reason, 'TargetFound');
  });

  it('the first of two VAs on one Deployment starts deleting (a finalizer holds it): the second takes the target at once', async () => {
    // continues the test above: dup/first holds shared, dup/second is DuplicateTarget
    const hold = { metadata: { finalizers: ['test.modelplane.io/hold'] } };
    await cluster.admin.patch(VariantAutoscalings, 'first', 'dup', hold, 'merge');
    await cluster.admin.delete(VariantAutoscalings, 'first', 'dup');
    try {
      // no cycle runs: only the deletion's event can tell the second
      await waitFor(
        'the second to hold the target',
        async () => condition(await get('dup', 'second'), 'TargetResolved')?.reason === 'TargetFound',
      );
    } finally {
      await cluster.admin.patch(VariantAutoscalings, 'first', 'dup', { metadata: { finalizers: null } }, 'merge');
    }
  });

  it('a NaN sample is dropped and named; the model keeps its size and does not claim success', async () => {
    const pods = await variantWorkload(cluster.admin, 'poison', 'p', 2);
    metrics.setAll(pods, 0.5, 0);
    await cluster.admin.apply(variantAutoscaling('poison', 'p', 'm-poison'));
    await cycles(1, 'poison', 'p');
    await waitFor('desired 2', async () => (await get('poison', 'p')).status?.desiredOptimizedAlloc?.numReplicas === 2);
    metrics.load.set(pods[0]!, { kvCacheUsage: Number.NaN, queueLength: 0 });
    metrics.load.set(pods[1]!, { kvCacheUsage: 0.95, queueLength: -4 });
    await cycles(3, 'poison', 'p');
    await waitFor(
      'MetricsAvailable False',
      async () => condition(await get('poison', 'p'), 'MetricsAvailable')?.status === 'False',
    );
    const v = await get('poison', 'p');
    assert.match(condition(v, 'MetricsAvailable')?.message ?? '', /p-rs-0: vllm:kv_cache_usage_perc = NaN/);
    assert.match(condition(v, 'MetricsAvailable')?.message ?? '', /p-rs-1: vllm:num_requests_waiting = -4/);
    assert.notEqual(condition(v, 'OptimizationReady')?.reason, 'OptimizationSucceeded');
    assert.equal(v.status?.desiredOptimizedAlloc?.numReplicas, 2);
    // one poisoned replica of two: the other decides nothing on its own (the model is not fully measured)
    metrics.load.set(pods[1]!, { kvCacheUsage: 0.95, queueLength: 9 });
    await cycles(2, 'poison', 'p');
    assert.equal(autoscaler.decisions.latest('poison', 'p')?.target, 2);
    assert.deepEqual(await events('poison', 'ScaleUp'), []);
  });

  it('stale samples set MetricsStale', async () => {
    const pods = await variantWorkload(cluster.admin, 'stale', 's', 1);
    for (const p of pods) metrics.load.set(p, { kvCacheUsage: 0.9, queueLength: 9, sampleAgeSeconds: 240 });
    await cluster.admin.apply(variantAutoscaling('stale', 's', 'm-stale'));
    await cycles(3, 'stale', 's');
    await waitFor(
      'MetricsStale',
      async () => condition(await get('stale', 's'), 'MetricsAvailable')?.reason === 'MetricsStale',
    );
    assert.match(condition(await get('stale', 's'), 'MetricsAvailable')?.message ?? '', /240s old/);
    assert.equal((await get('stale', 's')).status?.desiredOptimizedAlloc, undefined);
  });

  it('events and wva_replica_scaling_total follow decision changes, not cycles', async () => {
    const pods = await variantWorkload(cluster.admin, 'flap', 'f', 2);
    metrics.setAll(pods, 0.9, 6);
    await cluster.admin.apply(variantAutoscaling('flap', 'f', 'm-flap'));
    await cycles(6, 'flap', 'f'); // 2 → 3, then in transition (current 2) for five cycles
    await waitFor('desired 3', async () => (await get('flap', 'f')).status?.desiredOptimizedAlloc?.numReplicas === 3);
    const pods3 = await variantWorkload(cluster.admin, 'flap', 'f', 3);
    metrics.setAll(pods3, 0.05, 0);
    await cycles(4, 'flap', 'f'); // 3 → 2 once, then in transition (current 3)
    await waitFor('desired 2', async () => (await get('flap', 'f')).status?.desiredOptimizedAlloc?.numReplicas === 2);
    const text = await metricsText();
    assert.match(
      text,
      /wva_replica_scaling_total\{variant_name="f",namespace="flap",direction="up",reason="scale-up"\} 1\n/,
    );
    assert.match(
      text,
      /wva_replica_scaling_total\{variant_name="f",namespace="flap",direction="down",reason="scale-down"\} 1\n/,
    );
    await waitFor('both events', async () => (await events('flap', 'ScaleDown')).length > 0);
    assert.equal((await events('flap', 'ScaleUp')).length, 1);
    assert.equal((await events('flap', 'ScaleDown')).length, 1);
    assert.match((await events('flap', 'ScaleDown'))[0]!.message, /desired replicas 3 → 2/);
    await cluster.admin.delete(VariantAutoscalings, 'f', 'flap');
    await waitFor(
      'every series of the deleted VA removed',
      async () => !(await metricsText()).includes('variant_name="f"'),
    );
  });

  it('a VA labelled for another instance is never written; an excluded namespace is skipped with the reason', async () => {
    await variantWorkload(cluster.admin, 'multi', 'other', 1);
    const other = variantAutoscaling('multi', 'other', 'm-other');
    other.metadata.labels = { ...other.metadata.labels, 'wva.llmd.ai/controller-instance': 'team-b' };
    await cluster.admin.apply(other);
    const pods = await variantWorkload(cluster.admin, 'multi', 'mine', 1);
    metrics.setAll(pods, 0.3, 0);
    await cluster.admin.apply(variantAutoscaling('multi', 'mine', 'm-mine'));
    await cycles(3, 'multi', 'mine');
    assert.equal((await get('multi', 'other')).status, undefined);
    assert.equal(autoscaler.decisions.latest('multi', 'other'), undefined);
    await cluster.admin.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'multi', annotations: { 'wva.llmd.ai/exclude': 'true' } },
    } as KubeObject);
    // the annotation reaches the engine's informer cache a moment after the write: a cycle each poll
    await waitFor('SkippedProcessing', async () => {
      await autoscaler.engine.runCycle();
      return condition(await get('multi', 'mine'), 'OptimizationReady')?.reason === 'SkippedProcessing';
    });
    assert.match(condition(await get('multi', 'mine'), 'OptimizationReady')?.message ?? '', /wva\.llmd\.ai\/exclude/);
    assert.equal((await get('multi', 'other')).status, undefined);
  });

  it('GLOBAL_OPT_INTERVAL below 1 s runs at 1 s with a Warning; a bad default keeps the last good one with a Warning', async () => {
    await cluster.admin.apply(configMap(WVA_NS, NAMES.configMapName, { GLOBAL_OPT_INTERVAL: '0.0001s' }));
    await waitFor('interval 1 s', () => autoscaler.config.snapshot().optimizationIntervalMs === 1_000);
    await waitFor('the floor Warning', async () =>
      (await events(WVA_NS, 'InvalidConfiguration')).some((e) => /below the 1s floor/.test(e.message)),
    );
    const v = autoscaler.config.snapshot().version;
    await cluster.admin.apply(
      configMap(WVA_NS, NAMES.saturationConfigMapName, {
        default: 'kvCacheThreshold: 7',
        llama: 'kvCacheThreshold: 0.9',
      }),
    );
    await waitFor('the edit in the cache', () => autoscaler.config.snapshot().version > v);
    assert.equal(autoscaler.config.snapshot().global?.defaultConfig?.kvCacheThreshold, 0.8);
    await waitFor('the Warning', async () =>
      (await events(WVA_NS, 'InvalidConfiguration')).some((e) =>
        /entry "default": field "kvCacheThreshold" is 7.*the last good version of this entry stays in use/.test(
          e.message,
        ),
      ),
    );
  });
});
