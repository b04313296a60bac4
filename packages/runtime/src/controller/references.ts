// Watches the objects that other objects name in their spec (a pull Secret in `imagePullSecrets`), so a
// referenced object's creation, change or deletion reconciles whoever references it at once — without
// listing or caching the referenced kind. Each referenced object gets its own metadata-only watch pinned by
// `fieldSelector=metadata.name=<name>` and started without a list (RBAC: `watch` alone; the API server
// authorizes such a watch as that one name), opened when the first object references it and closed when
// the last reference goes. A watch whose history expired while it was down starts again from nothing and
// reads the object once by name (`get`): a deletion meanwhile would send no event. Objects nobody references are never seen: their events never reach the process.
//
// The references come from the referencing kinds' informers (the cache the controllers already hold). A
// watch's first events (the object as it is when the watch starts) count as a change too: the referencing
// object may have been reconciled while the referenced one did not exist yet, and the watch is what tells.

import type { Cache } from '../cache/cache.ts';
import type { ListWatchTuning } from '../cache/informer.ts';
import { ListWatch } from '../cache/listwatch.ts';
import type { KubeClient } from '../client/client.ts';
import { isNotFound } from '../client/errors.ts';
import { collectionPath, type ResourceMapping } from '../client/mapper.ts';
import type { Logger } from '../log.ts';
import { type KindRef, type KubeObject, keyOf, type ObjectKey, objectKeyString } from '../meta/types.ts';
import type { RuntimeMetrics } from '../metrics.ts';
import type { Controller } from './controller.ts';

const PARTIAL_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** one referencing kind: where its objects' references come from, and which controller reconciles them */
export interface ReferencingSource<T extends KubeObject = KubeObject> {
  kind: KindRef<T>;
  controller: Pick<Controller, 'enqueueChange'>;
  /** the referenced objects `obj` names (namespace '' for cluster-scoped ones); duplicates are fine */
  references(obj: T): ObjectKey[];
}

export interface ReferencedObjectWatchOptions {
  /** names the runnable in logs, e.g. `aim-secret-references` */
  name: string;
  /** the referenced kind (e.g. core/v1 Secret) */
  kind: KindRef<any>;
  client: KubeClient;
  cache: Cache;
  sources: ReadonlyArray<ReferencingSource<any>>;
  tuning?: ListWatchTuning;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

interface Watched {
  listWatch: ListWatch;
  /** the resourceVersion last delivered; undefined: not seen yet, or deleted */
  resourceVersion: string | undefined;
}

interface SourceRefs {
  /** referencing object key → the referenced keys it names */
  refsOf: Map<string, string[]>;
  /** referenced key → referencing object keys */
  owners: Map<string, Set<string>>;
}

/** a manager Runnable (leader only, like the controllers it feeds) */
export class ReferencedObjectWatch {
  readonly name: string;
  private readonly watches = new Map<string, Watched>();
  private readonly refs: SourceRefs[];
  private unsubscribe: Array<() => void> = [];
  private mapping: ResourceMapping | undefined;
  private running = false;

