// A shared informer: one list-watch feeding one store, fanned out to any number of event handlers.
// Objects in the store are deep-frozen; handlers receive the frozen objects, so enqueueing a key is cheap
// and nobody can corrupt what the next reader sees.

import type { Transport } from '../client/http.ts';
import { collectionPath, type ResourceMapping } from '../client/mapper.ts';
import { type Logger, rootLogger } from '../log.ts';
import { deepFreeze } from '../meta/freeze.ts';
import { parseSelector, type Selector } from '../meta/labels.ts';
import { type KubeObject, keyOf } from '../meta/types.ts';
import { type RuntimeMetrics, sharedMetrics } from '../metrics.ts';
import { ListWatch } from './listwatch.ts';
import { type IndexFunc, Store, type StoreChange } from './store.ts';

export interface EventHandler<T extends KubeObject = KubeObject> {
  add?(obj: T): void;
  update?(old: T, obj: T): void;
  delete?(obj: T): void;
}

/** knobs of the underlying list-watch (tests shorten them) */
export interface ListWatchTuning {
  inactivityTimeoutMs?: number;
  minTimeoutSeconds?: number;
  maxTimeoutSeconds?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  pageSize?: number;
}

export interface InformerOptions extends ListWatchTuning {
  transport: Transport;
  mapping: ResourceMapping;
  /** watch one namespace only (namespaced kinds) */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** cache only metadata (PartialObjectMetadata): for kinds with many or large objects, e.g. Secrets */
  metadataOnly?: boolean;
  indexers?: Record<string, IndexFunc>;
  /** applied to every object before it is stored, e.g. to drop fields the controller never reads */
  transform?: (obj: KubeObject) => KubeObject;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

const PARTIAL_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const PARTIAL_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  readonly synced: Promise<void>;
  readonly mapping: ResourceMapping;
  readonly metadataOnly: boolean;
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly listWatch: ListWatch;
  private readonly log: Logger;
  private resolveSynced!: () => void;
  private readonly selector: Selector | undefined;
  private isSynced = false;
  private started = false;

