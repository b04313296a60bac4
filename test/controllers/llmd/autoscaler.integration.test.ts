// The autoscaler on the test cluster: ConfigMaps → config cache (invalid entries evented), the
// engine's decisions → VA status, conditions, events and wva_* metrics, the safety net, the interval applied
// live, and the proof from the API server's audit log that the engine makes no API request, over many
// cycles including the ones right after ConfigMap edits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCrd } from '@modelplane/runtime/crd';
import { rootLogger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { startCluster, type TestCluster } from '@modelplane/runtime/testing';
import { variantAutoscalingCrd } from '../../../src/apis/llmd/index.ts';
import { SaturationEngine } from '../../../src/controllers/llmd/engine-loop.ts';
import { type Autoscaler, registerAutoscaler } from '../../../src/controllers/llmd/index.ts';
import { type VariantAutoscaling, VariantAutoscalings } from '../../../src/controllers/llmd/kinds.ts';
import { waitFor } from '../../helpers/wait.ts';
import {
  configMap,
  DEFAULT_ENTRY,
  namespaces,
  SettableMetrics,
  variantAutoscaling,
  variantWorkload,
  WVA_NS,
} from './fixture.ts';

const NAMES = {
  namespace: WVA_NS,
  configMapName: 'workload-variant-autoscaler-variantautoscaling-config',
  saturationConfigMapName: 'saturation-scaling-config',
};
const quiet = rootLogger().child({ test: 'autoscaler' });

describe('autoscaler on the test cluster', () => {
  let cluster: TestCluster;
  let mgr: Manager;
  let engineMgr: Manager;
  let autoscaler: Autoscaler;
  let engine: SaturationEngine;
  const metrics = new SettableMetrics();
  let podsA: string[];

  const va = () => cluster.admin.get(VariantAutoscalings, 'llama-a', 'llm') as Promise<VariantAutoscaling>;
  const condition = (v: VariantAutoscaling, type: string) => v.status?.conditions?.find((c) => c.type === type);
  const events = async (ns: string, reason: string) =>
    (await cluster.admin.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: ns })).items.filter(
      (e) => (e as unknown as { reason: string }).reason === reason,
    ) as unknown as Array<{ message: string; type: string }>;

  before(async () => {
    cluster = await startCluster({ operatorUser: 'wva-controller' });
    await ensureCrd(cluster.admin, variantAutoscalingCrd());
    await namespaces(cluster.admin, WVA_NS, 'llm');
    await cluster.admin.apply(configMap(WVA_NS, NAMES.configMapName, { GLOBAL_OPT_INTERVAL: '30s' }));
    await cluster.admin.apply(configMap(WVA_NS, NAMES.saturationConfigMapName, { default: DEFAULT_ENTRY }));
    podsA = await variantWorkload(cluster.admin, 'llm', 'llama-a', 2);
    await cluster.admin.apply(variantAutoscaling('llm', 'llama-a', 'llama'));
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet, httpPort: 0 });
    autoscaler = await registerAutoscaler(mgr, { ...NAMES, metricsSource: metrics, autoStart: false }, quiet);
    await mgr.start();
    // the engine on its own identity and informer cache, so the audit log can tell its requests apart
    engineMgr = await Manager.create({ kubeconfig: await cluster.userKubeconfig('wva-engine'), logger: quiet });
    await engineMgr.start();
    engine = new SaturationEngine({
      reader: engineMgr.cache,
      config: autoscaler.config,
      source: metrics,
      decisions: autoscaler.decisions,
      onDecisions: (keys) => {
        for (const k of keys) autoscaler.controller.enqueue(k);
      },
      log: quiet,
      saturationConfigMapName: NAMES.saturationConfigMapName,
    });
    await waitFor('the saturation ConfigMap in the cache', () => autoscaler.config.snapshot().global !== undefined);
  });

  after(async () => {
    await engine?.stop();
    await engineMgr?.stop();
    await mgr?.stop();
    await cluster?.close();
  });

  it('scale-up: every replica saturated → desired 3, with the reason in the condition, an event and the metrics', async () => {
    metrics.setAll(podsA, 0.9);
    const report = await engine.runCycle();
    assert.equal(report.variants, 1);
    await waitFor(
      'desiredOptimizedAlloc.numReplicas 3',
      async () => (await va()).status?.desiredOptimizedAlloc?.numReplicas === 3,
    );
    const v = await va();
    assert.equal(v.status?.desiredOptimizedAlloc?.accelerator, 'H100');
    assert.equal(condition(v, 'TargetResolved')?.reason, 'TargetFound');
    assert.equal(condition(v, 'MetricsAvailable')?.status, 'True');
    const opt = condition(v, 'OptimizationReady');
    assert.equal(opt?.reason, 'OptimizationSucceeded');
    assert.match(opt?.message ?? '', /scale-up trigger fired: spare KV cache 0 < kvSpareTrigger 0\.1.*\+1 on llama-a/);
    await waitFor('a ScaleUp event', async () => (await events('llm', 'ScaleUp')).length > 0);
    assert.match(
      (await events('llm', 'ScaleUp'))[0]!.message,
      /desired replicas 2 → 3 \(current 2\): scale-up trigger fired/,
    );
    const text = await (await fetch(`${mgr.url}/metrics`)).text();
    assert.match(text, /wva_desired_replicas\{variant_name="llama-a",namespace="llm",accelerator_type="H100"\} 3/);
    assert.match(text, /wva_current_replicas\{variant_name="llama-a",namespace="llm",accelerator_type="H100"\} 2/);
    assert.match(text, /wva_desired_ratio\{variant_name="llama-a",namespace="llm",accelerator_type="H100"\} 1\.5/);
    assert.match(
      text,
      /wva_replica_scaling_total\{variant_name="llama-a",namespace="llm",direction="up",reason="scale-up"\} 1/,
    );
  });

  it('in transition (desired 3, current 2): the next cycle keeps 3 and decides nothing new', async () => {
    const r = await engine.runCycle();
    const d = autoscaler.decisions.latest('llm', 'llama-a')!;
    assert.equal(d.cycle, r.cycle);
    assert.equal(d.action, 'in-transition');
    assert.equal(d.target, 3);
  });

  it('metrics unavailable: the safety net re-emits the previous decision and the conditions say why', async () => {
    metrics.failure = 'Prometheus at http://prometheus:9090 is unreachable: connect ECONNREFUSED';
    try {
      await engine.runCycle();
      await waitFor(
        'MetricsAvailable=False/PrometheusError',
        async () => condition(await va(), 'MetricsAvailable')?.reason === 'PrometheusError',
      );
      const v = await va();
      assert.equal(condition(v, 'MetricsAvailable')?.status, 'False');
      assert.match(condition(v, 'MetricsAvailable')?.message ?? '', /ECONNREFUSED/);
      assert.equal(condition(v, 'OptimizationReady')?.reason, 'MetricsUnavailable');
      assert.equal(v.status?.desiredOptimizedAlloc?.numReplicas, 3);
    } finally {
      metrics.failure = undefined;
    }
  });

  it('an invalid ConfigMap entry is skipped with a Warning event naming the entry and field; the rest is used', async () => {
    const before = autoscaler.config.snapshot().version;
    await cluster.admin.apply(
      configMap(WVA_NS, NAMES.saturationConfigMapName, {
        default: DEFAULT_ENTRY,
        broken: 'kvCacheThreshold: 1.5',
        llama: 'kvCacheThreshold: 0.95',
      }),
    );
    await waitFor('the edited ConfigMap in the cache', () => autoscaler.config.snapshot().version > before);
    await waitFor(
      'an InvalidConfiguration event',
      async () => (await events(WVA_NS, 'InvalidConfiguration')).length > 0,
    );
    const e = (await events(WVA_NS, 'InvalidConfiguration'))[0]!;
    assert.equal(e.type, 'Warning');
    assert.match(
      e.message,
      /saturation-scaling-config: entry "broken": field "kvCacheThreshold" is 1\.5; it must be between 0 and 1; the entry is skipped/,
    );
    const global = autoscaler.config.snapshot().global!;
    assert.deepEqual(
      global.overrides.map((o) => o.entry),
      ['llama'],
    );
  });

  it('GLOBAL_OPT_INTERVAL is applied live', async () => {
    await cluster.admin.apply(configMap(WVA_NS, NAMES.configMapName, { GLOBAL_OPT_INTERVAL: '2s' }));
    await waitFor('interval 2 s in the cache', () => autoscaler.config.snapshot().optimizationIntervalMs === 2_000);
  });

  it('the engine makes zero API-server requests over many cycles, including right after ConfigMap edits', async () => {
    await engine.runCycle(); // its informers exist and have synced from here on
    const mark = cluster.auditEntries().length;
    const engineLists = cluster
      .auditEntries()
      .filter((e) => e.user === 'wva-engine' && e.verb === 'list')
      .map((e) => e.resource);
    assert.ok(
      engineLists.includes('variantautoscalings') && engineLists.includes('pods'),
      "the audit log attributes the engine cache's initial lists to its identity",
    );
    const versions: number[] = [];
    const thresholds: number[] = [];
    for (let i = 0; i < 30; i++) {
      if (i % 5 === 0) {
        const v = autoscaler.config.snapshot().version;
        const kv = 0.5 + i / 100;
        await cluster.admin.apply(
          configMap(WVA_NS, NAMES.saturationConfigMapName, {
            default: DEFAULT_ENTRY,
            llama: `kvCacheThreshold: ${kv}`,
          }),
        );
        await waitFor(`ConfigMap edit ${i / 5 + 1} in the cache`, () => autoscaler.config.snapshot().version > v);
        thresholds.push(kv);
      }
      await engine.runCycle(); // right after the edit reached the cache
      versions.push(autoscaler.config.snapshot().version);
    }
    const engineRequests = cluster
      .auditEntries()
      .slice(mark)
      .filter((e) => e.user === 'wva-engine' && e.verb !== 'watch');
    assert.deepEqual(engineRequests, [], `the engine made API requests: ${JSON.stringify(engineRequests.slice(0, 5))}`);
    // and the cycles did use the edited configuration
    assert.equal(new Set(versions).size, 6);
    const last = autoscaler.decisions.latest('llm', 'llama-a')!;
    assert.match(last.reason, /\[config saturation-scaling-config\[llama\]\]/);
    const controllerCmReads = cluster
      .auditEntries()
      .slice(mark)
      .filter((e) => e.user === 'wva-controller' && e.resource === 'configmaps' && e.verb !== 'watch');
    assert.deepEqual(controllerCmReads, [], 'ConfigMaps reach the cache by watch only');
  });

  it('a deleted VariantAutoscaling stops being exported', async () => {
    await cluster.admin.delete(VariantAutoscalings, 'llama-a', 'llm');
    await waitFor(
      'the gauge removed',
      async () =>
        !(await (await fetch(`${mgr.url}/metrics`)).text()).includes('wva_desired_replicas{variant_name="llama-a"'),
    );
    assert.equal(autoscaler.decisions.latest('llm', 'llama-a'), undefined);
  });
});