  constructor(private readonly opts: ReferencedObjectWatchOptions) {
    this.name = opts.name;
    this.refs = opts.sources.map(() => ({ refsOf: new Map(), owners: new Map() }));
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.mapping = await this.opts.client.mapping(this.opts.kind);
    for (const [i, source] of this.opts.sources.entries()) {
      const inf = await this.opts.cache.informer(source.kind);
      this.unsubscribe.push(
        inf.addHandler({
          add: (obj) => this.track(i, obj),
          update: (_old, obj) => this.track(i, obj),
          delete: (obj) => this.track(i, obj, true),
        }),
      );
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    const open = [...this.watches.values()];
    this.watches.clear();
    for (const r of this.refs) {
      r.refsOf.clear();
      r.owners.clear();
    }
    this.opts.metrics?.referencedWatches.set({ name: this.name }, 0);
    await Promise.all(open.map((w) => w.listWatch.stop()));
  }

  /** the referenced objects watched now (`namespace/name`), sorted */
  watched(): string[] {
    return [...this.watches.keys()].sort();
  }

  /** the resourceVersion last seen of a referenced object; undefined while unknown, absent or not referenced */
  resourceVersion(namespace: string, name: string): string | undefined {
    return this.watches.get(objectKeyString(namespace, name))?.resourceVersion;
  }

  private track(i: number, obj: KubeObject, deleted = false): void {
    if (!this.running) return;
    const { refsOf, owners } = this.refs[i]!;
    const owner = keyOf(obj);
    const before = refsOf.get(owner) ?? [];
    const now = deleted
      ? []
      : [...new Set(this.opts.sources[i]!.references(obj).map((k) => objectKeyString(k.namespace, k.name)))];
    if (now.length > 0) refsOf.set(owner, now);
    else refsOf.delete(owner);
    for (const ref of now) {
      let set = owners.get(ref);
      if (!set) owners.set(ref, (set = new Set()));
      set.add(owner);
      this.open(ref);
    }
    for (const ref of before) {
      if (now.includes(ref)) continue;
      const set = owners.get(ref);
      set?.delete(owner);
      if (set?.size === 0) owners.delete(ref);
      this.closeIfUnreferenced(ref);
    }
  }

  private open(ref: string): void {
    if (this.watches.has(ref) || !this.mapping) return;
    const slash = ref.indexOf('/');
    const namespace = slash < 0 ? undefined : ref.slice(0, slash);
    const name = slash < 0 ? ref : ref.slice(slash + 1);
    const resource = this.mapping.group ? `${this.mapping.resource}.${this.mapping.group}` : this.mapping.resource;
    const watched: Watched = {
      resourceVersion: undefined,
      listWatch: new ListWatch({
        transport: this.opts.client.transport,
        path: collectionPath(this.mapping, this.mapping.namespaced ? namespace : undefined),
        resource,
        fieldSelector: `metadata.name=${name}`,
        watchAccept: PARTIAL_WATCH_ACCEPT,
        watchOnly: true,
        handler: {
          replace: () => undefined,
          event: (type, obj) => this.changed(ref, type, obj),
          restarted: () => void this.recheck(ref, namespace, name),
        },
        ...(this.opts.tuning ?? {}),
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
        ...(this.opts.metrics ? { metrics: this.opts.metrics } : {}),
      }),
    };
    this.watches.set(ref, watched);
    this.opts.metrics?.referencedWatches.set({ name: this.name }, this.watches.size);
    watched.listWatch.start();
  }

  private closeIfUnreferenced(ref: string): void {
    if (this.refs.some((r) => r.owners.has(ref))) return;
    const w = this.watches.get(ref);
    if (!w) return;
    this.watches.delete(ref);
    this.opts.metrics?.referencedWatches.set({ name: this.name }, this.watches.size);
    void w.listWatch.stop();
  }

  /**
   * After a restart from nothing (history expired while the watch was down): a deletion meanwhile sends no
   * event, so the object is read once by name. Gone → a deletion; there → its version, as an event would
   * (the watch's replay of the same version then adds nothing). A read that fails leaves it to the watch.
   */
  private async recheck(ref: string, namespace: string | undefined, name: string): Promise<void> {
    const m = this.mapping;
    if (!m || !this.watches.has(ref)) return;
    try {
      const res = await this.opts.client.transport.request({
        method: 'GET',
        path: `${collectionPath(m, m.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`,
        accept: PARTIAL_WATCH_ACCEPT,
      });
      const obj = res.body as KubeObject;
      this.changed(ref, 'MODIFIED', { ...obj, metadata: obj.metadata ?? { name, namespace } });
    } catch (err) {
      if (isNotFound(err) && this.watches.get(ref)?.resourceVersion !== undefined)
        this.changed(ref, 'DELETED', { metadata: { name, ...(namespace ? { namespace } : {}) } } as KubeObject);
      else this.opts.logger?.debug('referenced object not read after a restart', { object: ref, error: err });
    }
  }

  private changed(ref: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeObject): void {
    const w = this.watches.get(ref);
    if (!w) return;
    const rv = type === 'DELETED' ? undefined : obj.metadata.resourceVersion;
    // a restarted watch replays the object as it is: the same version is no change
    const unchanged = type !== 'DELETED' && rv === w.resourceVersion;
    this.opts.metrics?.referencedEvents.inc({ name: this.name, outcome: unchanged ? 'unchanged' : 'changed' });
    if (unchanged) return;
    w.resourceVersion = rv;
    for (const [i, source] of this.opts.sources.entries()) {
      const keys = this.refs[i]!.owners.get(ref);
      if (keys?.size) source.controller.enqueueChange([...keys], type === 'DELETED' ? undefined : obj);
    }
    this.opts.logger?.debug('referenced object changed', { object: ref, type, resourceVersion: rv });
  }
}
