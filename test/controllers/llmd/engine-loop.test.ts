// The engine loop's schedule: the first cycle at start, then one per GLOBAL_OPT_INTERVAL read from the
// config cache, a changed interval applied to the very next cycle, and a failed cycle retried with backoff.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rootLogger } from '@modelplane/runtime/log';
import { ConfigCache } from '../../../src/controllers/llmd/config/cache.ts';
import { DecisionStore } from '../../../src/controllers/llmd/decisions.ts';
import { SaturationEngine } from '../../../src/controllers/llmd/engine-loop.ts';
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
});
