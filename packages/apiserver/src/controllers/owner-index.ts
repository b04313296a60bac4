// The garbage collector's dependency graph: for every owner uid, the objects whose ownerReferences
// name it. Kept in step with the store by the collector's listener, so finding an owner's dependents
// costs the number of dependents, not a scan of every object.

/** An object's place in the store: storage key, namespace and name (none of which can hold `\n`). */
export function objectId(storageKey: string, namespace: string | undefined, name: string): string {
  return `${storageKey}\n${namespace ?? ''}\n${name}`;
}

export function parseObjectId(id: string): { storageKey: string; namespace: string | undefined; name: string } {
  const [storageKey = '', namespace = '', name = ''] = id.split('\n');
  return { storageKey, namespace: namespace || undefined, name };
}

export class OwnerIndex {
  private readonly dependents = new Map<string, Set<string>>();
  private readonly owners = new Map<string, string[]>();

  /** Records the owner uids of `id` (replacing what was recorded before). */
  set(id: string, ownerUids: string[]): void {
    this.delete(id);
    if (ownerUids.length === 0) return;
    this.owners.set(id, ownerUids);
    for (const uid of ownerUids) {
      let set = this.dependents.get(uid);
      if (!set) {
        set = new Set();
        this.dependents.set(uid, set);
      }
      set.add(id);
    }
  }

  delete(id: string): void {
    const previous = this.owners.get(id);
    if (!previous) return;
    this.owners.delete(id);
    for (const uid of previous) {
      const set = this.dependents.get(uid);
      if (!set) continue;
      set.delete(id);
      if (set.size === 0) this.dependents.delete(uid);
    }
  }

  /** the owner uids recorded for `id` */
  ownersOf(id: string): readonly string[] {
    return this.owners.get(id) ?? [];
  }

  /** a snapshot of the dependents of `ownerUid` (safe to iterate while the index changes) */
  dependentsOf(ownerUid: string): string[] {
    const set = this.dependents.get(ownerUid);
    return set ? [...set] : [];
  }

  hasDependents(ownerUid: string): boolean {
    return this.dependents.has(ownerUid);
  }

  /** number of objects with at least one owner */
  get size(): number {
    return this.owners.size;
  }
}
