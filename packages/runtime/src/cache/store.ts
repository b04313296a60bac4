// The informer's store: objects by `namespace/name`, frozen, with secondary indexes kept up to date on
// every change so controllers can answer "children of owner X" or "objects in namespace Y" without a scan.

import { deepFreeze } from '../meta/freeze.ts';
import { type KubeObject, keyOf, objectKeyString } from '../meta/types.ts';

/** returns the index values an object is filed under (none: not indexed) */
export type IndexFunc = (obj: KubeObject) => string[];

export const INDEX_NAMESPACE = 'namespace';
/** every ownerReference uid of the object */
export const INDEX_OWNER = 'owner';

export const builtinIndexers: Record<string, IndexFunc> = {
  [INDEX_NAMESPACE]: (obj) => [obj.metadata.namespace ?? ''],
  [INDEX_OWNER]: (obj) => (obj.metadata.ownerReferences ?? []).map((r) => r.uid),
};

export type StoreChange<T> = { type: 'add'; obj: T } | { type: 'update'; old: T; obj: T } | { type: 'delete'; obj: T };

export class Store<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc> = {}) {
    for (const [name, fn] of Object.entries({ ...builtinIndexers, ...indexers })) {
      this.indexers.set(name, fn);
      this.indices.set(name, new Map());
    }
  }

  /** adds an index; existing objects are filed immediately. Adding a name twice with another function is an error. */
  addIndexer(name: string, fn: IndexFunc): void {
    const existing = this.indexers.get(name);
    if (existing === fn) return;
    if (existing) throw new Error(`store: index "${name}" already exists with a different function`);
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, obj] of this.objects) this.fileUnder(index, fn, key, obj);
  }

  hasIndex(name: string): boolean {
    return this.indexers.has(name);
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  getByName(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(objectKeyString(namespace, name));
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`store: no index named "${indexName}" (known: ${[...this.indices.keys()].join(', ')})`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) out.push(this.objects.get(k)!);
    return out;
  }

  /** inserts or replaces; returns the previous object if there was one */
  upsert(obj: T): T | undefined {
    deepFreeze(obj);
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (old) this.unindex(key, old);
    this.objects.set(key, obj);
    this.index(key, obj);
    return old;
  }

  remove(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  /**
   * Replaces the whole content (after a list) and returns what changed, so consumers see deletions that
   * happened while the watch was down. Objects with an unchanged resourceVersion are not reported.
   */
  replace(items: T[]): StoreChange<T>[] {
    const changes: StoreChange<T>[] = [];
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.upsert(obj);
      if (!old) changes.push({ type: 'add', obj });
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
        changes.push({ type: 'update', old, obj });
    }
    for (const key of [...this.objects.keys()]) {
      if (seen.has(key)) continue;
      const old = this.remove(key)!;
      changes.push({ type: 'delete', obj: old });
    }
    return changes;
  }

  private index(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) this.fileUnder(this.indices.get(name)!, fn, key, obj);
  }

  private fileUnder(index: Map<string, Set<string>>, fn: IndexFunc, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let set = index.get(v);
      if (!set) index.set(v, (set = new Set()));
      set.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) index.delete(v);
      }
    }
  }
}
