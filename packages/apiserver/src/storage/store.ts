// The object store: every object of every resource, a cluster-wide monotonic resourceVersion, and a
// bounded per-resource history so watches can resume from a resourceVersion. Stored objects are never
// mutated (a write stores a new object, and they are frozen: immutable.ts), so lists, watch events and
// cached JSON share references safely.
import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { deepFreeze } from './immutable.ts';

export type StoredEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  type: StoredEventType;
  object: KubeObject;
  /** the object before this write, for MODIFIED and DELETED (selector transitions need it) */
  prev?: KubeObject;
  rv: number;
  storageKey: string;
}

export type WatchListener = (event: StoredEvent) => void;

/** Receives every committed write, in order; persistence implements it. */
export interface WriteSink {
  write(event: StoredEvent, rv: number): void;
}

const DEFAULT_HISTORY = 10_000;

class Table {
  readonly items = new Map<string, KubeObject>();
  /**
   * The most recent events are history[historyStart…]. Dropping the oldest only advances the start
   * (the array is compacted now and then): splicing the front off on every write of a full history
   * moved the whole window each time.
   */
  history: StoredEvent[] = [];
  historyStart = 0;
  /** events at or below this resourceVersion are gone: a watch from an older RV gets 410 */
  compactedRv = 0;
  readonly listeners = new Set<WatchListener>();
  sortedKeys: string[] | undefined;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class ObjectStore {
  private rv = 0;
  /** history floor for tables created later (after compaction or a restart nothing older can be replayed) */
  private floorRv = 0;
  /**
   * etcd's compacted revision: a list at an exact resourceVersion below it gets 410. Watches do not look
   * at it: kube-apiserver serves them from its watch cache, which etcd's compaction leaves alone (the
   * per-resource compactedRv is that cache's window).
   */
  private storageCompactedRv = 0;
  private readonly tables = new Map<string, Table>();
  /** store-wide listeners (in-server controllers), called after the resource's own watchers */
  private readonly allListeners = new Set<WatchListener>();
  sink: WriteSink | undefined;

  constructor(private readonly historyLimit = DEFAULT_HISTORY) {}

  currentRv(): number {
    return this.rv;
  }

  /** Used when loading persisted state. */
  setRv(rv: number): void {
    this.rv = rv;
  }

  private table(storageKey: string): Table {
    let t = this.tables.get(storageKey);
    if (!t) {
      t = new Table();
      t.compactedRv = this.floorRv;
      this.tables.set(storageKey, t);
    }
    return t;
  }

  storageKeys(): string[] {
    return [...this.tables.keys()];
  }

  get(storageKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.tables.get(storageKey)?.items.get(objectKey(namespace, name));
  }

  count(storageKey: string): number {
    return this.tables.get(storageKey)?.items.size ?? 0;
  }

  /** All objects of a resource (optionally one namespace), sorted by key as etcd returns them. */
  list(storageKey: string, namespace?: string): KubeObject[] {
    const t = this.tables.get(storageKey);
    if (!t) return [];
    if (!t.sortedKeys) t.sortedKeys = [...t.items.keys()].sort();
    const out: KubeObject[] = [];
    if (namespace) {
      const prefix = `${namespace}/`;
      for (const k of t.sortedKeys) if (k.startsWith(prefix)) out.push(t.items.get(k)!);
    } else {
      for (const k of t.sortedKeys) out.push(t.items.get(k)!);
    }
    return out;
  }

  /**
   * Commits a write. `object` must already carry everything but its resourceVersion, which is assigned
   * here. Returns the stored object.
   */
  commit(storageKey: string, type: StoredEventType, object: KubeObject): KubeObject {
    const t = this.table(storageKey);
    const key = objectKey(object.metadata.namespace, object.metadata.name!);
    const prev = t.items.get(key);
    const rv = ++this.rv;
    const stored: KubeObject = deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    const event: StoredEvent = { type, object: stored, rv, storageKey, ...(prev ? { prev } : {}) };
    // Log before changing memory: if persistence refuses the write, nothing observable changed.
    try {
      this.sink?.write(event, rv);
    } catch (e) {
      this.rv--;
      throw e;
    }
    if (type === 'DELETED') {
      t.items.delete(key);
      t.sortedKeys = undefined;
    } else {
      if (!prev) t.sortedKeys = undefined;
      t.items.set(key, stored);
    }
    this.record(t, event);
    return stored;
  }

  /** Loads an object from persistence without emitting an event. */
  load(storageKey: string, object: KubeObject): void {
    const t = this.table(storageKey);
    t.items.set(objectKey(object.metadata.namespace, object.metadata.name!), deepFreeze(object));
    t.sortedKeys = undefined;
  }

  /** Drops an object loaded from persistence (a logged delete replayed). */
  unload(storageKey: string, namespace: string | undefined, name: string): void {
    const t = this.tables.get(storageKey);
    if (t?.items.delete(objectKey(namespace, name))) t.sortedKeys = undefined;
  }

  private record(t: Table, event: StoredEvent): void {
    t.history.push(event);
    if (t.history.length - t.historyStart > this.historyLimit) {
      t.historyStart = t.history.length - this.historyLimit;
      t.compactedRv = t.history[t.historyStart - 1]!.rv;
      if (t.historyStart >= this.historyLimit) {
        t.history = t.history.slice(t.historyStart);
        t.historyStart = 0;
      }
    }
    for (const l of t.listeners) l(event);
    for (const l of this.allListeners) l(event);
  }

  /** Subscribes to every committed write of every resource from now on (no replay, never 410). */
  watchAll(listener: WatchListener): () => void {
    this.allListeners.add(listener);
    return () => this.allListeners.delete(listener);
  }

  /**
   * Subscribes to a resource's events after `fromRv`. Events already in history are replayed first
   * (synchronously); throws 410 Gone when `fromRv` is older than the retained history.
   */
  watch(storageKey: string, fromRv: number, listener: WatchListener): () => void {
    const t = this.table(storageKey);
    if (fromRv < t.compactedRv) {
      throw errors.gone(`too old resource version: ${fromRv} (${t.compactedRv + 1})`);
    }
    // A listener may commit while replaying; its events are appended (and the array possibly compacted).
    let last = fromRv;
    for (let h = t.history, i = t.historyStart; ; ) {
      if (h !== t.history) {
        h = t.history;
        i = t.historyStart;
      }
      if (i >= h.length) break;
      const e = h[i++]!;
      if (e.rv <= last) continue;
      last = e.rv;
      listener(e);
    }
    t.listeners.add(listener);
    return () => t.listeners.delete(listener);
  }

  /** Forgets all history (fault injection and restarts): a watch from any earlier RV gets 410. */
  compact(): void {
    this.floorRv = this.rv;
    for (const t of this.tables.values()) {
      t.history = [];
      t.historyStart = 0;
      t.compactedRv = this.rv;
    }
  }

  /** What etcd's compaction does (docs/apiserver.md): lists at an exact older resourceVersion get 410. */
  compactStorage(): void {
    this.storageCompactedRv = this.rv;
  }

  /** Throws 410 Gone, with kube's message, when a list at exactly `rv` asks for a compacted revision. */
  checkListableAt(rv: number): void {
    if (rv < this.storageCompactedRv) throw errors.gone('The resourceVersion for the provided list is too old.');
  }

  /** The oldest RV a watch may resume from for this resource. */
  compactedRv(storageKey: string): number {
    return this.table(storageKey).compactedRv;
  }
}
