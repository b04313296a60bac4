// No decision without evidence, and configuration that survives bad edits: poisoned samples dropped and
// named, stale samples, targets claimed twice, the interval's bounds, per-entry last-good config and the
// fields we do not implement refused. Pure functions, table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigCache } from '../../../src/controllers/llmd/config/cache.ts';
import {
  MAX_OPT_INTERVAL_MS,
  MIN_OPT_INTERVAL_MS,
  parseOptimizationInterval,
  parseSaturationConfigMap,
} from '../../../src/controllers/llmd/config/parse.ts';
import type { VariantDecision } from '../../../src/controllers/llmd/decisions.ts';
import type { ScalableWorkload, VariantAutoscaling } from '../../../src/controllers/llmd/kinds.ts';
import { analyzeModel } from '../../../src/controllers/llmd/saturation/analyzer.ts';
import {
  checkSample,
  checkSamples,
  duplicateTargets,
  sampleProblem,
  withheldForSamples,
} from '../../../src/controllers/llmd/saturation/evidence.ts';
import { calculateTargets, type VariantState } from '../../../src/controllers/llmd/saturation/targets.ts';
import { setVariantStatus } from '../../../src/controllers/llmd/variantautoscaling/status.ts';
import { ConditionManager } from '../../../src/engine/conditions.ts';
import { FetchResult } from '../../../src/engine/fetch-result.ts';

const DEFAULT = 'kvCacheThreshold: 0.80\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n';

describe('checkSample: only finite, in-range, fresh samples count', () => {
  const cases: Array<[string, Parameters<typeof checkSample>[1], string, RegExp?]> = [
    ['both series', { kvCacheUsage: 0.4, queueLength: 2 }, 'ok'],
    ['kv only (queue counts as 0)', { kvCacheUsage: 0.4 }, 'ok'],
    ['no sample at all', undefined, 'missing'],
    ['neither series', {}, 'missing'],
    [
      'kv NaN',
      { kvCacheUsage: Number.NaN, queueLength: 0 },
      'dropped',
      /kv_cache_usage_perc = NaN \(must be a number in 0\.\.1\)/,
    ],
    ['kv negative', { kvCacheUsage: -0.1 }, 'dropped', /= -0\.1/],
    ['kv above 1', { kvCacheUsage: 1.5 }, 'dropped', /= 1\.5/],
    ['kv infinite', { kvCacheUsage: Number.POSITIVE_INFINITY }, 'dropped', /Infinity/],
    ['queue NaN', { kvCacheUsage: 0.2, queueLength: Number.NaN }, 'dropped', /num_requests_waiting = NaN/],
    ['queue negative', { queueLength: -3 }, 'dropped', /num_requests_waiting = -3 \(must be a number >= 0\)/],
    ['kv exactly 1 and queue 0 are in range', { kvCacheUsage: 1, queueLength: 0 }, 'ok'],
    ['a sample 61 s old is stale', { kvCacheUsage: 0.2, sampleAgeSeconds: 61 }, 'stale', /61s old \(stale after 60s\)/],
    ['an age with no value is stale, not missing', { sampleAgeSeconds: 200 }, 'stale', /200s old/],
    ['a sample 60 s old is still fresh', { kvCacheUsage: 0.2, sampleAgeSeconds: 60 }, 'ok'],
  ];
  for (const [name, load, kind, why] of cases)
    it(name, () => {
      const c = checkSample('p0', load, 60);
      assert.equal(c.kind, kind);
      if (why) {
        assert.ok('why' in c);
        assert.match(c.why, why);
        assert.match(c.why, /^pod p0: /);
      }
    });

  it('a pod with a poisoned series counts as without metrics, not as idle', () => {
    const s = checkSamples(
      ['a', 'b', 'c'],
      new Map([
        ['a', { kvCacheUsage: 0.9, queueLength: 6 }],
        ['b', { kvCacheUsage: Number.NaN, queueLength: 0 }],
      ]),
      60,
    );
    assert.deepEqual(
      s.replicas.map((r) => r.pod),
      ['a'],
    );
    assert.equal(s.dropped.length, 1);
    assert.equal(sampleProblem(s)?.reason, 'MetricsMissing');
    assert.match(sampleProblem(s)!.message, /invalid samples dropped: pod b/);
  });
});

