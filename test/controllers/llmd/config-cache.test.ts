// The autoscaler's ConfigMap parsing and configuration cache: invalid entries skipped with the entry and
// field named, per-model entries over `default`, namespace-local maps, last good config kept, immutable
// snapshots that readers can hold across updates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigCache,
  DEFAULT_OPT_INTERVAL_MS,
  resolveSaturationConfig,
} from '../../../src/controllers/llmd/config/cache.ts';
import { unreadConfigMap } from '../../../src/controllers/llmd/config/controller.ts';
import { parseIntervalMs } from '../../../src/controllers/llmd/config/duration.ts';
import { parseOptimizationInterval, parseSaturationConfigMap } from '../../../src/controllers/llmd/config/parse.ts';

const DEFAULT = 'kvCacheThreshold: 0.80\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n';
const NAME = 'saturation-scaling-config';

describe('parseSaturationConfigMap', () => {
  it("parses docs/autoscaling.md's example: default plus a per-model entry", () => {
    const { config, problems } = parseSaturationConfigMap({
      default: DEFAULT,
      'llama-3-8b-l40s':
        'kvCacheThreshold: 0.85\nqueueLengthThreshold: 8\nkvSpareTrigger: 0.15\nqueueSpareTrigger: 4\n',
    });
    assert.deepEqual(problems, []);
    assert.equal(config.defaultConfig?.kvCacheThreshold, 0.8);
    assert.equal(config.overrides[0]?.modelID, 'llama-3-8b-l40s');
    assert.equal(config.overrides[0]?.config.queueLengthThreshold, 8);
  });

  const invalid: Array<[string, string, string, RegExp]> = [
    ['kvCacheThreshold 1.5', 'kvCacheThreshold: 1.5', 'kvCacheThreshold', /1\.5; it must be between 0 and 1/],
    [
      'kvCacheThreshold < kvSpareTrigger',
      'kvCacheThreshold: 0.2\nkvSpareTrigger: 0.3',
      'kvSpareTrigger',
      /kvCacheThreshold must be >= kvSpareTrigger/,
    ],
    ['negative queue threshold', 'queueLengthThreshold: -1', 'queueLengthThreshold', />= 0/],
    ['negative queue trigger', 'queueSpareTrigger: -2', 'queueSpareTrigger', />= 0/],
    ['kvSpareTrigger above 1', 'kvSpareTrigger: 2\nkvCacheThreshold: 1', 'kvSpareTrigger', /between 0 and 1/],
    ['a number that is not one', 'kvCacheThreshold: lots', 'kvCacheThreshold', /must be a finite number/],
    [
      'infinity, named as such',
      'queueLengthThreshold: .inf',
      'queueLengthThreshold',
      /is Infinity; it must be a finite/,
    ],
    ['NaN, named as such', 'queueSpareTrigger: .nan', 'queueSpareTrigger', /is NaN; it must be a finite/],
    ['an unknown field', 'kvCacheTreshold: 0.5', 'kvCacheTreshold', /not known/],
    ['not a mapping', '- a\n- b', '', /YAML mapping/],
    ['not YAML', 'a: [b', '', /not valid YAML/],
    ['the GPU limiter (not implemented)', 'enableLimiter: true', 'enableLimiter', /GPU limiter is not implemented/],
    ['the V2 analyzer (not implemented)', 'analyzerName: saturation', 'analyzerName', /only the V1 saturation/],
    ['a V2-only threshold', 'scaleUpThreshold: 0.9', 'scaleUpThreshold', /V2 analyzer, which is not implemented/],
    ['a V2-only boundary', 'scaleDownBoundary: 0.5', 'scaleDownBoundary', /V2 analyzer, which is not implemented/],
  ];
  for (const [name, text, field, message] of invalid) {
    it(`skips an invalid entry (${name}) and keeps the valid ones`, () => {
      const { config, problems } = parseSaturationConfigMap({
        default: DEFAULT,
        bad: text,
        good: 'kvCacheThreshold: 0.9',
      });
      assert.equal(problems.length, 1);
      assert.equal(problems[0]!.entry, 'bad');
      assert.equal(problems[0]!.field, field);
      assert.match(problems[0]!.message, /^entry "bad": /);
      assert.match(problems[0]!.message, message);
      assert.deepEqual(
        config.overrides.map((o) => o.entry),
        ['good'],
      );
      assert.equal(config.defaultConfig?.kvCacheThreshold, 0.8);
    });
  }

  it('a per-model entry overrides default field by field (the rest inherited)', () => {
    const { config } = parseSaturationConfigMap({
      default: 'kvCacheThreshold: 0.7\nqueueSpareTrigger: 2',
      fast: 'queueLengthThreshold: 9',
    });
    assert.deepEqual({ ...config.overrides[0]!.config }, { ...config.defaultConfig!, queueLengthThreshold: 9 });
    assert.equal(config.overrides[0]!.config.kvCacheThreshold, 0.7);
  });

  it('an override is validated merged with default (kvSpareTrigger above the inherited threshold is rejected)', () => {
    const { problems } = parseSaturationConfigMap({
      default: 'kvCacheThreshold: 0.3\nkvSpareTrigger: 0.1',
      m: 'kvSpareTrigger: 0.5',
    });
    assert.equal(problems[0]?.entry, 'm');
    assert.equal(problems[0]?.field, 'kvSpareTrigger');
  });

  it('model_id and namespace select the model instead of the entry name', () => {
    const { config } = parseSaturationConfigMap({
      default: DEFAULT,
      prod: 'model_id: meta/llama-70b\nnamespace: production\nkvCacheThreshold: 0.9',
    });
    assert.equal(config.overrides[0]!.modelID, 'meta/llama-70b');
    assert.equal(config.overrides[0]!.namespace, 'production');
  });

  it('without a valid default, a partial override is rejected (nothing to inherit from)', () => {
    const { config, problems } = parseSaturationConfigMap({
      default: 'kvCacheThreshold: 7',
      m: 'kvCacheThreshold: 0.9',
    });
    assert.equal(config.defaultConfig, undefined);
    assert.deepEqual(
      problems.map((p) => p.entry),
      ['default', 'm'],
    );
  });

  it('parses GLOBAL_OPT_INTERVAL as a Go duration and reports a bad one', () => {
    assert.equal(parseOptimizationInterval({ GLOBAL_OPT_INTERVAL: '90s' }).ms, 90_000);
    assert.equal(parseOptimizationInterval({}).ms, undefined);
    assert.match(
      parseOptimizationInterval({ GLOBAL_OPT_INTERVAL: 'soon' }).problem!.message,
      /GLOBAL_OPT_INTERVAL "soon" is not a duration/,
    );
    for (const [text, ms] of [
      ['30s', 30_000],
      ['1m', 60_000],
      ['1m30s', 90_000],
      ['1.5m', 90_000],
      ['250ms', 250],
      ['1h', 3_600_000],
    ] as const)
      assert.deepEqual(parseIntervalMs(text), { ms }, text);
    for (const bad of ['0s', '', '10', '-5s', '5 s', '5d']) assert.ok('error' in parseIntervalMs(bad), bad);
  });
});

