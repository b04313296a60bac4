// The V1 saturation algorithm, table-driven: every worked example of docs/autoscaling.md and the
// acceptance cases (saturated replicas, spare averages, N/(N-1) safety, transition guard, cost choice with
// name tie-breaks, pending replicas, min/max, scale to zero, safety net).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DOCUMENTED_DEFAULTS, type SaturationConfig } from '../../../src/controllers/llmd/config/parse.ts';
import { analyzeModel, type ReplicaMetrics } from '../../../src/controllers/llmd/saturation/analyzer.ts';
import { type ModelInput, optimizeModel } from '../../../src/controllers/llmd/saturation/cycle.ts';
import {
  calculateTargets,
  type ScaleToZeroInput,
  type VariantState,
} from '../../../src/controllers/llmd/saturation/targets.ts';

const C: SaturationConfig = DOCUMENTED_DEFAULTS; // 0.80 / 5 / 0.10 / 3
const pods = (kv: number[], q: number[], prefix = 'p'): ReplicaMetrics[] =>
  kv.map((k, i) => ({ pod: `${prefix}${i}`, kvCacheUsage: k, queueLength: q[i]! }));
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} ≈ ${b}`);

describe('analyzeModel: the worked examples (0.80/5/0.10/3)', () => {
  const cases: Array<{
    name: string;
    kv: number[];
    q: number[];
    up: boolean;
    downSafe: boolean;
    check?: (a: ReturnType<typeof analyzeModel>) => void;
  }> = [
    {
      name: 'kv 0.75,0.76 q 2,2: spare KV 0.045 < 0.10 → scale up',
      kv: [0.75, 0.76],
      q: [2, 2],
      up: true,
      downSafe: false,
      check: (a) => close(a.avgSpareKv, 0.045),
    },
    {
      name: 'kv 0.50,0.50 q 3,3: spare queue 2 < 3 → scale up',
      kv: [0.5, 0.5],
      q: [3, 3],
      up: true,
      downSafe: false,
      check: (a) => close(a.avgSpareQueue, 2),
    },
    { name: 'kv 0.5,0.5 q 1,1: no action', kv: [0.5, 0.5], q: [1, 1], up: false, downSafe: false },
    {
      name: 'kv 0.20,0.30,0.25 q 1,1,1: scale-down safe (after removal spare KV 0.425, queue 3.5)',
      kv: [0.2, 0.3, 0.25],
      q: [1, 1, 1],
      up: false,
      downSafe: true,
      check: (a) => {
        close(a.afterRemoval!.spareKv, 0.425);
        close(a.afterRemoval!.spareQueue, 3.5);
      },
    },
    {
      name: 'a single non-saturated replica is never safe to scale down',
      kv: [0.1],
      q: [0],
      up: false,
      downSafe: false,
      check: (a) => assert.equal(a.afterRemoval, undefined),
    },
    {
      name: 'every replica saturated → averages 0 → scale up',
      kv: [0.9, 0.85],
      q: [0, 6],
      up: true,
      downSafe: false,
      check: (a) => assert.equal(a.saturatedReplicas, 2),
    },
    {
      name: 'saturated replicas are left out of the averages',
      kv: [0.95, 0.2, 0.2],
      q: [0, 0, 0],
      up: false,
      downSafe: true,
      check: (a) => close(a.avgSpareKv, 0.6),
    },
    {
      name: 'kv exactly at the threshold counts as saturated',
      kv: [0.8, 0.1],
      q: [0, 0],
      up: false,
      downSafe: false,
      check: (a) => assert.equal(a.nonSaturatedReplicas, 1),
    },
    {
      name: 'queue exactly at the threshold counts as saturated',
      kv: [0.1, 0.1],
      q: [5, 0],
      up: false,
      downSafe: false,
      check: (a) => assert.equal(a.saturatedReplicas, 1),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = analyzeModel(pods(c.kv, c.q), C);
      assert.equal(a.shouldScaleUp, c.up, a.reason);
      assert.equal(a.scaleDownSafe, c.downSafe, a.reason);
      c.check?.(a);
    });
  }

  it('names the trigger that fired and the averages in its reason', () => {
    assert.match(analyzeModel(pods([0.75, 0.76], [2, 2]), C).reason, /spare KV cache 0\.045 < kvSpareTrigger 0\.1/);
    assert.match(analyzeModel(pods([0.5, 0.5], [3, 3]), C).reason, /spare queue 2 < queueSpareTrigger 3/);
    assert.match(analyzeModel(pods([0.2, 0.3, 0.25], [1, 1, 1]), C).reason, /scale-down is safe.*0\.425.*3\.5/);
  });
});

function variant(name: string, over: Partial<VariantState> & { kv?: number[]; q?: number[] } = {}): VariantState {
  const kv = over.kv ?? [0.5];
  const replicas = over.replicas ?? pods(kv, over.q ?? kv.map(() => 1), `${name}-`);
  return {
    name,
    cost: 10,
    minReplicas: 1,
    maxReplicas: 10,
    current: replicas.length,
    ready: replicas.length,
    replicas,
    ...over,
  };
}
const UP = analyzeModel(pods([0.9, 0.9], [0, 0]), C);
const DOWN = analyzeModel(pods([0.2, 0.3, 0.25], [1, 1, 1]), C);
const IDLE = analyzeModel(pods([0.5, 0.5], [1, 1]), C);
const busy: ScaleToZeroInput = { windowSeconds: 600, requestsInWindow: 5, windowDescription: '10m' };
/** idle for a whole watched 10 minute window */
const quiet: ScaleToZeroInput = {
  windowSeconds: 600,
  requestsInWindow: 0,
  peakInFlight: 0,
  idleSeconds: 600,
  windowDescription: '10m',
};
const targets = (vs: VariantState[], a = UP, s = busy) =>
  Object.fromEntries(calculateTargets(vs, a, s).map((t) => [t.name, t.target]));

describe('calculateTargets: one replica per model per cycle, chosen by cost', () => {
  it('scale-up goes to the cheaper variant (costs 10 and 20)', () => {
    assert.deepEqual(targets([variant('a', { cost: 20, kv: [0.9] }), variant('b', { cost: 10, kv: [0.9] })]), {
      a: 1,
      b: 2,
    });
  });
  it('scale-down goes to the pricier variant when its target is above 1', () => {
    assert.deepEqual(
      targets([variant('a', { cost: 20, kv: [0.2, 0.3] }), variant('b', { cost: 10, kv: [0.25, 0.2] })], DOWN),
      { a: 1, b: 2 },
    );
  });
  it('scale-down skips a pricier variant at 1 replica and takes the next one', () => {
    assert.deepEqual(
      targets([variant('a', { cost: 20, kv: [0.2] }), variant('b', { cost: 10, kv: [0.25, 0.3] })], DOWN),
      { a: 1, b: 1 },
    );
  });
  it('equal costs: scale-up takes the first name, scale-down the last', () => {
    assert.deepEqual(targets([variant('zeta', { kv: [0.9] }), variant('alpha', { kv: [0.9] })]), { zeta: 1, alpha: 2 });
    assert.deepEqual(targets([variant('alpha', { kv: [0.2, 0.3] }), variant('zeta', { kv: [0.25, 0.2] })], DOWN), {
      alpha: 2,
      zeta: 1,
    });
  });
  it('pending replicas on the cheapest variant send the scale-up to the next cheapest', () => {
    const cheap = variant('cheap', { cost: 5, kv: [0.9, 0.9], current: 3, ready: 2 });
    const dear = variant('dear', { cost: 50, kv: [0.9] });
    // pods with metrics (2) != current (3) puts the model in transition, so give the cheap one 3 pods of metrics
    const cheap3 = { ...cheap, replicas: pods([0.9, 0.9, 0.9], [0, 0, 0], 'c') };
    assert.deepEqual(targets([cheap3, dear]), { cheap: 3, dear: 2 });
  });
  it('no variant can grow: nothing changes', () => {
    const t = calculateTargets([variant('a', { kv: [0.9], current: 1, ready: 0 })], UP, busy);
    assert.equal(t[0]!.target, 1);
    assert.match(t[0]!.reason, /no variant can grow/);
  });
  it('no signal: every variant keeps its replicas with metrics', () => {
    assert.deepEqual(targets([variant('a', { kv: [0.5, 0.5] })], IDLE), { a: 2 });
  });
});

describe('calculateTargets: transition guard', () => {
  it('desired 3 vs current 2 → targets unchanged (the desired 3 is kept)', () => {
    assert.deepEqual(
      targets([variant('a', { kv: [0.9, 0.9], previousDesired: 3 }), variant('b', { cost: 5, kv: [0.9] })]),
      { a: 3, b: 1 },
    );
  });
  it('1 replica with metrics vs current 2 → unchanged', () => {
    const t = calculateTargets([variant('a', { kv: [0.9], current: 2, ready: 2 })], UP, busy);
    assert.equal(t[0]!.target, 2);
    assert.equal(t[0]!.action, 'in-transition');
  });
  it('a desired of 0 does not count as a transition', () => {
    assert.deepEqual(targets([variant('a', { kv: [0.9], previousDesired: 0 })]), { a: 2 });
  });
});

describe('calculateTargets: bounds and scale to zero', () => {
  it('never above maxReplicas: the variant at its max cannot take the scale-up', () => {
    assert.deepEqual(
      targets([variant('a', { cost: 1, kv: [0.9, 0.9], maxReplicas: 2 }), variant('b', { cost: 9, kv: [0.9] })]),
      { a: 2, b: 2 },
    );
  });
  it('a target above maxReplicas (after a lowered max) is capped', () => {
    assert.deepEqual(targets([variant('a', { kv: [0.5, 0.5, 0.5], maxReplicas: 2 })], IDLE), { a: 2 });
  });
  it('never below minReplicas: scale-down stops at the floor', () => {
    assert.deepEqual(targets([variant('a', { kv: [0.2, 0.3, 0.25], minReplicas: 3 })], DOWN), { a: 3 });
  });
  it('scale to zero allowed (all minReplicas 0) and no requests in the window → every variant 0', () => {
    const t = calculateTargets(
      [variant('a', { minReplicas: 0, kv: [0.1] }), variant('b', { minReplicas: 0, kv: [0.1] })],
      IDLE,
      quiet,
    );
    assert.deepEqual(
      t.map((x) => x.target),
      [0, 0],
    );
    assert.match(t[0]!.reason, /no request served, running, waiting or held at the gateway .* in 10m/);
  });
  it('scale to zero allowed but requests were served → never below 1 in total (cheapest keeps 1)', () => {
    const vs = [
      variant('a', { minReplicas: 0, cost: 20, replicas: [], current: 0, ready: 0 }),
      variant('b', { minReplicas: 0, cost: 10, replicas: [], current: 0, ready: 0 }),
    ];
    assert.deepEqual(targets(vs, analyzeModel([], C), { ...quiet, requestsInWindow: 3 }), {
      a: 0,
      b: 1,
    });
  });
  it('unknown request count never scales to zero', () => {
    assert.deepEqual(
      targets([variant('a', { minReplicas: 0, kv: [0.1] })], IDLE, { windowSeconds: 600, windowDescription: '10m' }),
      {
        a: 1,
      },
    );
  });
  it('scale to zero not allowed (minReplicas 1): the floor holds even with no requests', () => {
    assert.deepEqual(targets([variant('a', { kv: [0.1] })], IDLE, quiet), {
      a: 1,
    });
  });
});

describe('optimizeModel: skipping and the safety net', () => {
  const config = { config: C, origin: 'saturation-scaling-config[default]' };
  const base: ModelInput = {
    namespace: 'ns',
    modelID: 'm',
    config,
    variants: [variant('a', { kv: [0.9, 0.9], previousDesired: 2 })],
    scaleToZero: busy,
  };
  it('optimizes and names the config entry it used', () => {
    const d = optimizeModel(base);
    assert.equal(d.outcome, 'optimized');
    assert.equal(d.decisions[0]!.target, 3);
    assert.match(d.decisions[0]!.reason, /\[config saturation-scaling-config\[default\]\]/);
  });
  it('metrics error → previous desired re-emitted', () => {
    const d = optimizeModel({
      ...base,
      variants: [variant('a', { kv: [0.9], previousDesired: 4 })],
      metricsError: 'Prometheus answered 503',
    });
    assert.equal(d.outcome, 'safety-net');
    assert.equal(d.decisions[0]!.target, 4);
    assert.match(d.decisions[0]!.reason, /safety net.*503/);
  });
  it('metrics error without a previous decision → current replicas re-emitted', () => {
    const d = optimizeModel({ ...base, variants: [variant('a', { kv: [0.9, 0.9, 0.9] })], metricsError: 'timeout' });
    assert.equal(d.decisions[0]!.target, 3);
  });
  it('no config → skipped with the reason', () => {
    const { config: _c, ...rest } = base;
    const d = optimizeModel(rest);
    assert.equal(d.outcome, 'skipped');
    assert.match(d.decisions[0]!.reason, /no saturation configuration/);
  });
});
