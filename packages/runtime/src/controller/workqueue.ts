// A rate-limited work queue with client-go semantics:
//  - a key waiting in the queue is held once however often it is added (the dirty set);
//  - a key being processed is never handed to a second worker; if it is added meanwhile it goes back into
//    the queue exactly once when the first worker calls done();
//  - failures back off per key through a RateLimiter; addAfter schedules a key for later (requeueAfter).
// Keys are strings (`namespace/name`), so identity is value equality.

import { performance } from 'node:perf_hooks';
import { type QueueMetrics, type RuntimeMetrics, sharedMetrics } from '../metrics.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimit.ts';

export interface WorkQueueOptions {
  /** the `name` label of the workqueue_* metrics */
  name: string;
  rateLimiter?: RateLimiter;
  metrics?: RuntimeMetrics;
}

interface Delayed {
  at: number;
  timer: NodeJS.Timeout;
}

export class WorkQueue {
  readonly name: string;
  private items: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly enqueuedAt = new Map<string, number>();
  private readonly delayed = new Map<string, Delayed>();
  private waiters: Array<(key: string | undefined) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;
  private readonly limiter: RateLimiter;
  private readonly metrics: QueueMetrics;
  private readonly runtimeMetrics: RuntimeMetrics;

  constructor(opts: WorkQueueOptions) {
    this.name = opts.name;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter();
    this.runtimeMetrics = opts.metrics ?? sharedMetrics();
    this.metrics = this.runtimeMetrics.queue(opts.name, this);
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.add();
    this.dirty.add(key);
    if (!this.enqueuedAt.has(key)) this.enqueuedAt.set(key, performance.now());
    // a key being processed is re-queued by done(), so it can never reach a second worker
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** adds `key` after `delayMs`; of several pending delays for one key the earliest wins */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = performance.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** drops a pending addAfter of `key` (its retry or requeueAfter is no longer needed) */
  cancelDelayed(key: string): void {
    const pending = this.delayed.get(key);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.delayed.delete(key);
  }

  /** adds `key` after its rate-limited backoff (one more failure recorded) */
  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics.retry();
    this.addAfter(key, this.limiter.when(key));
  }

  /** the key was processed successfully: its backoff starts from the beginning next time */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.limiter.numRequeues(key);
  }

  /** waits for the next key; undefined once the queue is shut down */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    if (this.head < this.items.length) return Promise.resolve(this.pop());
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** marks `key` finished; if it was added while being processed it goes back into the queue now */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics.workDuration((performance.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** keys waiting to be handed out */
  len(): number {
    return this.items.length - this.head;
  }

  /** keys currently held by workers */
  inFlight(): number {
    return this.processing.size;
  }

  /** keys scheduled for later */
  pendingDelayed(): number {
    return this.delayed.size;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** stops handing out keys (waiting get() calls resolve undefined) and drops scheduled ones */
  shutdown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
    this.runtimeMetrics.forgetQueue(this.name);
  }

  /** shuts down and resolves once every key handed out has been marked done */
  shutdownAndDrain(): Promise<void> {
    this.shutdown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  unfinishedWorkSeconds(): number {
    const now = performance.now();
    let total = 0;
    for (const started of this.processing.values()) total += now - started;
    return total / 1000;
  }

  longestRunningProcessorSeconds(): number {
    const now = performance.now();
    let longest = 0;
    for (const started of this.processing.values()) longest = Math.max(longest, now - started);
    return longest / 1000;
  }

  private push(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.items.push(key);
      waiter(this.pop());
      return;
    }
    this.items.push(key);
    this.metrics.depth(this.len());
  }

  private pop(): string {
    const key = this.items[this.head++]!;
    // compact once the consumed prefix dominates, keeping pop O(1) amortised
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    const now = performance.now();
    this.processing.set(key, now);
    this.dirty.delete(key);
    const added = this.enqueuedAt.get(key);
    this.enqueuedAt.delete(key);
    if (added !== undefined) this.metrics.queueLatency((now - added) / 1000);
    this.metrics.depth(this.len());
    return key;
  }
}
