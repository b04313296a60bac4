// The skeleton shared by in-server controllers that work per namespace from store-wide events: a work
// queue keyed by namespace name, fed by every store event, with start/stop/idle for the server and tests.
import type { ServerCore } from '../core.ts';
import type { StoredEvent } from '../storage/store.ts';
import { failureReporter, WorkQueue } from './queue.ts';

export abstract class NamespaceKeyedController {
  protected readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(
    protected readonly core: ServerCore,
    name: string,
    concurrency: number,
    warn: (message: string) => void = console.warn,
  ) {
    this.queue = new WorkQueue((ns) => this.sync(ns), { concurrency, onError: failureReporter(name, warn) });
  }

  /** namespaces to look at when the controller starts */
  protected abstract initialKeys(): string[];
  protected abstract onEvent(e: StoredEvent): void;
  protected abstract sync(namespace: string): Promise<void>;

  start(): void {
    for (const ns of this.initialKeys()) this.queue.add(ns);
    this.unsubscribe = this.core.store.watchAll((e) => this.onEvent(e));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  isIdle(): boolean {
    return this.queue.isIdle();
  }
}
