// The shared informer cache: one informer (one list-watch) per kind + scope + selector + metadata-only,
// however many controllers read that kind. Reads in the reconcile path come from here, never from the API
// server. A kind can be configured once (e.g. "ConfigMaps: only those labelled managed-by=modelplane",
// "Secrets: metadata only") and every reader then shares that informer.

import type { KubeClient } from '../client/client.ts';
import type { Logger } from '../log.ts';
import { parseSelector, type Selector } from '../meta/labels.ts';
import type { KindRef, KubeObject } from '../meta/types.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import { Informer, type ListWatchTuning } from './informer.ts';
import { INDEX_NAMESPACE, type IndexFunc } from './store.ts';

export interface InformerSpec {
  /** watch one namespace only (namespaced kinds) */
  namespace?: string;
  /** server-side label filter: the cache only ever holds matching objects */
  labelSelector?: string;
  fieldSelector?: string;
  /** cache PartialObjectMetadata instead of whole objects */
  metadataOnly?: boolean;
}

export interface CacheListOptions {
  namespace?: string;
  /** local filter on top of whatever the informer holds */
  labelSelector?: string;
  /** objects filed under `value` in the index `name` (see store.ts: `namespace`, `owner`, custom) */
  index?: { name: string; value: string };
}

export interface CacheOptions {
  client: KubeClient;
  /** restricts every namespaced informer to this namespace unless the spec names another */
  namespace?: string;
  tuning?: ListWatchTuning;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

export class Cache {
  private readonly informers = new Map<string, Promise<Informer<any>>>();
  private readonly resolved = new Set<Informer<any>>();
  private readonly defaults = new Map<string, InformerSpec>();
  private readonly indexers = new Map<string, Record<string, IndexFunc>>();
  private started = false;
  private stopped = false;

  constructor(private readonly opts: CacheOptions) {}

  /** sets the spec used for `kind` whenever a reader gives none; must happen before the kind is first used */
  configure(kind: KindRef<any>, spec: InformerSpec): void {
    const id = kindId(kind);
    if ([...this.informers.keys()].some((k) => k.startsWith(`${id}|`))) {
      throw new Error(
        `cache: ${kind.kind} (${kind.apiVersion}) is already in use; configure it before the first reader`,
      );
    }
    this.defaults.set(id, spec);
  }

  /** adds a custom index to `kind`'s informers (existing and future) */
  async indexField(kind: KindRef<any>, name: string, fn: IndexFunc): Promise<void> {
    const id = kindId(kind);
    this.indexers.set(id, { ...(this.indexers.get(id) ?? {}), [name]: fn });
    for (const [key, p] of this.informers) if (key.startsWith(`${id}|`)) (await p).addIndexer(name, fn);
  }

  /** the shared informer for `kind` (+ spec), created and started on first use */
  informer<T extends KubeObject>(kind: KindRef<T>, spec?: InformerSpec): Promise<Informer<T>> {
    if (this.stopped) return Promise.reject(new Error(`cache: stopped, cannot watch ${kind.kind}`));
    const s = this.effectiveSpec(kind, spec);
    const key = informerKey(kind, s);
    let p = this.informers.get(key);
    if (!p) {
      p = this.createInformer(kind, s);
      this.informers.set(key, p);
      // a failed creation (unknown kind, discovery down) must not poison the key forever
      p.catch(() => this.informers.delete(key));
    }
    return p as Promise<Informer<T>>;
  }

  async get<T extends KubeObject>(
    kind: KindRef<T>,
    name: string,
    namespace?: string,
    spec?: InformerSpec,
  ): Promise<T | undefined> {
    this.assertStarted(kind, 'get');
    const inf = await this.informer(kind, spec);
    await inf.synced;
    return inf.get(name, namespace);
  }

  async list<T extends KubeObject>(kind: KindRef<T>, opts: CacheListOptions = {}, spec?: InformerSpec): Promise<T[]> {
    this.assertStarted(kind, 'list');
    const inf = await this.informer(kind, spec);
    await inf.synced;
    let items: T[];
    if (opts.index) items = inf.store.byIndex(opts.index.name, opts.index.value);
    else if (opts.namespace && inf.mapping.namespaced) items = inf.store.byIndex(INDEX_NAMESPACE, opts.namespace);
    else items = inf.store.list();
    if (opts.index && opts.namespace) items = items.filter((o) => o.metadata.namespace === opts.namespace);
    if (opts.labelSelector) {
      const sel: Selector = parseSelector(opts.labelSelector);
      items = items.filter((o) => sel.matches(o.metadata.labels));
    }
    return items;
  }

  /** our own write's result: informers holding that kind take it now rather than when the watch delivers it */
  observeWrite(obj: KubeObject): void {
    for (const inf of this.resolved) inf.observeWrite(obj);
  }

  /** starts every informer created so far and every one created later */
  start(): void {
    this.started = true;
    for (const inf of this.resolved) inf.start();
  }

  /** resolves once every informer created so far has listed */
  async waitForSync(): Promise<void> {
    await Promise.all([...this.informers.values()].map(async (p) => (await p).synced));
  }

  /** true when every informer has listed at least once (the readiness signal) */
  get hasSynced(): boolean {
    for (const inf of this.resolved) if (!inf.hasSynced) return false;
    return this.resolved.size === this.informers.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = await Promise.allSettled([...this.informers.values()]);
    await Promise.all(all.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
  }

  private assertStarted(kind: KindRef<any>, op: string): void {
    // reading before start would wait for a sync that never comes
    if (!this.started) throw new Error(`cache: ${op} ${kind.kind} before the cache was started (call start() first)`);
  }

  private effectiveSpec(kind: KindRef<any>, spec: InformerSpec | undefined): InformerSpec {
    const s: InformerSpec = { ...(spec ?? this.defaults.get(kindId(kind)) ?? {}) };
    if (s.namespace === undefined && this.opts.namespace) s.namespace = this.opts.namespace;
    return s;
  }

  private async createInformer<T extends KubeObject>(kind: KindRef<T>, spec: InformerSpec): Promise<Informer<T>> {
    const mapping = await this.opts.client.mapping(kind);
    const inf = new Informer<T>({
      transport: this.opts.client.transport,
      mapping,
      ...(mapping.namespaced && spec.namespace ? { namespace: spec.namespace } : {}),
      ...(spec.labelSelector ? { labelSelector: spec.labelSelector } : {}),
      ...(spec.fieldSelector ? { fieldSelector: spec.fieldSelector } : {}),
      metadataOnly: spec.metadataOnly ?? false,
      indexers: this.indexers.get(kindId(kind)) ?? {},
      ...(this.opts.tuning ?? {}),
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      ...(this.opts.metrics ? { metrics: this.opts.metrics } : {}),
    });
    this.resolved.add(inf);
    if (this.started && !this.stopped) inf.start();
    return inf;
  }
}

function kindId(kind: KindRef<any>): string {
  return `${kind.apiVersion}|${kind.kind}`;
}

function informerKey(kind: KindRef<any>, spec: InformerSpec): string {
  const sel = spec.labelSelector ? parseSelector(spec.labelSelector).toString() : '';
  return `${kindId(kind)}|ns=${spec.namespace ?? ''}|ls=${sel}|fs=${spec.fieldSelector ?? ''}|meta=${spec.metadataOnly ? 1 : 0}`;
}
