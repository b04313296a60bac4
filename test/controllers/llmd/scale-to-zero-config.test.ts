// The scale-to-zero ConfigMap as llm-d reads it: per-model entries (namespace-scoped first) over `default`
// over WVA_SCALE_TO_ZERO, field by field; retention windows as Go durations (10 m when none says); bad
// entries keep their last good version; `false` forbids zero even with minReplicas 0.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseScaleToZeroConfigMap, resolveScaleToZero } from '../../../src/controllers/llmd/config/scale-to-zero.ts';
import { analyzeModel } from '../../../src/controllers/llmd/saturation/analyzer.ts';
import { calculateTargets, type VariantState } from '../../../src/controllers/llmd/saturation/targets.ts';

const DATA = {
  default: 'enable_scale_to_zero: true\nretention_period: 5m',
  llama: 'model_id: meta/llama\nretention_period: 30s',
  'llama-team-a': 'model_id: meta/llama\nnamespace: team-a\nenable_scale_to_zero: false',
  mistral: 'retention_period: 1h',
};

describe('scale-to-zero configuration', () => {
  const { config, problems } = parseScaleToZeroConfigMap(DATA);
  it('parses every entry', () => assert.deepEqual(problems, []));
  const cases: Array<[string, string, boolean | undefined, { enabled?: boolean; retentionSeconds: number }]> = [
    [
      'its own entry sets the window, default the switch',
      'meta/llama',
      undefined,
      { enabled: true, retentionSeconds: 30 },
    ],
    ['an entry named after the model (no model_id)', 'mistral', undefined, { enabled: true, retentionSeconds: 3600 }],
    ['no entry: default', 'other', undefined, { enabled: true, retentionSeconds: 300 }],
  ];
  for (const [name, model, env, want] of cases)
    it(name, () => {
      const p = resolveScaleToZero(config, 'prod', model, env);
      assert.equal(p.enabled, want.enabled);
      assert.equal(p.retentionSeconds, want.retentionSeconds);
    });
  it('a namespace-scoped entry beats the unscoped one in its namespace only', () => {
    assert.equal(resolveScaleToZero(config, 'team-a', 'meta/llama', undefined).enabled, false);
    assert.equal(resolveScaleToZero(config, 'team-b', 'meta/llama', undefined).enabled, true);
  });
  it('without the ConfigMap: WVA_SCALE_TO_ZERO, else nothing said (minReplicas decides), 10 m', () => {
    assert.deepEqual(resolveScaleToZero(undefined, 'ns', 'm', false), {
      enabled: false,
      retentionSeconds: 600,
      origin: 'WVA_SCALE_TO_ZERO',
    });
    assert.deepEqual(resolveScaleToZero(undefined, 'ns', 'm', undefined), {
      retentionSeconds: 600,
      origin: 'no entry',
    });
  });
  it('a bad entry keeps its last good version or is skipped, naming the field', () => {
    const next = parseScaleToZeroConfigMap(
      { ...DATA, llama: 'model_id: meta/llama\nretention_period: soon', fresh: 'enable_scale_to_zero: maybe' },
      config,
    );
    assert.deepEqual(
      next.problems.map((p) => [p.entry, p.field, p.consequence]),
      [
        ['fresh', 'enable_scale_to_zero', 'skipped'],
        ['llama', 'retention_period', 'kept-last-good'],
      ],
    );
    assert.equal(resolveScaleToZero(next.config, 'prod', 'meta/llama', undefined).retentionSeconds, 30);
  });
  it('extreme retention periods are refused naming the field: zero, negative, over 30 days, overflowing', () => {
    for (const bad of ['0s', '-5m', '721h', '1000000h', `${'9'.repeat(400)}h`, 'NaNs', '1e3s']) {
      const r = parseScaleToZeroConfigMap({ m: `retention_period: ${JSON.stringify(bad)}` });
      assert.deepEqual(
        r.problems.map((p) => [p.entry, p.field, p.consequence]),
        [['m', 'retention_period', 'skipped']],
        bad,
      );
      assert.equal(r.config.entries.length, 0, bad);
    }
    assert.equal(
      resolveScaleToZero(parseScaleToZeroConfigMap({ m: 'retention_period: 720h' }).config, 'ns', 'm', undefined)
        .retentionSeconds,
      2_592_000,
    );
  });
  it('enable_scale_to_zero: false keeps one replica even with minReplicas 0 and no requests', () => {
    const v: VariantState = {
      name: 'v',
      cost: 10,
      minReplicas: 0,
      maxReplicas: 4,
      current: 1,
      ready: 1,
      replicas: [{ pod: 'p', kvCacheUsage: 0, queueLength: 0 }],
    };
    const C = { kvCacheThreshold: 0.8, queueLengthThreshold: 5, kvSpareTrigger: 0.1, queueSpareTrigger: 3 };
    const idle = {
      windowSeconds: 300,
      requestsInWindow: 0,
      peakInFlight: 0,
      idleSeconds: 300,
      windowDescription: '5m',
    };
    assert.equal(calculateTargets([v], analyzeModel(v.replicas, C), idle)[0]!.target, 0);
    const off = calculateTargets([v], analyzeModel(v.replicas, C), { ...idle, enabled: false })[0]!;
    assert.equal(off.target, 1);
    assert.notEqual(off.action, 'scale-to-zero');
  });
});
