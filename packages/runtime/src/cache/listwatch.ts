// List-watch that never gives up (client-go Reflector semantics), written on our own HTTP layer because
// client-node 1.4.0's informer stops on the first network error and has no client-side timeout.
//
//  - list (paginated), then watch from the list's resourceVersion with allowWatchBookmarks and a random
//    timeoutSeconds in [300, 600] so a fleet of clients does not reconnect in lockstep;
//  - a watch that ends (server timeout, abrupt close, error) resumes from the last resourceVersion seen
//    (objects or bookmarks), without relisting;
//  - 410 Gone (history compacted) relists; the store diff then reports what changed meanwhile;
//  - an inactivity watchdog aborts a stream that stays open but silent (half-open TCP, stalled server);
//  - every other failure is retried after a capped, jittered exponential backoff;
//  - stop() aborts the stream and resolves; it is never reported as an error.

import type http from 'node:http';
import { ApiError, isGone, type Status } from '../client/errors.ts';
import type { QueryValue, Transport } from '../client/http.ts';
import { Backoff, randomBetween, sleep } from '../controller/backoff.ts';
import { type Logger, rootLogger } from '../log.ts';
import type { KubeList, KubeObject, WatchEvent } from '../meta/types.ts';
import { type RuntimeMetrics, sharedMetrics } from '../metrics.ts';

export interface ListWatchHandler {
  /** the complete current state after a (re)list */
  replace(items: KubeObject[], resourceVersion: string): void;
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void;
  /**
   * watchOnly: the watch starts again from nothing after its history expired (410). The current state
   * comes as ADDED events, but an object deleted meanwhile sends none: the handler must look for itself.
   */
  restarted?(): void;
}

export interface ListWatchOptions {
  transport: Transport;
  /** collection path, e.g. /apis/test.modelplane.io/v1/namespaces/ns/widgets */
  path: string;
  /** name for logs and metrics, e.g. `widgets.test.modelplane.io` */
  resource: string;
  handler: ListWatchHandler;
  labelSelector?: string;
  fieldSelector?: string;
  listAccept?: string;
  watchAccept?: string;
  /**
   * never list: each (re)start is a watch without resourceVersion, whose synthetic ADDED events give the
   * current state (RBAC: `watch` alone). replace() is never called; an object deleted while no watch ran
   * sends nothing, so a restart after the first start calls handler.restarted(). For a watch pinned to one
   * object by fieldSelector, where a list adds nothing.
   */
  watchOnly?: boolean;
  pageSize?: number;
  /** bounds of the random watch timeoutSeconds (default 300–600) */
  minTimeoutSeconds?: number;
  maxTimeoutSeconds?: number;
  /** abort a watch that delivered no bytes for this long (default 90 s; kube-apiserver sends a bookmark every minute) */
  inactivityTimeoutMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  random?: () => number;
}

class WatchStalled extends Error {
  constructor(ms: number) {
    super(`watch delivered nothing for ${ms} ms`);
    this.name = 'WatchStalled';
  }
}

export class ListWatch {
  private rv = '';
  private needList = true;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly stopController = new AbortController();
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private readonly metrics: RuntimeMetrics;
  private readonly random: () => number;
  private synced = false;

  constructor(private readonly opts: ListWatchOptions) {
    this.random = opts.random ?? Math.random;
    this.backoff = new Backoff({
      initialMs: opts.backoffInitialMs ?? 800,
      maxMs: opts.backoffMaxMs ?? 30_000,
      jitter: 0.5,
      random: this.random,
    });
    this.log = (opts.logger ?? rootLogger()).child({
      component: 'list-watch',
      resource: opts.resource,
      labelSelector: opts.labelSelector,
    });
    this.metrics = opts.metrics ?? sharedMetrics();
  }

  /** the last resourceVersion delivered (from a list, an event or a bookmark) */
  get resourceVersion(): string {
    return this.rv;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopController.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    const signal = this.stopController.signal;
    while (!this.stopped) {
      try {
        if (this.needList && this.opts.watchOnly) {
          if (this.synced) this.opts.handler.restarted?.();
          this.rv = '';
          this.needList = false;
          this.synced = true;
        } else if (this.needList) {
          await this.list(signal);
          this.needList = false;
          this.backoff.reset();
        }
        const outcome = await this.watch(signal);
        if (outcome.productive) this.backoff.reset();
        else if (!this.stopped) {
          // a server that closes watches at once would otherwise make us spin
          this.metrics.watchRestarts.inc({ resource: this.opts.resource, reason: 'closed-early' });
          await sleep(this.backoff.next(), signal);
        }
      } catch (err) {
        if (this.stopped) break;
        if (isGone(err)) {
          this.log.info('resourceVersion expired, relisting', { resourceVersion: this.rv });
          this.metrics.watchRestarts.inc({ resource: this.opts.resource, reason: 'gone' });
          this.needList = true;
          continue;
        }
        const stalled = err instanceof WatchStalled;
        this.metrics.watchRestarts.inc({
          resource: this.opts.resource,
          reason: stalled ? 'stalled' : errorReason(err),
        });
        if (stalled) {
          // a stalled stream is not a server failure: resume at once
          this.log.warn('watch stalled, reconnecting', { resourceVersion: this.rv, error: err });
          continue;
        }
        let delay = this.backoff.next();
        if (err instanceof ApiError && err.retryAfterSeconds !== undefined)
          delay = Math.max(delay, err.retryAfterSeconds * 1000);
        this.log.warn(this.needList ? 'list failed, retrying' : 'watch failed, resuming', {
          error: err,
          delayMs: Math.round(delay),
          resourceVersion: this.rv,
        });
        await sleep(delay, signal);
      }
    }
  }