describe('withheldForSamples: no decision without a replica that has usable metrics', () => {
  const none = { replicas: [], dropped: [], stale: [] };
  it('0 replicas → MetricsMissing, never a scale-up', () => {
    const w = withheldForSamples('Deployment llm/a', 0, none, 'Prometheus');
    assert.equal(w?.reason, 'MetricsMissing');
    assert.match(w!.message, /has 0 replicas/);
  });
  it('replicas but no series → MetricsMissing naming the source', () => {
    assert.match(
      withheldForSamples('Deployment llm/a', 2, none, 'Prometheus at x')!.message,
      /none of the 2 replicas.*Prometheus at x/,
    );
  });
  it('only stale samples → MetricsStale', () => {
    assert.equal(withheldForSamples('D', 1, { ...none, stale: ['pod p: old'] }, 'P')?.reason, 'MetricsStale');
  });
  it('only dropped samples → MetricsMissing naming them', () => {
    assert.match(withheldForSamples('D', 1, { ...none, dropped: ['pod p: NaN'] }, 'P')!.message, /pod p: NaN/);
  });
  it('one usable replica is evidence', () => {
    assert.equal(
      withheldForSamples('D', 3, { ...none, replicas: [{ pod: 'p', kvCacheUsage: 0, queueLength: 0 }] }, 'P'),
      undefined,
    );
  });
});

describe('MetricsAvailable while replicas report nothing: a wait within the grace, a Warning after', () => {
  const va = {
    apiVersion: 'llmd.ai/v1alpha1',
    kind: 'VariantAutoscaling',
    metadata: { name: 'v', namespace: 'llm', labels: { 'inference.optimization/acceleratorName': 'H100' } },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'v' }, modelID: 'm' },
  } as unknown as VariantAutoscaling;
  const deployment = { metadata: { name: 'v', namespace: 'llm' }, spec: { replicas: 1 } } as ScalableWorkload;
  const withheld = withheldForSamples('Deployment llm/v', 1, { replicas: [], dropped: [], stale: [] }, 'Prometheus')!;
  const decision = (awaiting: boolean, previous: ConditionManager = new ConditionManager()) => {
    const d = {
      name: 'v',
      namespace: 'llm',
      modelID: 'm',
      cycle: 3,
      time: '2026-01-01T00:00:00Z',
      current: 1,
      target: 1,
      action: 'no-change',
      reason: withheld.message,
      outcome: 'withheld',
      replicasWithMetrics: 0,
      withheld,
      noSamplesSince: '2026-01-01T00:00:00Z',
      awaitingFirstSamples: awaiting,
    } as VariantDecision;
    const cm = new ConditionManager(previous.list());
    setVariantStatus(va, { target: FetchResult.of(deployment), decision: d, metricsSource: 'Prometheus' }, {}, cm);
    return cm;
  };
  const said = (cm: ConditionManager, type: string) => {
    const o = cm.observations().find((x) => x.condition.type === type)!;
    return [o.condition.status, o.condition.reason, o.transitioned ? o.config.level : 'no transition'];
  };

  it('within the grace: Unknown/MetricsMissing saying why, at info; after it: False/MetricsMissing as a Warning', () => {
    const waiting = decision(true);
    assert.deepEqual(said(waiting, 'MetricsAvailable'), ['Unknown', 'MetricsMissing', 'info']);
    assert.match(waiting.get('MetricsAvailable')!.message, /^waiting for the first samples .*none of the 1 replicas/);
    assert.equal(waiting.get('OptimizationReady')?.status, 'Unknown');
    const lasting = decision(false, waiting);
    assert.deepEqual(said(lasting, 'MetricsAvailable'), ['False', 'MetricsMissing', 'warning']);
    assert.equal(lasting.get('OptimizationReady')?.status, 'False');
  });
});

