// The closed-loop spec's checks on hand-made runs: a rise with nothing in flight is caught (after the
// grace, not before), flapping is caught, and two runs match within one step, or not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Sample } from './plot.ts';
import { isUnimodal, levels, risesWhileIdle, trajectoryMismatches } from './trajectory.ts';

const run = (points: Array<[t: number, desired: number, inFlight: number]>): Sample[] =>
  points.map(([t, desired, inFlight]) => ({
    t,
    desired,
    replicas: desired,
    ready: desired,
    inFlight,
    kvCacheUsage: 0,
    loadOn: inFlight > 0,
  }));

describe('closed-loop trajectory checks', () => {
  it('a rise with requests in flight, or within the grace after the last one, is fine', () => {
    assert.deepEqual(
      risesWhileIdle(
        run([
          [0, 1, 14],
          [5, 2, 14],
          [8, 3, 0],
          [12, 3, 0],
        ]),
        4,
      ),
      [],
    );
  });
  it('a rise after the grace with nothing in flight is caught', () => {
    const caught = risesWhileIdle(
      run([
        [0, 1, 14],
        [3, 2, 0],
        [10, 3, 0],
        [20, 4, 0],
      ]),
      4,
    );
    assert.deepEqual(
      caught.map((s) => s.t),
      [10, 20],
    );
  });
  it('levels collapse repeats; unimodal paths rise then fall once', () => {
    assert.deepEqual(
      levels(
        run([
          [0, 1, 0],
          [1, 1, 0],
          [2, 3, 0],
          [3, 3, 0],
          [4, 1, 0],
        ]),
      ),
      [1, 3, 1],
    );
    assert.ok(isUnimodal([1, 2, 3, 2, 1]));
    assert.ok(isUnimodal([1]));
    assert.ok(!isUnimodal([1, 2, 1, 2, 1]), 'a flap');
    assert.ok(!isUnimodal([1, 3, 2, 3]), 'a rise after a fall');
  });
  it('two runs within one step (level or one slack of time) match; two steps apart do not', () => {
    const a = run([
      [0, 1, 1],
      [10, 2, 1],
      [20, 3, 1],
      [60, 2, 0],
      [70, 1, 0],
    ]);
    const b = run([
      [0, 1, 1],
      [12, 2, 1],
      [22, 4, 1],
      [62, 2, 0],
      [74, 1, 0],
    ]);
    assert.deepEqual(trajectoryMismatches(a, b, 5), []);
    const c = run([
      [0, 1, 1],
      [10, 1, 1],
      [20, 1, 1],
      [60, 1, 0],
      [70, 1, 0],
    ]);
    assert.deepEqual(
      trajectoryMismatches(a, c, 5).map((s) => s.t),
      [20],
    );
  });
  it('a run that was back at rest sooner, and so stopped sampling, stays at its last sample', () => {
    // the CI case: the faster run ended at rest 10 s before the slower one's last samples
    const slow = run([
      [0, 1, 1],
      [60, 4, 1],
      [78, 3, 0],
      [84, 2, 0],
      [90, 1, 0],
      [96, 1, 0],
    ]);
    const fast = run([
      [0, 1, 1],
      [60, 4, 1],
      [79, 3, 0],
      [82, 2, 0],
      [85, 1, 0],
    ]);
    assert.deepEqual(trajectoryMismatches(slow, fast, 8), []);
    assert.deepEqual(trajectoryMismatches(fast, slow, 8), []);
    // but a run that ended away from the other's level still differs
    const stuck = run([
      [0, 1, 1],
      [60, 4, 1],
      [79, 4, 0],
    ]);
    assert.deepEqual(
      trajectoryMismatches(slow, stuck, 8).map((s) => s.t),
      [84, 90, 96],
    );
  });
});
