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
    if (baseDelayMs <= 0 || maxDelayMs < baseDelayMs) throw new Error(`ItemExponentialRateLimiter: need 0 < base <= max, got base=${baseDelayMs} max=${maxDelayMs}`);
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
    if (qps <= 0 || burst < 1) throw new Error(`BucketRateLimiter: need qps > 0 and burst >= 1, got qps=${qps} burst=${burst}`);
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

/** controller-runtime's default: 5 ms → 1000 s per key, 10 qps / burst 100 overall */
export function defaultControllerRateLimiter(): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialRateLimiter(5, 1000_000), new BucketRateLimiter(10, 100));
}