describe('duplicateTargets: the VA applied later is told', () => {
  const claim = (key: string, target: string, creationTimestamp?: string, kind = 'Deployment') => ({
    key: `llm/${key}`,
    namespace: 'llm',
    targetKind: kind,
    targetName: target,
    ...(creationTimestamp ? { creationTimestamp } : {}),
  });
  it('the earlier creation owns the target whatever the names', () => {
    const d = duplicateTargets([
      claim('a-late', 'd', '2026-01-02T00:00:00Z'),
      claim('z-early', 'd', '2026-01-01T00:00:00Z'),
    ]);
    assert.deepEqual([...d], [['llm/a-late', 'llm/z-early']]);
  });
  it('same second: the first name owns it; three claims → two told', () => {
    const t = '2026-01-01T00:00:00Z';
    const d = duplicateTargets([claim('c', 'd', t), claim('b', 'd', t), claim('a', 'd', t)]);
    assert.deepEqual([...d].sort(), [
      ['llm/b', 'llm/a'],
      ['llm/c', 'llm/a'],
    ]);
  });
  it('different targets, kinds or namespaces are no conflict', () => {
    assert.equal(
      duplicateTargets([claim('a', 'd1'), claim('b', 'd2'), claim('c', 'd1', undefined, 'StatefulSet')]).size,
      0,
    );
    assert.equal(duplicateTargets([claim('a', 'd'), { ...claim('b', 'd'), namespace: 'other' }]).size, 0);
  });
});

describe('GLOBAL_OPT_INTERVAL bounds', () => {
  const cases: Array<[string, number, RegExp?]> = [
    ['0.0001s', MIN_OPT_INTERVAL_MS, /below the 1s floor/],
    ['999ms', MIN_OPT_INTERVAL_MS, /below the 1s floor/],
    ['1s', 1_000],
    ['24h', MAX_OPT_INTERVAL_MS],
    ['25h', MAX_OPT_INTERVAL_MS, /above the 24h ceiling/],
    [`${'9'.repeat(400)}h`, MAX_OPT_INTERVAL_MS, /above the 24h ceiling/],
  ];
  for (const [text, ms, warning] of cases)
    it(`${text.slice(0, 12)} → ${ms} ms${warning ? ' with a warning' : ''}`, () => {
      const r = parseOptimizationInterval({ GLOBAL_OPT_INTERVAL: text });
      assert.equal(r.ms, ms);
      if (warning) assert.match(r.problem!.message, warning);
      else assert.equal(r.problem, undefined);
    });
  it('the cache clamps whatever it is given (a timer never gets 0, NaN or an overflowing delay)', () => {
    const c = new ConfigCache();
    for (const [given, want] of [
      [0, MIN_OPT_INTERVAL_MS],
      [Number.NaN, MIN_OPT_INTERVAL_MS],
      [1e15, MAX_OPT_INTERVAL_MS],
      [5_000, 5_000],
    ] as const) {
      c.setOptimizationInterval(given);
      assert.equal(c.snapshot().optimizationIntervalMs, want, String(given));
    }
  });
});

