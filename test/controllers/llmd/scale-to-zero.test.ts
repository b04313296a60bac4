// Scale to zero never comes early (docs/autoscaling.md, "Scale to zero"): a model goes to 0 only when no
// request was served, running, waiting or held at the gateway for its whole retention window, and the engine
// watched that whole window; an unknown, NaN or negative figure is no evidence. Pure rules (a table and a
// seeded property), then the engine's watch over cycles with an injected clock (no sleeps).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigCache } from '../../../src/controllers/llmd/config/cache.ts';
import { parseSaturationConfigMap } from '../../../src/controllers/llmd/config/parse.ts';
import { DecisionStore } from '../../../src/controllers/llmd/decisions.ts';
import { SaturationEngine } from '../../../src/controllers/llmd/engine-loop.ts';
import type { CacheReader } from '../../../src/controllers/llmd/inputs.ts';
import { analyzeModel } from '../../../src/controllers/llmd/saturation/analyzer.ts';
import {
  busyInWindow,
  calculateTargets,
  type ScaleToZeroInput,
  type VariantState,
} from '../../../src/controllers/llmd/saturation/targets.ts';
import { DEFAULT_ENTRY, SettableMetrics } from './fixture.ts';

const C = { kvCacheThreshold: 0.8, queueLengthThreshold: 5, kvSpareTrigger: 0.1, queueSpareTrigger: 3 };
const idleVariant = (minReplicas = 0): VariantState => ({
  name: 'v',
  cost: 10,
  minReplicas,
  maxReplicas: 4,
  current: 1,
  ready: 1,
  replicas: [{ pod: 'p', kvCacheUsage: 0, queueLength: 0, inFlight: 0 }],
});
const quiet: ScaleToZeroInput = {
  windowSeconds: 30,
  requestsInWindow: 0,
  peakInFlight: 0,
  idleSeconds: 30,
  windowDescription: 'the last 30s',
};
const targetFor = (s: ScaleToZeroInput, minReplicas = 0) => {
  const v = idleVariant(minReplicas);
  return calculateTargets([v], analyzeModel(v.replicas, C), s)[0]!;
};

describe('scale to zero: only after a whole idle window', () => {
  const cases: Array<[string, Partial<ScaleToZeroInput>, number, RegExp?]> = [
    ['idle for the whole watched window → 0', {}, 0],
    ['watched 29.9 s of 30 → stays (the window is not over)', { idleSeconds: 29.9 }, 1, /window is not over/],
    ['never watched (engine just started) → stays', { idleSeconds: undefined }, 1, /window is not over/],
    ['a request ran or waited in the window → stays', { peakInFlight: 1 }, 1, /up to 1 request/],
    ['a request held at the gateway in the window → stays', { peakInFlight: 2 }, 1, /held at the gateway/],
    ['one request served in the window → stays', { requestsInWindow: 1 }, 1, /served 1 request/],
    ['served count unknown → stays', { requestsInWindow: undefined }, 1, /unknown/],
    ['in-flight peak unknown → stays', { peakInFlight: undefined }, 1, /unknown/],
    ['served NaN → stays', { requestsInWindow: Number.NaN }, 1, /unknown/],
    ['peak NaN → stays', { peakInFlight: Number.NaN }, 1, /unknown/],
    ['negative served → stays', { requestsInWindow: -1 }, 1, /unknown/],
    ['watched NaN → stays', { idleSeconds: Number.NaN }, 1, /window is not over/],
    ['disabled by the scale-to-zero ConfigMap → stays', { enabled: false }, 1],
  ];
  for (const [name, over, want, reason] of cases)
    it(name, () => {
      const t = targetFor({ ...quiet, ...over });
      assert.equal(t.target, want);
      assert.equal(t.action === 'scale-to-zero', want === 0);
      if (reason) assert.match(t.reason, reason);
    });
  it('minReplicas 1: never 0, however idle', () => {
    assert.equal(targetFor(quiet, 1).target, 1);
  });

  it('property (seeded): 0 exactly when served = 0, peak = 0, watched >= window, allowed', () => {
    let seed = 20261129;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    for (let i = 0; i < 2_000; i++) {
      const s: ScaleToZeroInput = {
        windowSeconds: pick([1, 30, 600]),
        requestsInWindow: pick([undefined, 0, 0, 0, 1, 7, Number.NaN, -2, Number.POSITIVE_INFINITY]),
        peakInFlight: pick([undefined, 0, 0, 0, 1, 3, Number.NaN]),
        idleSeconds: pick([undefined, 0, 0.5, 29.99, 30, 31, 600, 601, Number.NaN]),
        windowDescription: 'w',
        ...(rand() < 0.2 ? { enabled: false } : {}),
      };
      const minReplicas = rand() < 0.2 ? 1 : 0;
      const idle =
        s.requestsInWindow === 0 &&
        s.peakInFlight === 0 &&
        s.idleSeconds !== undefined &&
        s.idleSeconds >= s.windowSeconds;
      const t = targetFor(s, minReplicas);
      assert.equal(
        t.target === 0,
        idle && minReplicas === 0 && s.enabled !== false,
        JSON.stringify({ s, minReplicas }),
      );
      assert.equal(busyInWindow(s) === undefined, idle, JSON.stringify(s));
    }
  });
});

