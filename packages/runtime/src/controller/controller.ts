// A controller: event sources (its own kind, owned children, mapped relations) feed keys into a workqueue;
// N workers reconcile keys, reading state from the shared cache. A reconcile returns `{requeueAfter}` to be
// called again later, or throws to be retried with per-key exponential backoff; TerminalError stops retries.
// A `levelBased` controller promises that each reconcile works from the current state and the server's
// answers to its own writes, and returns every requeue it still needs. Then the echoes of its own writes
// do not wake it (own-writes.ts), and a reconcile that succeeds without asking to be requeued cancels a
// retry or requeueAfter still pending for its key: the latest reconcile saw the newest state.

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Cache, InformerSpec } from '../cache/cache.ts';
import type { EventHandler, Informer } from '../cache/informer.ts';
import type { KubeClient } from '../client/client.ts';
import type { ResourceMapping } from '../client/mapper.ts';
import { OwnWrites } from '../client/own-writes.ts';
import { discardRecorder, type EventRecorder } from '../events.ts';
import { type Logger, rootLogger } from '../log.ts';
import {
  controllerOf,
  type KindRef,
  type KubeObject,
  keyOf,
  type ObjectKey,
  objectKeyString,
  parseApiVersion,
  parseKey,
} from '../meta/types.ts';
import { type RuntimeMetrics, sharedMetrics } from '../metrics.ts';
import type { ObjectEvent, Predicate } from './predicates.ts';
import type { RateLimiter } from './ratelimit.ts';
import { WorkQueue } from './workqueue.ts';

export type Request = ObjectKey;

export interface Result {
  /** reconcile this key again after this many milliseconds */
  requeueAfter?: number;
  /** reconcile again after the rate-limited backoff, without counting as an error */
  requeue?: boolean;
}

export interface ReconcileContext {
  controller: string;
  /** bound to the controller's field manager */
  client: KubeClient;
  cache: Cache;
  recorder: EventRecorder;
  /** carries controller, object key and a reconcile id */
  log: Logger;
  /** aborted when the controller stops; long reconciles should give up early */
  signal: AbortSignal;
  /** how many times this key failed in a row before this attempt */
  retries: number;
}

// biome-ignore lint/suspicious/noConfusingVoidType: lets `async (req) => { … }` without a return statement be a Reconciler
export type Reconciler = (req: Request, ctx: ReconcileContext) => Promise<Result | undefined | void>;

/** a reconcile error that retrying cannot fix (invalid spec): logged and counted, not requeued */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** maps an event on some object to the keys of the objects to reconcile */
export type MapFunc<T extends KubeObject = KubeObject> = (obj: T) => Array<Request | string>;

export interface Source {
  kind: KindRef<any>;
  spec?: InformerSpec;
  predicates: Predicate<any>[];
  map: MapFunc<any>;
  /** on update, also map the old object (a changed owner or label must enqueue the old target too) */
  mapOld: boolean;
}

export interface ControllerOptions {
  name: string;
  cache: Cache;
  /** the controller's client, already bound to its field manager */
  client: KubeClient;
  sources: Source[];
  /** applied to every source's events after its own predicates */
  globalPredicates?: Predicate<any>[];
  reconciler: Reconciler;
  concurrency?: number;
  /** see the header: no reconcile on the echoes of its own writes; the latest success cancels pending requeues */
  levelBased?: boolean;
  /** how long start() waits for the caches to list (default 2 min, as controller-runtime) */
  cacheSyncTimeoutMs?: number;
  /** every this many ms, every object of the primary kind is reconciled again (default 10 h) */
  resyncPeriodMs?: number;
  rateLimiter?: RateLimiter;
  recorder?: EventRecorder;
  metrics?: RuntimeMetrics;
  logger?: Logger;
}

export class Controller {
  readonly name: string;
  private queue: WorkQueue | undefined;
  private unsubscribe: Array<() => void> = [];
  private workers: Promise<void>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private abort = new AbortController();
  private readonly log: Logger;
  private readonly metrics: RuntimeMetrics;
  private readonly concurrency: number;
  /** levelBased controllers only */
  private readonly ownWrites: OwnWrites | undefined;
  private running = false;
  /** known once started; owner mapping needs to know whether the primary kind is namespaced */
  primaryMapping: ResourceMapping | undefined;

