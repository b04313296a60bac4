// Rate limiters for the workqueue's failure path (client-go workqueue semantics): per-key exponential
// backoff so one broken object backs off alone, plus an overall token bucket so a mass failure (the API
// server down) cannot turn into a retry storm.

export interface RateLimiter {
  /** how long to wait before `key` may be processed again; records one more failure */
  when(key: string): number;
  /** the key succeeded: reset its failure history */
  forget(key: string): void;
  numRequeues(key: string): number;
}

export class ItemExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();

  constructor(
    readonly baseDelayMs = 5,
    readonly maxDelayMs = 1000_000,
  ) {
    if (baseDelayMs <= 0 || maxDelayMs < baseDelayMs)
      throw new Error(`ItemExponentialRateLimiter: need 0 < base <= max, got base=${baseDelayMs} max=${maxDelayMs}`);
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // cap the exponent first: 2**n overflows to Infinity long before n gets large
    const exp = Math.min(n, 62);
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** exp);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * Token bucket: `qps` tokens per second, at most `burst` saved up. `when` reserves a token and returns how
 * long until it is available, so waiting callers are spaced 1/qps apart.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps = 10,
    readonly burst = 100,
    private readonly now: () => number = Date.now,
  ) {
    if (qps <= 0 || burst < 1)
      throw new Error(`BucketRateLimiter: need qps > 0 and burst >= 1, got qps=${qps} burst=${burst}`);
    this.tokens = burst;
    this.last = now();
  }

  when(_key: string): number {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** the longest delay of several limiters (controller-runtime's default combines per-item and bucket) */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new Error('MaxOfRateLimiter: needs at least one limiter');
    this.limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/** at most `maxMs`, whatever the inner limiter says */
export class CappedRateLimiter implements RateLimiter {
  constructor(
    private readonly inner: RateLimiter,
    readonly maxMs: number,
  ) {}

  when(key: string): number {
    return Math.min(this.maxMs, this.inner.when(key));
  }

  forget(key: string): void {
    this.inner.forget(key);
  }

  numRequeues(key: string): number {
    return this.inner.numRequeues(key);
  }
}

/**
 * The longest a failing key waits between retries under the default limiter. controller-runtime's 1000 s
 * is tuned for objects that fail for good; ours mostly fail for a moment (409 races, a 5xx burst, an API
 * server restart), and after such a burst a key must not sit out a quarter of an hour. Ten doublings from
 * 5 ms get there, so a key that keeps failing still backs off to one try per 30 s. The cap bounds the
 * overall bucket too: a burst of a thousand failures would otherwise leave the last key 100 s in debt.
 */
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

/** every controller's default: 5 ms → 30 s per key, 10 qps / burst 100 overall, never more than 30 s */
export function defaultControllerRateLimiter(): RateLimiter {
  const limiter = new MaxOfRateLimiter(
    new ItemExponentialRateLimiter(5, DEFAULT_MAX_RETRY_DELAY_MS),
    new BucketRateLimiter(10, 100),
  );
  return new CappedRateLimiter(limiter, DEFAULT_MAX_RETRY_DELAY_MS);
}