describe('ConfigCache', () => {
  const parsed = (data: Record<string, string>) => parseSaturationConfigMap(data).config;

  it('starts with the 30 s interval and no saturation config (models are skipped until one loads)', () => {
    const cache = new ConfigCache();
    assert.equal(cache.snapshot().optimizationIntervalMs, DEFAULT_OPT_INTERVAL_MS);
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'ns', 'm', NAME), undefined);
  });

  it('resolves a model: its own entry, else default; names the entry used', () => {
    const cache = new ConfigCache();
    cache.setSaturationConfig('global', parsed({ default: DEFAULT, 'llama-8b': 'kvCacheThreshold: 0.9' }));
    const own = resolveSaturationConfig(cache.snapshot(), 'ns', 'llama-8b', NAME)!;
    assert.equal(own.config.kvCacheThreshold, 0.9);
    assert.equal(own.origin, 'saturation-scaling-config[llama-8b]');
    assert.equal(
      resolveSaturationConfig(cache.snapshot(), 'ns', 'other', NAME)!.origin,
      'saturation-scaling-config[default]',
    );
  });

  it('a namespace-scoped override wins over an unscoped one for its namespace only', () => {
    const cache = new ConfigCache();
    cache.setSaturationConfig(
      'global',
      parsed({
        default: DEFAULT,
        any: 'model_id: m\nkvCacheThreshold: 0.85',
        prod: 'model_id: m\nnamespace: prod\nkvCacheThreshold: 0.95',
      }),
    );
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'prod', 'm', NAME)!.config.kvCacheThreshold, 0.95);
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'dev', 'm', NAME)!.config.kvCacheThreshold, 0.85);
  });

  it('a namespace-local ConfigMap replaces the global one for its namespace; deleting it falls back', () => {
    const cache = new ConfigCache();
    cache.setSaturationConfig('global', parsed({ default: DEFAULT, m: 'kvCacheThreshold: 0.9' }));
    cache.setSaturationConfig({ namespace: 'team-a' }, parsed({ default: 'kvCacheThreshold: 0.6' }));
    const local = resolveSaturationConfig(cache.snapshot(), 'team-a', 'm', NAME)!;
    assert.equal(local.config.kvCacheThreshold, 0.6, 'wholesale: the global per-model entry does not apply');
    assert.equal(local.origin, 'team-a/saturation-scaling-config[default]');
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'team-b', 'm', NAME)!.config.kvCacheThreshold, 0.9);
    cache.removeNamespaceConfig('team-a');
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'team-a', 'm', NAME)!.config.kvCacheThreshold, 0.9);
  });

  it('keeps the last good config when a whole ConfigMap is bad', () => {
    const cache = new ConfigCache();
    cache.setSaturationConfig('global', parsed({ default: DEFAULT }));
    const before = cache.snapshot();
    assert.equal(
      cache.setSaturationConfig('global', parsed({ default: 'kvCacheThreshold: 3', x: 'nonsense: [' })),
      'kept-last-good',
    );
    assert.equal(cache.snapshot(), before);
    assert.equal(resolveSaturationConfig(cache.snapshot(), 'ns', 'm', NAME)!.config.kvCacheThreshold, 0.8);
  });

  it('an interval change is published at once and listeners hear it', () => {
    const cache = new ConfigCache();
    const seen: number[] = [];
    cache.onChange((s) => seen.push(s.optimizationIntervalMs));
    cache.setOptimizationInterval(5_000);
    cache.setOptimizationInterval(5_000);
    assert.deepEqual(seen, [5_000]);
    assert.equal(cache.snapshot().optimizationIntervalMs, 5_000);
  });

  it('snapshots are immutable: a reader cannot change the cache through one', () => {
    const cache = new ConfigCache();
    cache.setSaturationConfig('global', parsed({ default: DEFAULT }));
    cache.setSaturationConfig({ namespace: 'a' }, parsed({ default: DEFAULT }));
    const s = cache.snapshot();
    assert.throws(() => {
      (s as { optimizationIntervalMs: number }).optimizationIntervalMs = 1;
    }, TypeError);
    assert.throws(() => {
      (s.global!.defaultConfig as { kvCacheThreshold: number }).kvCacheThreshold = 0.1;
    }, TypeError);
    assert.throws(() => (s.namespaces as Map<string, unknown>).set('b', {}), TypeError);
    assert.throws(() => (s.namespaces as Map<string, unknown>).delete('a'), TypeError);
    assert.throws(() => (s.global!.overrides as unknown[]).push({}), TypeError);
    assert.equal(cache.snapshot().global!.defaultConfig!.kvCacheThreshold, 0.8);
  });

  it('concurrent readers never see a torn update: a held snapshot stays whole while writers publish', async () => {
    const cache = new ConfigCache();
    const entry = (i: number) =>
      parsed({ default: `kvCacheThreshold: ${0.5 + (i % 40) / 100}\nkvSpareTrigger: ${(i % 40) / 100}` });
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; i < 400; i++) {
        cache.setSaturationConfig('global', entry(i));
        cache.setOptimizationInterval(1_000 + i);
        writes++;
        if (i % 7 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const reader = async () => {
      let checks = 0;
      while (writes < 400) {
        const s = cache.snapshot();
        const c = s.global?.defaultConfig;
        const interval = s.optimizationIntervalMs;
        await new Promise((r) => setImmediate(r));
        // the held snapshot did not move, and its parts belong together (written by the same update)
        if (c) {
          assert.equal(s.global?.defaultConfig, c);
          assert.ok(
            Math.abs(c.kvCacheThreshold - 0.5 - c.kvSpareTrigger) < 1e-9,
            'threshold and trigger from one write',
          );
        }
        assert.equal(s.optimizationIntervalMs, interval);
        checks++;
      }
      return checks;
    };
    const counts = await Promise.all([reader(), reader(), reader(), writer]);
    assert.ok((counts[0] as number) > 0);
  });
});

describe('the readiness gate (unreadConfigMap)', () => {
  const maps = [
    ['main', 1],
    ['saturation', 2],
  ] as const;
  it('not ready while a ConfigMap that exists has not been read; absent ones do not hold it back', async () => {
    const exists = async (name: string) => name !== 'absent';
    assert.equal(await unreadConfigMap('wva', maps, new Set(), exists), 'wva/main');
    assert.equal(await unreadConfigMap('wva', maps, new Set(['wva/main']), exists), 'wva/saturation');
    assert.equal(await unreadConfigMap('wva', maps, new Set(['wva/main', 'wva/saturation']), exists), undefined);
    assert.equal(await unreadConfigMap('wva', [['absent', 0]], new Set(), exists), undefined);
  });
});
