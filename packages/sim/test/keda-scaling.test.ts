// The simulated KEDA's scale decision (keda-scaling.ts), as KEDA and its HPA make it: activation to and
// from 0, the cooldown before 0, a failed trigger scaling nothing, and the HPA arithmetic with scale-down
// stabilization for 1..N.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kedaScale, type ScaleInput, type TriggerReading } from '../src/operators/keda-scaling.ts';

const NOW = Date.parse('2026-11-29T10:00:00Z');
const reading = (value: number | undefined, over: Partial<TriggerReading> = {}): TriggerReading => ({
  ...(value !== undefined ? { value } : { error: 'connection refused' }),
  threshold: 1,
  activationThreshold: 0,
  ...over,
});
const scale = (over: Partial<ScaleInput>) =>
  kedaScale({ readings: [reading(1)], spec: {}, current: 1, nowMs: NOW, recommendations: [], ...over });

describe('kedaScale: KEDA to and from zero', () => {
  const cases: Array<[string, Partial<ScaleInput>, number, boolean?]> = [
    ['at 0, no trigger active → stays at 0', { current: 0, readings: [reading(0)] }, 0, false],
    ['at 0, a trigger active → 1', { current: 0, readings: [reading(1)] }, 1, true],
    ['at 0, active, minReplicaCount 2 → 2', { current: 0, spec: { minReplicaCount: 2 } }, 2],
    [
      'at 0, value at the activation threshold → stays',
      { current: 0, readings: [reading(2, { activationThreshold: 2 })] },
      0,
    ],
    [
      'at 2, inactive, never active before → 0 at once (KEDA with no lastActiveTime)',
      { current: 2, readings: [reading(0)] },
      0,
    ],
    [
      'at 1, inactive, active 10 s ago, cooldown 30 s → the HPA keeps 1',
      { readings: [reading(0)], spec: { cooldownPeriod: 30 }, lastActiveMs: NOW - 10_000 },
      1,
    ],
    [
      'at 1, inactive, active 30 s ago, cooldown 30 s → 0',
      { readings: [reading(0)], spec: { cooldownPeriod: 30 }, lastActiveMs: NOW - 30_000 },
      0,
    ],
    ['default cooldown is 300 s', { readings: [reading(0)], lastActiveMs: NOW - 299_000 }, 1],
    [
      'once active, initialCooldownPeriod no longer matters: cooldownPeriod does',
      {
        readings: [reading(0)],
        spec: { initialCooldownPeriod: 60, cooldownPeriod: 5 },
        createdMs: NOW - 10_000,
        lastActiveMs: NOW - 5_000,
      },
      0,
    ],
    [
      'inactive within initialCooldownPeriod of creation → the HPA keeps 1',
      { readings: [reading(0)], spec: { initialCooldownPeriod: 60 }, createdMs: NOW - 59_000 },
      1,
    ],
    [
      'inactive after initialCooldownPeriod → 0',
      { readings: [reading(0)], spec: { initialCooldownPeriod: 60 }, createdMs: NOW - 60_000 },
      0,
    ],
    ['minReplicaCount 1: inactive never goes to 0', { readings: [reading(0)], spec: { minReplicaCount: 1 } }, 1],
    ['a failed trigger scales nothing, not even to 0', { current: 3, readings: [reading(undefined)] }, 3],
    ['a failed trigger at 0 wakes nothing', { current: 0, readings: [reading(undefined)] }, 0],
    ['no prometheus trigger: nothing', { current: 2, readings: [] }, 2],
  ];
  for (const [name, over, want, active] of cases)
    it(name, () => {
      const r = scale(over);
      assert.equal(r.replicas, want);
      if (active !== undefined) assert.equal(r.active, active);
    });
});

describe('kedaScale: the HPA part for 1..N', () => {
  it('AverageValue 1: replicas follow the value, capped at maxReplicaCount', () => {
    assert.equal(scale({ readings: [reading(3)] }).replicas, 3);
    assert.equal(scale({ readings: [reading(9)], spec: { maxReplicaCount: 4 } }).replicas, 4);
    assert.equal(scale({ current: 3, readings: [reading(3)] }).replicas, 3);
  });
  it('scale-down waits for the stabilization window (default 300 s); 0 s follows at once', () => {
    const recommendations = [{ at: NOW - 10_000, replicas: 4 }];
    assert.equal(scale({ current: 4, readings: [reading(2)], recommendations }).replicas, 4);
    const now = {
      advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } },
    };
    assert.equal(scale({ current: 4, readings: [reading(2)], recommendations, spec: now }).replicas, 2);
    assert.equal(scale({ current: 4, readings: [reading(2)], recommendations, spec: now }).recommendation, 2);
  });
  it('the highest of several triggers wins', () => {
    assert.equal(scale({ readings: [reading(1), reading(3)] }).replicas, 3);
  });
});
