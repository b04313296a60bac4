// How long each simulated step takes. The defaults are small (a quickstart must be Ready in seconds) but
// keep the order of events a real cluster shows; tests set them near zero.

export interface SimDelays {
  /** a Pending pod waits this long before the scheduler binds it (or reports it unschedulable) */
  schedule: number;
  /** ContainerCreating → Running: image pull, container create and start */
  pull: number;
  /** Running → Ready for containers with a readiness or startup probe (a model server loading weights) */
  ready: number;
  /** how long a Job's (or an init) container runs before it exits 0 */
  run: number;
  /** how long a failing container (OOMKilled, CrashLoopBackOff, DiskFull) runs before it dies */
  crash: number;
  /** the first CrashLoopBackOff / ImagePullBackOff back-off (kubelet: 10 s), doubled after every failure */
  backoff: number;
  /** the back-off cap (kubelet: 5 min) */
  backoffMax: number;
  /** dynamic provisioning of a PersistentVolume */
  provision: number;
}

export const DEFAULT_SIM_DELAYS: Readonly<SimDelays> = Object.freeze({
  schedule: 200,
  pull: 600,
  ready: 800,
  run: 800,
  crash: 500,
  backoff: 1_000,
  backoffMax: 10_000,
  provision: 400,
});

export function resolveDelays(overrides: Partial<SimDelays> = {}): SimDelays {
  const out: SimDelays = { ...DEFAULT_SIM_DELAYS };
  for (const [key, value] of Object.entries(overrides) as Array<[keyof SimDelays, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`sim delays: ${key} must be a non-negative number of milliseconds, got ${value}`);
    out[key] = value;
  }
  return out;
}

/** the back-off before retry number `attempt` (0-based): base · 2^attempt, capped */
export function backoffDelay(delays: SimDelays, attempt: number): number {
  return Math.min(delays.backoffMax, delays.backoff * 2 ** Math.min(Math.max(0, attempt), 30));
}
