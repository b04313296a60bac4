// Capped exponential backoff with jitter, and an abortable sleep. Used by list-watch retries and leader
// election; the random source is injectable so tests can pin the jitter.

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor?: number;
  /** fraction of the delay added at random: delay * (1 + jitter * random()) (client-go's wait.Jitter) */
  jitter?: number;
  random?: () => number;
}

export class Backoff {
  private attempt = 0;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(private readonly opts: BackoffOptions) {
    if (opts.initialMs <= 0 || opts.maxMs < opts.initialMs) {
      throw new Error(`Backoff: need 0 < initialMs <= maxMs, got initialMs=${opts.initialMs} maxMs=${opts.maxMs}`);
    }
    this.factor = opts.factor ?? 2;
    this.jitter = opts.jitter ?? 0.5;
    this.random = opts.random ?? Math.random;
  }

  /** the delay before the next retry; each call grows it until the cap */
  next(): number {
    const base = Math.min(this.opts.maxMs, this.opts.initialMs * this.factor ** this.attempt);
    if (base < this.opts.maxMs) this.attempt++;
    // jitter never pushes the delay past the cap, so the cap is a real upper bound
    return Math.min(this.opts.maxMs, base * (1 + this.jitter * this.random()));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}

/** resolves after `ms`, or early (without throwing) when the signal aborts */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** uniform random integer in [min, max] */
export function randomBetween(min: number, max: number, random: () => number = Math.random): number {
  return Math.floor(min + random() * (max - min + 1));
}