  constructor(private readonly opts: ControllerOptions) {
    if (opts.sources.length === 0) throw new Error(`controller "${opts.name}": needs a primary kind (for(kind))`);
    this.name = opts.name;
    this.concurrency = Math.max(1, opts.concurrency ?? 1);
    this.log = (opts.logger ?? rootLogger()).child({ controller: opts.name });
    this.metrics = opts.metrics ?? sharedMetrics();
    this.ownWrites = opts.levelBased ? new OwnWrites() : undefined;
  }

  /**
   * The client a reconcile of `key` writes through: a levelBased controller records which resourceVersions
   * its writes produced, as that key's own. Bound per reconcile rather than found through AsyncLocalStorage:
   * on Node 20 a running AsyncLocalStorage hooks every promise the process creates (the API server's too in
   * one process). Under the CPU profiler that hook was 14% of the samples of converging a thousand
   * ModelDeployments; without the profiler the bench's CPU time moved within its run-to-run noise.
   */
  private clientFor(key: string): KubeClient {
    const own = this.ownWrites;
    if (!own) return this.opts.client;
    return this.opts.client.withOwnWriteObserver((obj, pure) => {
      if (pure) own.record(obj, key);
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** the primary source's informer (for(kind)) */
  async primaryInformer(): Promise<Informer> {
    const primary = this.opts.sources[0]!;
    return this.opts.cache.informer(primary.kind, primary.spec);
  }

  /** creates (and so starts, once the cache runs) the informers of every source, without subscribing */
  async informers(): Promise<Informer[]> {
    return Promise.all(this.opts.sources.map((s) => this.opts.cache.informer(s.kind, s.spec)));
  }

  /**
   * Subscribes to every source, waits for their caches, then starts the workers. Fails (leaving nothing
   * running) if a kind is unknown or its cache does not sync within cacheSyncTimeoutMs.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    const queueOpts = {
      name: this.name,
      metrics: this.metrics,
      ...(this.opts.rateLimiter ? { rateLimiter: this.opts.rateLimiter } : {}),
    };
    const queue = new WorkQueue(queueOpts);
    this.queue = queue;
    try {
      const informers = await this.informers();
      this.primaryMapping = informers[0]!.mapping;
      for (const [i, inf] of informers.entries())
        this.unsubscribe.push(inf.addHandler(this.handlerFor(this.opts.sources[i]!, queue)));
      await this.waitForSync(informers);
    } catch (err) {
      for (const u of this.unsubscribe) u();
      this.unsubscribe = [];
      queue.shutdown();
      this.running = false;
      throw err;
    }
    if (!this.running) return;
    this.metrics.maxConcurrentReconciles.set({ controller: this.name }, this.concurrency);
    this.metrics.activeWorkers.set({ controller: this.name }, 0);
    for (let i = 0; i < this.concurrency; i++) this.workers.push(this.work(queue));
    const period = this.opts.resyncPeriodMs ?? 10 * 60 * 60_000;
    if (period > 0 && Number.isFinite(period)) {
      this.resyncTimer = setInterval(() => void this.resync(), period);
      this.resyncTimer.unref();
    }
    this.log.info('controller started', { workers: this.concurrency });
  }

  private async waitForSync(informers: Informer[]): Promise<void> {
    const timeoutMs = this.opts.cacheSyncTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const pending = informers.filter((i) => !i.hasSynced).map((i) => i.mapping.kind);
        reject(
          new Error(
            `controller "${this.name}": caches for ${pending.join(', ')} did not sync within ${timeoutMs} ms (can the operator list and watch them?)`,
          ),
        );
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.all(informers.map((i) => i.synced)), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** enqueues every cached object of the primary kind */
  async resync(): Promise<number> {
    const queue = this.queue;
    if (!queue || queue.isShuttingDown) return 0;
    const inf = await this.primaryInformer();
    const keys = inf.store.keys();
    for (const k of keys) queue.add(k);
    return keys.length;
  }

  /** enqueues one key directly (tests, external triggers) */
  enqueue(key: Request | string): void {
    this.queue?.add(typeof key === 'string' ? key : objectKeyString(key.namespace, key.name));
  }

  /**
   * enqueues `keys` for a change to `changed` (undefined: a deletion), as the builder's sources do: a
   * levelBased controller skips the echo of its own write, and judges events for a key it is reconciling
   * when that reconcile ends
   */
  enqueueChange(keys: Iterable<string>, changed: KubeObject | undefined): void {
    if (this.queue) this.enqueueChangeOn(this.queue, keys, changed);
  }

  private enqueueChangeOn(queue: WorkQueue, keys: Iterable<string>, changed: KubeObject | undefined): void {
    const own = this.ownWrites;
    for (const key of keys) {
      if (own && changed && own.isEcho(changed, key)) continue;
      if (own && queue.isProcessing(key)) own.hold(key, changed);
      else queue.add(key);
    }
  }

  /** stops taking new keys and waits for in-flight reconciles to finish */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.resyncTimer);
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    this.abort.abort();
    await this.queue?.shutdownAndDrain();
    await Promise.all(this.workers);
    this.workers = [];
    this.log.info('controller stopped');
  }

  /** keys waiting plus keys being reconciled (tests wait for 0) */
  get pendingWork(): number {
    const q = this.queue;
    return q ? q.len() + q.inFlight() : 0;
  }

  private handlerFor(source: Source, queue: WorkQueue): EventHandler {
    const predicates = [...source.predicates, ...(this.opts.globalPredicates ?? [])];
    const keys = (obj: KubeObject, into = new Set<string>()) => {
      for (const r of source.map(obj)) into.add(typeof r === 'string' ? r : objectKeyString(r.namespace, r.name));
      return into;
    };
    const pass = (ev: ObjectEvent) => {
      for (const p of predicates) if (!p(ev)) return false;
      return true;
    };
    return {
      add: (obj) => {
        if (pass({ type: 'add', obj })) this.enqueueChangeOn(queue, keys(obj), obj);
      },
      update: (old, obj) => {
        if (!pass({ type: 'update', old, obj })) return;
        // one key once per event: a second add would find it already handed to a worker and run it twice
        this.enqueueChangeOn(queue, keys(obj, source.mapOld ? keys(old) : undefined), obj);
      },
      delete: (obj) => {
        if (pass({ type: 'delete', obj })) this.enqueueChangeOn(queue, keys(obj), undefined);
      },
    };
  }

  private async work(queue: WorkQueue): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileKey(queue, key);
      } finally {
        // events that came in meanwhile and were not our own echoes: once more (add marks it, done re-queues)
        if (this.ownWrites?.release(key)) queue.add(key);
        queue.done(key);
      }
    }
  }

  private async reconcileKey(queue: WorkQueue, key: string): Promise<void> {
    const controller = this.name;
    const retries = queue.numRequeues(key);
    const log = this.log.child({ object: key, reconcileID: randomUUID() });
    const ctx: ReconcileContext = {
      controller,
      client: this.clientFor(key),
      cache: this.opts.cache,
      recorder: this.opts.recorder ?? discardRecorder,
      log,
      signal: this.abort.signal,
      retries,
    };
    this.metrics.activeWorkers.inc({ controller });
    const started = performance.now();
    try {
      const result = (await this.opts.reconciler(parseKey(key), ctx)) ?? {};
      if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfter);
        this.metrics.reconcileTotal.inc({ controller, result: 'requeue_after' });
      } else if (result.requeue) {
        queue.addRateLimited(key);
        this.metrics.reconcileTotal.inc({ controller, result: 'requeue' });
      } else {
        queue.forget(key);
        if (this.opts.levelBased) queue.cancelDelayed(key);
        this.metrics.reconcileTotal.inc({ controller, result: 'success' });
      }
    } catch (err) {
      this.metrics.reconcileErrors.inc({ controller });
      this.metrics.reconcileTotal.inc({ controller, result: 'error' });
      if (err instanceof TerminalError) {
        queue.forget(key);
        log.error('reconcile failed permanently', { error: err });
      } else {
        queue.addRateLimited(key);
        log.error('reconcile failed, will retry', { error: err, retries: retries + 1 });
      }
    } finally {
      this.metrics.reconcileTime.observe({ controller }, (performance.now() - started) / 1000);
      this.metrics.activeWorkers.dec({ controller });
    }
  }
}

/** a source's map function for the primary kind: the object's own key */
export function mapSelf(obj: KubeObject): string[] {
  return [keyOf(obj)];
}

/**
 * A map function for owned children: the key of the controller owner if it is of `ownerKind`
 * (same group; any version). Cluster-scoped owners get an empty namespace.
 */
export function mapControllerOwner(ownerKind: KindRef<any>, ownerNamespaced: () => boolean): MapFunc {
  const ownerGroup = parseApiVersion(ownerKind.apiVersion).group;
  return (obj) => {
    const ref = controllerOf(obj);
    if (!ref || ref.kind !== ownerKind.kind || parseApiVersion(ref.apiVersion).group !== ownerGroup) return [];
    return [objectKeyString(ownerNamespaced() ? obj.metadata.namespace : undefined, ref.name)];
  };
}
