// The engine loop's schedule: the first cycle at start, then one per GLOBAL_OPT_INTERVAL read from the
// config cache, a changed interval applied to the very next cycle, and a failed cycle retried with backoff.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rootLogger } from '@modelplane/runtime/log';
import { ConfigCache } from '../../../src/controllers/llmd/config/cache.ts';
import { DecisionStore } from '../../../src/controllers/llmd/decisions.ts';
import { FIRST_SAMPLES_GRACE_MS, SaturationEngine } from '../../../src/controllers/llmd/engine-loop.ts';
import type { CacheReader } from '../../../src/controllers/llmd/inputs.ts';
import { waitFor } from '../../helpers/wait.ts';
import { SettableMetrics } from './fixture.ts';

const emptyReader = (onList?: () => void): CacheReader => ({
  list: async () => {
    onList?.();
    return [];
  },
  get: async () => undefined,
});

function engineWith(config: ConfigCache, reader: CacheReader) {
  return new SaturationEngine({
    reader,
    config,
    source: new SettableMetrics(),
    decisions: new DecisionStore(),
    onDecisions: () => undefined,
    log: rootLogger().child({ test: 'loop' }),
    saturationConfigMapName: 'saturation-scaling-config',
  });
}

describe('SaturationEngine loop', () => {
  it('runs the first cycle at once and applies a shorter interval to the next cycle without waiting out the old one', async () => {
    const config = new ConfigCache(); // 30 s
    const engine = engineWith(config, emptyReader());
    await engine.start();
    try {
      await waitFor('the first cycle', () => engine.cycles >= 1);
      assert.equal(engine.cycles, 1);
      config.setOptimizationInterval(20);
      // with the old 30 s interval this could not happen within the wait's 20 s
      await waitFor('three more cycles at the new 20 ms interval', () => engine.cycles >= 4);
      config.setOptimizationInterval(60_000);
      const at = engine.cycles;
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(engine.cycles <= at + 1, 'a longer interval slows the loop down again');
    } finally {
      await engine.stop();
    }
  });

  it('a failed cycle is retried with backoff, not after a whole interval', async () => {
    const config = new ConfigCache(); // 30 s
    let calls = 0;
    const engine = engineWith(
      config,
      emptyReader(() => {
        calls++;
        if (calls <= 2) throw new Error('cache not ready');
      }),
    );
    await engine.start();
    try {
      await waitFor('a successful cycle after two failures', () => calls >= 3);
    } finally {
      await engine.stop();
    }
  });

  it('a new variant whose pods report no metrics yet is looked at again within seconds; an old one waits the interval', async () => {
    const readerWith = (createdAgoMs: number): CacheReader => {
      const objects: Record<string, unknown[]> = {
        VariantAutoscaling: [
          {
            metadata: {
              name: 'v',
              namespace: 'llm',
              creationTimestamp: new Date(Date.now() - createdAgoMs).toISOString(),
              labels: { 'inference.optimization/acceleratorName': 'H100' },
            },
            spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'v' }, modelID: 'm' },
          },
        ],
        Deployment: [
          { metadata: { name: 'v', namespace: 'llm', uid: 'd' }, spec: { replicas: 1 }, status: { replicas: 1 } },
        ],
      };
      return {
        list: async (kind) => (objects[kind.kind] ?? []) as never,
        get: async () => undefined,
      };
    };
    for (const [createdAgoMs, fast] of [
      [1_000, true],
      [120_000, false],
    ] as const) {
      const engine = engineWith(new ConfigCache(), readerWith(createdAgoMs)); // 30 s interval
      await engine.start();
      try {
        await waitFor('the first cycle', () => engine.cycles >= 1);
        if (fast)
          await waitFor('a second cycle long before the 30 s interval', () => engine.cycles >= 2, {
            timeoutMs: 10_000,
          });
        else {
          await new Promise((r) => setTimeout(r, 3_000));
          assert.equal(engine.cycles, 1, 'a variant older than a minute without metrics waits the interval');
        }
      } finally {
        await engine.stop();
      }
    }
  });

  it("replicas not scraped yet wait within the grace; the run's start is kept until a sample arrives, then starts anew", async () => {
    // a Deployment with one Running pod (pod → ReplicaSet → Deployment), a VA created long ago
    const objects: Record<string, unknown[]> = {
      VariantAutoscaling: [
        {
          metadata: {
            name: 'v',
            namespace: 'llm',
            creationTimestamp: '2020-01-01T00:00:00Z',
            labels: { 'inference.optimization/acceleratorName': 'H100' },
          },
          spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'v' }, modelID: 'm' },
        },
      ],
      Deployment: [
        { metadata: { name: 'v', namespace: 'llm', uid: 'd' }, spec: { replicas: 1 }, status: { replicas: 1 } },
      ],
      ReplicaSet: [
        {
          metadata: {
            name: 'v-1',
            namespace: 'llm',
            uid: 'rs',
            ownerReferences: [{ controller: true, kind: 'Deployment', uid: 'd' }],
          },
        },
      ],
      Pod: [
        {
          metadata: {
            name: 'v-1-a',
            namespace: 'llm',
            ownerReferences: [{ controller: true, kind: 'ReplicaSet', uid: 'rs' }],
          },
          status: { phase: 'Running' },
        },
      ],
    };
    const reader: CacheReader = {
      list: async (kind) => (objects[kind.kind] ?? []) as never,
      get: async () => undefined,
    };
    let nowMs = Date.UTC(2026, 0, 1);
    const metrics = new SettableMetrics();
    const decisions = new DecisionStore();
    const engine = new SaturationEngine({
      reader,
      config: new ConfigCache(),
      source: metrics,
      decisions,
      onDecisions: () => undefined,
      log: rootLogger().child({ test: 'loop' }),
      saturationConfigMapName: 'saturation-scaling-config',
      now: () => new Date(nowMs),
    });
    const at = async (ms: number) => {
      nowMs = ms;
      await engine.runCycle();
      const d = decisions.latest('llm', 'v')!;
      return [d.outcome, d.noSamplesSince, d.awaitingFirstSamples];
    };
    const t0 = nowMs;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    assert.deepEqual(await at(t0), ['withheld', iso(t0), true], 'the first cycle waits');
    assert.deepEqual(await at(t0 + 30_000), ['withheld', iso(t0), true], 'the run started at the first cycle');
    assert.deepEqual(
      await at(t0 + FIRST_SAMPLES_GRACE_MS),
      ['withheld', iso(t0), false],
      'a minute without a sample is no longer a wait',
    );
    metrics.setAll(['v-1-a'], 0.1);
    const decided = await at(t0 + 70_000);
    assert.notEqual(decided[0], 'withheld', 'a sample: decided');
    assert.deepEqual(decided.slice(1), [undefined, undefined]);
    metrics.load.clear();
    assert.deepEqual(await at(t0 + 80_000), ['withheld', iso(t0 + 80_000), true], 'a new run gets a new grace');
    // samples that are invalid rather than absent are a problem at once, not a wait
    metrics.setAll(['v-1-a'], Number.NaN);
    assert.deepEqual(await at(t0 + 85_000), ['withheld', undefined, undefined]);
  });
});