  private async list(signal: AbortSignal): Promise<void> {
    this.metrics.watchRelists.inc({ resource: this.opts.resource });
    const pageSize = this.opts.pageSize ?? 500;
    let items: KubeObject[] = [];
    let cont: string | undefined;
    let rv = '';
    let paginate = true;
    for (;;) {
      const query: Record<string, QueryValue> = {
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
      };
      if (paginate) Object.assign(query, { limit: pageSize, continue: cont });
      let page: KubeList;
      try {
        const res = await this.opts.transport.request({
          method: 'GET',
          path: this.opts.path,
          query,
          signal,
          ...(this.opts.listAccept ? { accept: this.opts.listAccept } : {}),
        });
        page = res.body as KubeList;
      } catch (err) {
        // an expired continue token: start over with one unpaginated consistent list
        if (isGone(err) && cont) {
          items = [];
          cont = undefined;
          paginate = false;
          continue;
        }
        throw err;
      }
      if (!page || !Array.isArray(page.items)) {
        throw new ApiError({
          code: 200,
          reason: 'InvalidResponse',
          message: 'list response has no items array',
          verb: 'GET',
          path: this.opts.path,
        });
      }
      items.push(...page.items);
      rv = page.metadata?.resourceVersion ?? '';
      cont = page.metadata?.continue || undefined;
      if (!cont) break;
    }
    if (this.stopped) return;
    this.rv = rv;
    this.opts.handler.replace(items, rv);
    if (!this.synced) {
      this.synced = true;
      this.log.debug('synced', { objects: items.length, resourceVersion: rv });
    }
  }

  /** one watch request; resolves when the server ends it gracefully, throws otherwise */
  private async watch(stopSignal: AbortSignal): Promise<{ productive: boolean }> {
    const minT = this.opts.minTimeoutSeconds ?? 300;
    const maxT = this.opts.maxTimeoutSeconds ?? 600;
    const timeoutSeconds = randomBetween(minT, maxT, this.random);
    const inactivityMs = this.opts.inactivityTimeoutMs ?? 90_000;
    const abort = new AbortController();
    const onStop = () => abort.abort();
    stopSignal.addEventListener('abort', onStop, { once: true });
    const started = Date.now();
    let events = 0;
    let stream: http.IncomingMessage | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    let stalled: WatchStalled | undefined;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        stalled = new WatchStalled(inactivityMs);
        stream?.destroy(stalled);
        abort.abort();
      }, inactivityMs);
    };
    try {
      arm();
      stream = await this.opts.transport.stream({
        method: 'GET',
        path: this.opts.path,
        query: {
          watch: 'true',
          resourceVersion: this.rv,
          allowWatchBookmarks: 'true',
          timeoutSeconds,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
        },
        signal: abort.signal,
        timeoutMs: inactivityMs,
        ...(this.opts.watchAccept ? { accept: this.opts.watchAccept } : {}),
      });
      arm();
      let buffered = '';
      stream.setEncoding('utf8');
      for await (const chunk of stream as AsyncIterable<string>) {
        arm();
        buffered += chunk;
        let nl = buffered.indexOf('\n');
        while (nl >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line) {
            this.dispatch(line);
            events++;
          }
          nl = buffered.indexOf('\n');
        }
      }
      if (buffered.trim()) {
        this.dispatch(buffered.trim());
        events++;
      }
      const lasted = Date.now() - started;
      return { productive: events > 0 || lasted >= 1000 };
    } catch (err) {
      if (stalled) throw stalled;
      if (this.stopped) return { productive: true };
      throw err instanceof ApiError ? err : ApiError.fromNetwork('GET', this.opts.path, err);
    } finally {
      clearTimeout(watchdog);
      stopSignal.removeEventListener('abort', onStop);
      stream?.destroy();
    }
  }

  private dispatch(line: string): void {
    let ev: WatchEvent;
    try {
      ev = JSON.parse(line) as WatchEvent;
    } catch {
      throw new ApiError({
        code: 200,
        reason: 'InvalidResponse',
        message: `watch sent a line that is not JSON: ${line.slice(0, 120)}`,
        verb: 'GET',
        path: this.opts.path,
      });
    }
    if (ev.type === 'ERROR') throw ApiError.fromStatus('GET', this.opts.path, ev.object as unknown as Status);
    const rv = ev.object?.metadata?.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      if (rv) this.rv = rv;
      return;
    }
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED' && ev.type !== 'DELETED') {
      this.log.warn('ignoring watch event of unknown type', { type: ev.type });
      return;
    }
    this.opts.handler.event(ev.type, ev.object);
    if (rv) this.rv = rv;
  }
}

function errorReason(err: unknown): string {
  if (err instanceof ApiError) return err.code === 0 ? (err.network ?? 'network') : String(err.code);
  return 'other';
}