describe('scale to zero: the engine watches the whole window (injected clock)', () => {
  const objects = (pods: string[], minReplicas = 0) => ({
    VariantAutoscaling: [
      {
        metadata: { name: 'v', namespace: 'llm', labels: { 'inference.optimization/acceleratorName': 'H100' } },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'v' },
          modelID: 'm',
          minReplicas,
          maxReplicas: 4,
        },
        status: { desiredOptimizedAlloc: { numReplicas: pods.length, accelerator: 'H100' } },
      },
    ],
    Deployment: [
      {
        metadata: { name: 'v', namespace: 'llm', uid: 'd' },
        spec: { replicas: pods.length },
        status: { replicas: pods.length, readyReplicas: pods.length },
      },
    ],
    ReplicaSet: [
      {
        metadata: {
          name: 'v-rs',
          namespace: 'llm',
          uid: 'rs',
          ownerReferences: [{ kind: 'Deployment', uid: 'd', controller: true }],
        },
      },
    ],
    Pod: pods.map((name) => ({
      metadata: { name, namespace: 'llm', ownerReferences: [{ kind: 'ReplicaSet', uid: 'rs', controller: true }] },
      status: { phase: 'Running' },
    })),
  });

  function setup(minReplicas = 0) {
    const world = { pods: ['p1'], now: Date.parse('2026-11-29T10:00:00Z') };
    const reader: CacheReader = {
      list: async (kind) => (objects(world.pods, minReplicas) as Record<string, unknown[]>)[kind.kind] as never,
      get: async () => undefined,
    };
    const metrics = new SettableMetrics();
    const decisions = new DecisionStore();
    metrics.requests = 0;
    metrics.peakInFlight = 0;
    const config = new ConfigCache();
    config.setSaturationConfig('global', parseSaturationConfigMap({ default: DEFAULT_ENTRY }).config);
    const engine = new SaturationEngine({
      reader,
      config,
      source: metrics,
      decisions,
      onDecisions: () => undefined,
      log: { info: () => undefined, debug: () => undefined, error: () => undefined } as never,
      saturationConfigMapName: 'saturation-scaling-config',
      scaleToZeroWindowSeconds: 30,
      now: () => new Date(world.now),
    });
    const desiredAfter = async (seconds: number, inFlight = 0, scraped = true) => {
      world.now += seconds * 1000;
      metrics.load.clear();
      if (scraped) for (const p of world.pods) metrics.load.set(p, { kvCacheUsage: 0.05, queueLength: 0, inFlight });
      await engine.runCycle();
      return decisions.latest('llm', 'v')!;
    };
    return { world, metrics, desiredAfter };
  }

  it('idle from the start: 1 until the 30 s window has been watched, then 0', async () => {
    const { desiredAfter } = setup();
    assert.equal((await desiredAfter(0)).target, 1, 'first cycle: nothing watched yet');
    assert.equal((await desiredAfter(29)).target, 1, '29 s watched');
    const d = await desiredAfter(1);
    assert.equal(d.target, 0, '30 s watched');
    assert.equal(d.action, 'scale-to-zero');
    assert.match(d.reason, /the last 30s/);
  });

  it('a new replica restarts the watch (its request counter may have begun after requests it served)', async () => {
    const { world, desiredAfter } = setup();
    await desiredAfter(0);
    await desiredAfter(20);
    world.pods = ['p1', 'p2'];
    const fresh = await desiredAfter(15);
    assert.notEqual(fresh.target, 0, '35 s after the first replica, 0 s after the new one');
    assert.match(fresh.reason, /not scaling to zero: the window is not over/);
    const later = await desiredAfter(29);
    assert.notEqual(later.target, 0);
    assert.match(later.reason, /watched idle for less than 30 s/);
    world.pods = ['p2']; // a replica leaving does not restart it
    assert.equal((await desiredAfter(1)).target, 0);
  });

  it('every sign of a request restarts the idle watch: served count changed, one in flight, one held at the gateway', async () => {
    const { metrics, desiredAfter } = setup();
    await desiredAfter(0);
    await desiredAfter(25);
    metrics.servedTotal = 1; // a request finished between two cycles, too short for any gauge to show it
    assert.notEqual((await desiredAfter(1)).target, 0);
    assert.notEqual((await desiredAfter(29)).target, 0, '29 s after the count changed');
    assert.equal((await desiredAfter(1)).target, 0, '30 s after');
    const queued = setup();
    await queued.desiredAfter(0);
    queued.metrics.queued = 1;
    assert.notEqual((await queued.desiredAfter(40)).target, 0, 'a request held at the gateway');
    queued.metrics.queued = 0;
    assert.notEqual((await queued.desiredAfter(29)).target, 0);
    assert.equal((await queued.desiredAfter(1)).target, 0);
    const running = setup();
    await running.desiredAfter(0);
    assert.notEqual((await running.desiredAfter(40, 1)).target, 0, 'a request running on the replica');
    assert.notEqual((await running.desiredAfter(29)).target, 0);
    assert.equal((await running.desiredAfter(1)).target, 0);
    const unknown = setup();
    unknown.metrics.servedTotal = undefined;
    await unknown.desiredAfter(0);
    assert.notEqual((await unknown.desiredAfter(600)).target, 0, 'an unknown served count proves nothing');
  });

  it('a model woken after a decision of 0 (by KEDA) keeps its new replica published until it reports metrics', async () => {
    const { world, desiredAfter } = setup();
    await desiredAfter(0);
    assert.equal((await desiredAfter(30)).target, 0);
    world.pods = ['woken']; // KEDA scaled the Deployment to 1; its pod is not scraped yet
    const d = await desiredAfter(1, 0, false);
    assert.equal(d.outcome, 'withheld');
    assert.equal(d.target, 1, 'not the old 0, which would have KEDA take it back to zero');
    assert.match(d.reason, /woken from 0 to 1 replicas/);
    assert.equal(d.action, 'scale-from-zero');
    const next = await desiredAfter(1);
    assert.equal(next.target, 1, 'its first metrics: a fresh watch, so not straight back to 0');
  });

  it('a request in flight or queued in the window holds the model at its size, whatever the watch says', async () => {
    const { metrics, desiredAfter } = setup();
    await desiredAfter(0);
    metrics.peakInFlight = 1;
    assert.equal((await desiredAfter(600)).target, 1);
    metrics.peakInFlight = 0;
    metrics.requests = 2;
    assert.equal((await desiredAfter(600)).target, 1);
    metrics.requests = 0;
    assert.equal((await desiredAfter(1)).target, 0);
  });

  it('the window activity is read only for models allowed to go to zero, with the configured window', async () => {
    const allowed = setup();
    await allowed.desiredAfter(0);
    assert.deepEqual(allowed.metrics.windows, [30]);
    const floor = setup(1);
    await floor.desiredAfter(0);
    await floor.desiredAfter(600);
    assert.deepEqual(floor.metrics.windows, [], 'minReplicas 1: no window query');
  });
});
