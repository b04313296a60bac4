// The settle window: a controller that has just created or changed its children knows they cannot be
// ready yet, so a status saying "children not ready" is stale as soon as the children report, often a
// moment later. Within the window such a status is held back (the reconcile is requeued for the window's
// end) and the next reconcile writes what it then observes, which is one status write instead of two
// when the children come up quickly. Whatever is written is what was observed when it was written; the
// window only delays a transient state, by at most its length once per object generation and write.
// A restarted operator simply writes at once (the window is in-memory, like the grace period).

import type { Clock } from './grace.ts';

/** long enough for an upstream operator that reacts at once, short enough not to hide slow starts */
export const DEFAULT_SETTLE_WINDOW_MS = 2_000;

interface Hold {
  generation: number | undefined;
  deadline: number;
}

export class SettleWindow {
  private readonly holds = new Map<string, Hold>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    readonly windowMs: number = DEFAULT_SETTLE_WINDOW_MS,
  ) {}

  /**
   * Whether to hold back a not-yet-ready status of `key` (an object uid) now: the milliseconds left in the
   * window, or undefined to write at once. A window opens only when this reconcile wrote children
   * (`wroteChildren`); it stays open for later reconciles of the same generation until it ends, and once
   * ended it does not reopen until the status has been written (release).
   */
  hold(key: string, generation: number | undefined, wroteChildren: boolean): number | undefined {
    const now = this.clock.now();
    const h = this.holds.get(key);
    if (h && h.generation === generation) {
      const left = h.deadline - now;
      return left > 0 ? left : undefined;
    }
    if (!wroteChildren) return undefined;
    this.sweep(now);
    this.holds.set(key, { generation, deadline: now + this.windowMs });
    return this.windowMs;
  }

  /** the status of `key` was written, or needs no holding: the next change may open a new window */
  release(key: string): void {
    this.holds.delete(key);
  }

  get size(): number {
    return this.holds.size;
  }

  /** holds of deleted objects are never released: drop the long-ended ones, at most once a window */
  private sweep(now: number): void {
    if (this.holds.size < 1024 || now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [k, h] of this.holds) if (now - h.deadline > this.windowMs) this.holds.delete(k);
  }
}