  constructor(private readonly opts: InformerOptions) {
    this.mapping = opts.mapping;
    this.metadataOnly = opts.metadataOnly ?? false;
    this.store = new Store<T>(opts.indexers);
    this.selector = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    const resource = opts.mapping.group ? `${opts.mapping.resource}.${opts.mapping.group}` : opts.mapping.resource;
    this.log = (opts.logger ?? rootLogger()).child({ component: 'informer', resource });
    this.listWatch = new ListWatch({
      transport: opts.transport,
      path: collectionPath(opts.mapping, opts.namespace),
      resource,
      handler: { replace: (items) => this.onReplace(items), event: (type, obj) => this.onEvent(type, obj) },
      ...(opts.labelSelector ? { labelSelector: opts.labelSelector } : {}),
      ...(opts.fieldSelector ? { fieldSelector: opts.fieldSelector } : {}),
      ...(this.metadataOnly ? { listAccept: PARTIAL_LIST_ACCEPT, watchAccept: PARTIAL_WATCH_ACCEPT } : {}),
      ...pick(opts, [
        'inactivityTimeoutMs',
        'minTimeoutSeconds',
        'maxTimeoutSeconds',
        'backoffInitialMs',
        'backoffMaxMs',
        'pageSize',
      ]),
      logger: opts.logger ?? rootLogger(),
      metrics: opts.metrics ?? sharedMetrics(),
    });
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  /** the last resourceVersion the informer has seen */
  get resourceVersion(): string {
    return this.listWatch.resourceVersion;
  }

  /**
   * Registers a handler; once synced, it first receives an `add` for every cached object (as client-go's
   * late-registered handlers do) so it never misses objects that arrived before it. Returns an unsubscribe.
   */
  addHandler(handler: EventHandler<T>): () => void {
    this.handlers.add(handler);
    if (this.isSynced && handler.add) for (const obj of this.store.list()) this.call(() => handler.add!(obj));
    return () => this.handlers.delete(handler);
  }

  addIndexer(name: string, fn: IndexFunc): void {
    this.store.addIndexer(name, fn);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.listWatch.start();
  }

  async stop(): Promise<void> {
    await this.listWatch.stop();
  }

  get(name: string, namespace?: string): T | undefined {
    return this.store.getByName(this.opts.mapping.namespaced ? namespace : undefined, name);
  }

  private normalise(raw: KubeObject): T {
    let obj: KubeObject = raw;
    if (this.metadataOnly) {
      // the server may ignore the PartialObjectMetadata Accept and send whole objects; keep metadata only
      const { managedFields: _m, ...metadata } = raw.metadata ?? {};
      obj = { apiVersion: this.mapping.apiVersion, kind: this.mapping.kind, metadata };
    } else if (!raw.apiVersion || !raw.kind || raw.kind.endsWith('List')) {
      // list items of built-in kinds come without apiVersion/kind
      obj = { ...raw, apiVersion: this.mapping.apiVersion, kind: this.mapping.kind };
    }
    if (this.opts.transform) obj = this.opts.transform(obj);
    return obj as T;
  }

  private onReplace(items: KubeObject[]): void {
    const changes = this.store.replace(items.map((i) => this.normalise(i)));
    for (const c of changes) this.emit(c);
    if (!this.isSynced) {
      this.isSynced = true;
      this.resolveSynced();
    }
  }

  /**
   * Feeds the server's response to one of our own writes into the cache, so the next reconcile sees it
   * even if the watch event has not arrived yet (otherwise it would write the same thing again). The watch
   * event for that resourceVersion is then recognised as already applied. Only done when resourceVersions
   * are integers (etcd revisions, and this project's API server) so "newer" is decidable; otherwise the
   * watch alone updates the cache.
   */
  observeWrite(raw: KubeObject): void {
    if (!this.isSynced || this.opts.fieldSelector) return;
    if (raw.apiVersion !== this.mapping.apiVersion || raw.kind !== this.mapping.kind) return;
    if (this.opts.namespace && raw.metadata?.namespace !== this.opts.namespace) return;
    if (this.selector && !this.selector.matches(raw.metadata?.labels)) return;
    const rv = raw.metadata?.resourceVersion;
    if (!isIntegerRv(rv)) return;
    const current = this.store.get(keyOf(raw));
    if (current && (!isIntegerRv(current.metadata.resourceVersion) || !isNewerRv(rv, current.metadata.resourceVersion)))
      return;
    const obj = this.normalise(structuredClone(raw));
    const old = this.store.upsert(obj);
    this.emit(old ? { type: 'update', old, obj } : { type: 'add', obj });
  }

  private onEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: KubeObject): void {
    const obj = this.normalise(raw);
    const current = this.store.get(keyOf(obj));
    // already applied through observeWrite (same or newer state): nothing changed for the handlers
    if (type !== 'DELETED' && current && !isNewerRv(obj.metadata.resourceVersion, current.metadata.resourceVersion))
      return;
    if (type === 'DELETED') {
      this.store.remove(keyOf(obj));
      // handlers get the final state the server sent, frozen like everything else they see
      this.emit({ type: 'delete', obj: deepFreeze(obj) });
      return;
    }
    const old = this.store.upsert(obj);
    if (!old) this.emit({ type: 'add', obj });
    else this.emit({ type: 'update', old, obj });
  }

  private emit(change: StoreChange<T>): void {
    for (const h of this.handlers) {
      if (change.type === 'add' && h.add) this.call(() => h.add!(change.obj));
      else if (change.type === 'update' && h.update) this.call(() => h.update!(change.old, change.obj));
      else if (change.type === 'delete' && h.delete) this.call(() => h.delete!(change.obj));
    }
  }

  /** a throwing handler must not break the watch or starve the other handlers */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error('event handler threw', { error: err });
    }
  }
}

function isIntegerRv(rv: string | undefined): rv is string {
  return rv !== undefined && /^\d+$/.test(rv);
}

/**
 * true when `a` is a later resourceVersion than `b`. Non-integer versions are opaque: then any difference
 * counts as newer, which is what a watch stream (delivered in order) means.
 */
function isNewerRv(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return false;
  if (!isIntegerRv(a) || !isIntegerRv(b)) return true;
  return a.length !== b.length ? a.length > b.length : a > b;
}

function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