describe('per-entry last good configuration', () => {
  const first = parseSaturationConfigMap({ default: DEFAULT, llama: 'kvCacheThreshold: 0.9' });
  it('an invalid default beside a valid override keeps the good default (models without an entry still decide)', () => {
    const { config, problems } = parseSaturationConfigMap(
      { default: 'kvCacheThreshold: 7', llama: 'kvCacheThreshold: 0.95' },
      first.config,
    );
    assert.equal(config.defaultConfig?.kvCacheThreshold, 0.8);
    assert.equal(config.overrides[0]?.config.kvCacheThreshold, 0.95);
    assert.deepEqual(
      problems.map((p) => [p.entry, p.consequence]),
      [['default', 'kept-last-good']],
    );
  });
  it('an invalid override keeps its last good version; a new invalid one is skipped', () => {
    const { config, problems } = parseSaturationConfigMap(
      { default: DEFAULT, llama: 'kvCacheThreshold: oops', fresh: 'kvCacheThreshold: 2' },
      first.config,
    );
    assert.deepEqual(
      config.overrides.map((o) => [o.entry, o.config.kvCacheThreshold]),
      [['llama', 0.9]],
    );
    assert.deepEqual(problems.map((p) => [p.entry, p.consequence]).sort(), [
      ['fresh', 'skipped'],
      ['llama', 'kept-last-good'],
    ]);
  });
  it('YAML that does not parse also keeps the last good entry', () => {
    const { config } = parseSaturationConfigMap({ default: 'a: [b', llama: 'kvCacheThreshold: 0.9' }, first.config);
    assert.equal(config.defaultConfig?.kvCacheThreshold, 0.8);
  });
  it('an entry removed from the ConfigMap is gone, not kept', () => {
    const { config } = parseSaturationConfigMap({ default: DEFAULT }, first.config);
    assert.deepEqual(config.overrides, []);
  });
  it('a refused field (GPU limiter) keeps the last good default rather than running without it', () => {
    const { config, problems } = parseSaturationConfigMap({ default: `${DEFAULT}enableLimiter: true\n` }, first.config);
    assert.equal(config.defaultConfig?.kvCacheThreshold, 0.8);
    assert.equal(problems[0]?.field, 'enableLimiter');
    assert.equal(problems[0]?.consequence, 'kept-last-good');
  });
  it('a threshold of 0 (every replica always saturated) is refused, naming the field', () => {
    for (const f of ['kvCacheThreshold', 'queueLengthThreshold']) {
      const { problems } = parseSaturationConfigMap({ default: `${f}: 0\n` });
      assert.equal(problems[0]?.field, f);
      assert.match(problems[0]!.message, /counts every replica as saturated all the time/);
    }
  });
  it('"off" values of the unimplemented fields are accepted', () => {
    assert.deepEqual(
      parseSaturationConfigMap({ default: `${DEFAULT}enableLimiter: false\nanalyzerName: ""\n` }).problems,
      [],
    );
  });
});

describe('no scale-up while nothing is in flight', () => {
  const C = { kvCacheThreshold: 0.8, queueLengthThreshold: 5, kvSpareTrigger: 0.1, queueSpareTrigger: 3 };
  const variant = (inFlight: Array<number | undefined>): VariantState => ({
    name: 'v',
    cost: 10,
    minReplicas: 1,
    maxReplicas: 10,
    current: inFlight.length,
    ready: inFlight.length,
    replicas: inFlight.map((f, i) => ({
      pod: `p${i}`,
      kvCacheUsage: 0.9,
      queueLength: 6,
      ...(f !== undefined ? { inFlight: f } : {}),
    })),
  });
  const cases: Array<[string, Array<number | undefined>, number]> = [
    ["the last minute's peak, but every replica idle now → stays", [0, 0], 2],
    ['one replica still busy → grows', [0, 3], 3],
    ['in-flight unknown (no series) → the trigger decides, grows', [undefined, undefined], 3],
    ['one unknown, one idle → grows (not proven idle)', [undefined, 0], 3],
  ];
  for (const [name, inFlight, want] of cases)
    it(name, () => {
      const v = variant(inFlight);
      const t = calculateTargets([v], analyzeModel(v.replicas, C), {
        windowSeconds: 600,
        requestsInWindow: 10,
        windowDescription: '10m',
      });
      assert.equal(t[0]!.target, want);
      if (want === 2) assert.match(t[0]!.reason, /no request is running or waiting on any replica now/);
    });
});
