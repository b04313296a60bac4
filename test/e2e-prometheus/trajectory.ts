// What the closed-loop behaviour spec asserts over a recorded run (docs/autoscaling.md, "The closed loop"):
// pure checks over the samples, so they are unit-tested apart from the slow loop itself.
import type { Sample } from './plot.ts';

/**
 * Rises of the desired replicas that happened while no request had been in flight for `graceS` seconds.
 * The grace covers what lies between the load generator's count and a decision: one scrape interval of
 * Prometheus, one sampling tick of the test and one progress tick of the load generator.
 */
export function risesWhileIdle(samples: readonly Sample[], graceS: number): Sample[] {
  const out: Sample[] = [];
  let lastBusy = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s.inFlight > 0) lastBusy = s.t;
    if (i > 0 && s.desired > samples[i - 1]!.desired && s.t - lastBusy > graceS) out.push(s);
  }
  return out;
}

/** the levels the desired replicas went through, repeats collapsed: [1, 2, 3, 2, 1] */
export function levels(samples: readonly Sample[]): number[] {
  const out: number[] = [];
  for (const s of samples) if (out.at(-1) !== s.desired) out.push(s.desired);
  return out;
}

/** a path that rises, then falls, and never rises again (no flapping) */
export function isUnimodal(path: readonly number[]): boolean {
  let falling = false;
  for (let i = 1; i < path.length; i++) {
    if (path[i]! < path[i - 1]!) falling = true;
    else if (falling) return false;
  }
  return true;
}

/**
 * Points of run `a` that run `b` does not match within one step: no sample of `b` within `slackS` seconds
 * (same offset from the start of the load) has a desired count within one replica. Empty = the same
 * trajectory within one step. A run stops sampling once it is back at rest, so a run that got there sooner
 * has no samples where the slower one still has some: past its end it stays at its last sample.
 */
export function trajectoryMismatches(a: readonly Sample[], b: readonly Sample[], slackS: number): Sample[] {
  const end = b.at(-1);
  const near = (p: Sample, q: Sample) => Math.abs(q.desired - p.desired) <= 1;
  return a.filter(
    (p) => !b.some((q) => Math.abs(q.t - p.t) <= slackS && near(p, q)) && !(end && p.t > end.t && near(p, end)),
  );
}
