// A reverse index "which objects refer to X", kept by a simulator as it reconciles, so that a watch on X
// can map X's events back to the objects that refer to it synchronously (map functions cannot await the
// cache). Every reconcile replaces the object's references, so the index follows spec changes.

export class RefIndex {
  private readonly refsOf = new Map<string, string[]>();
  private readonly holders = new Map<string, Set<string>>();

  /** `holder` now refers to exactly `refs` */
  set(holder: string, refs: string[]): void {
    this.delete(holder);
    const unique = [...new Set(refs)];
    this.refsOf.set(holder, unique);
    for (const r of unique) {
      let s = this.holders.get(r);
      if (!s) {
        s = new Set();
        this.holders.set(r, s);
      }
      s.add(holder);
    }
  }

  delete(holder: string): void {
    for (const r of this.refsOf.get(holder) ?? []) {
      const s = this.holders.get(r);
      s?.delete(holder);
      if (s?.size === 0) this.holders.delete(r);
    }
    this.refsOf.delete(holder);
  }

  /** the holders that refer to `ref` */
  lookup(ref: string): string[] {
    return [...(this.holders.get(ref) ?? [])];
  }
}
