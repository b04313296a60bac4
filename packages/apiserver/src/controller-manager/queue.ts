// The work queue behind the in-server controllers, with client-go's workqueue guarantees: a key queued
// many times is processed once, a key is never processed by two workers at once (a key added while it
// is processed runs again afterwards), and a failed key is retried with exponential backoff. Work starts
// on a later macrotask, so store listeners only record keys and the writes they trigger never re-enter
// the store's notification loop; draining in small batches keeps the HTTP server responsive during a
// cascade of thousands of deletions.

export interface WorkQueueOptions {
  /** how many keys are processed concurrently (writes await persistence, so >1 batches fsyncs) */
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** called with a key whose handler threw (attempt counts consecutive failures); the key is retried after a backoff */
  onError?: (key: string, err: unknown, attempt: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  /** keys added while they were being processed: re-queued when their current run ends */
  private readonly dirtyWhileProcessing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private scheduled = false;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(
    private readonly handler: (key: string) => Promise<void>,
    private readonly opts: WorkQueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 8;
    this.baseDelayMs = opts.baseDelayMs ?? 50;
    this.maxDelayMs = opts.maxDelayMs ?? 5_000;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirtyWhileProcessing.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.schedule();
  }

  /** adds the key after a delay (retries); a key already waiting keeps its earlier timer */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped || this.timers.has(key)) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  /** resolves once nothing is queued or running (retry timers still pending do not count) */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** keys waiting for a retry */
  pendingRetries(): number {
    return this.timers.size;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.notifyIdle();
  }

  /** nothing queued or running */
  isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.stopped && this.processing.size < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      void this.run(key);
    }
    this.notifyIdle();
  }

  private async run(key: string): Promise<void> {
    try {
      await this.handler(key);
      this.failures.delete(key);
    } catch (err) {
      if (this.stopped) return; // failures while shutting down (stores closing under the handler) are expected
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.opts.onError?.(key, err, n);
      this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1)));
    } finally {
      this.processing.delete(key);
      if (this.dirtyWhileProcessing.delete(key)) this.add(key);
      // Continue on a later macrotask so a long cascade yields to I/O between batches.
      if (this.queue.length > 0) this.schedule();
      else this.notifyIdle();
    }
  }

  private notifyIdle(): void {
    if (!this.isIdle() && !this.stopped) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/** An onError that reports a failing key on its first failure and every tenth retry after, not on each. */
export function failureReporter(
  controller: string,
  warn: (message: string) => void,
): NonNullable<WorkQueueOptions['onError']> {
  return (key, err, attempt) => {
    if (attempt !== 1 && attempt % 10 !== 0) return;
    const why = err instanceof Error ? err.message : String(err);
    warn(`${controller}: ${key.replaceAll('\n', '/')} failed (attempt ${attempt}, retrying): ${why}`);
  };
}
