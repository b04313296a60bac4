// "Which objects refer to X": each holder records the keys it refers to (owner uids, a class name, a
// target), and a lookup by key returns the holders, costing the number of holders rather than a scan of
// every object. Recording a holder again replaces what it referred to before, so the index follows edits.

export class ReverseIndex {
  private readonly refsOf = new Map<string, readonly string[]>();
  private readonly holders = new Map<string, Set<string>>();

  /** `holder` now refers to exactly `refs` (none: forgotten) */
  set(holder: string, refs: readonly string[]): void {
    this.delete(holder);
    const unique = [...new Set(refs)];
    if (unique.length === 0) return;
    this.refsOf.set(holder, unique);
    for (const ref of unique) {
      let set = this.holders.get(ref);
      if (!set) {
        set = new Set();
        this.holders.set(ref, set);
      }
      set.add(holder);
    }
  }

  delete(holder: string): void {
    for (const ref of this.refsOf.get(holder) ?? []) {
      const set = this.holders.get(ref);
      set?.delete(holder);
      if (set?.size === 0) this.holders.delete(ref);
    }
    this.refsOf.delete(holder);
  }

  /** what `holder` refers to */
  refsFrom(holder: string): readonly string[] {
    return this.refsOf.get(holder) ?? [];
  }

  /** a snapshot of the holders that refer to `ref` (safe to iterate while the index changes) */
  holdersOf(ref: string): string[] {
    const set = this.holders.get(ref);
    return set ? [...set] : [];
  }

  hasHolders(ref: string): boolean {
    return this.holders.has(ref);
  }

  /** number of holders that refer to something */
  get size(): number {
    return this.refsOf.size;
  }
}
