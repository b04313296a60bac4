// The grace period for infrastructure errors. A blip (an API server restart, a burst of 503s) must not
// flip conditions and fire events; only errors that persist past the grace period show in status. The
// start of an outage is kept in memory per object: a restarted operator starts a fresh grace period,
// which delays reporting by at most one period and never loses or invents a status.

export interface Clock {
  /** milliseconds since the epoch */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** a clock tests move by hand */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2025, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

export const DEFAULT_GRACE_PERIOD_MS = 10_000;

export interface GraceState {
  /** infrastructure errors are present in this reconcile */
  infra: boolean;
  /** they started less than the grace period ago: hold status as it was */
  withinGrace: boolean;
  /** when the current run of infrastructure errors started */
  since?: number;
}

interface Entry {
  since: number;
  lastSeen: number;
}

/** entries not refreshed for this long belong to deleted objects and are dropped */
const FORGET_AFTER_MS = 60 * 60_000;

export class GraceTracker {
  private readonly outages = new Map<string, Entry>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock = systemClock,
    readonly gracePeriodMs: number = DEFAULT_GRACE_PERIOD_MS,
  ) {}

  /** records whether `key` (an object uid) sees infrastructure errors now and says whether to hold */
  observe(key: string, infra: boolean): GraceState {
    const now = this.clock.now();
    this.sweep(now);
    if (!infra) {
      this.outages.delete(key);
      return { infra: false, withinGrace: false };
    }
    let e = this.outages.get(key);
    if (!e) {
      e = { since: now, lastSeen: now };
      this.outages.set(key, e);
    }
    e.lastSeen = now;
    return { infra: true, withinGrace: now - e.since < this.gracePeriodMs, since: e.since };
  }

  get size(): number {
    return this.outages.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, e] of this.outages) if (now - e.lastSeen > FORGET_AFTER_MS) this.outages.delete(k);
  }
}
