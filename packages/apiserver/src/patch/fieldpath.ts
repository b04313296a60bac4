// Field paths and field sets as structured-merge-diff models them, with the fieldsV1 encoding stored
// in metadata.managedFields. A set is a trie: each node is either a member (the field itself is in
// the set), a parent of further members, or both — fieldsV1 writes the "both" case as `".": {}`.
// Sets are built once (insert) and then only combined into new sets, which may share subtrees.
import { isObject, type JsonObject } from './json-value.ts';

import {
  compareTokens,
  type FieldPath,
  FieldPathError,
  fieldToken,
  type PathElement,
  parseToken,
  peToken,
} from './path-elements.ts';

function compareNodes(a: [string, SetNode], b: [string, SetNode]): number {
  return compareTokens(a[0], a[1].pe, b[0], b[1].pe);
}

// Most levels of a set are small; a stable insertion sort there saves Array#sort's call overhead
// and gives the same order (both are stable).
export const SMALL_SORT = 24;

function insertionSort(a: Array<[string, SetNode]>): Array<[string, SetNode]> {
  for (let i = 1; i < a.length; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= 0 && compareNodes(a[j]!, x) > 0) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
  return a;
}

/**
 * A path as a chain from its last element up to the root, each element with its token, so walkers
 * extend a path without copying it and inserting needs no token encoding. `memo` remembers the node
 * this path last resolved to in a set under construction (nodes there are only ever added).
 */
export interface PathLink {
  parent: PathLink | undefined;
  pe: PathElement;
  tok: string;
  memo?: { root: FieldSet; node: SetNode };
}

export function fieldLink(parent: PathLink | undefined, field: string): PathLink {
  return { parent, pe: { field }, tok: fieldToken(field) };
}

/** Inserts paths below one member node of a set under construction. */
export class SubtreeBuilder {
  constructor(private readonly node: SetNode) {}

  /** Inserts the child `pe` (whose token is `tok`) as a member and returns the builder below it. */
  member(tok: string, pe: PathElement): SubtreeBuilder {
    return new SubtreeBuilder(FieldSet.memberNode(FieldSet.childrenOf(this.node), tok, pe));
  }
}

interface SetNode {
  pe: PathElement;
  member: boolean;
  children: FieldSet | undefined;
}

const decoded = new WeakMap<object, FieldSet>();

/**
 * The `{}` of every leaf (and of every `"."`) in the fieldsV1 the server writes. Most of a fieldsV1 tree
 * is such leaves, and stored objects keep their managedFields for good: sharing one (frozen, since
 * fieldsV1 trees are only ever read) keeps them out of every object's footprint.
 */
export const EMPTY_FIELDS: JsonObject = Object.freeze({}) as JsonObject;

export class FieldSet {
  private readonly nodes = new Map<string, SetNode>();
  private sortedCache: Array<[string, SetNode]> | undefined;

  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let set: FieldSet = this;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i]!;
      const tok = peToken(pe);
      set.sortedCache = undefined;
      let node = set.nodes.get(tok);
      if (!node) {
        node = { pe, member: false, children: undefined };
        set.nodes.set(tok, node);
      }
      if (i === path.length - 1) node.member = true;
      else set = node.children ??= new FieldSet();
    }
  }

  /** insert() for a linked path; the same set as inserting the path's elements in order. */
  insertLink(link: PathLink): void {
    this.nodeAt(link).member = true;
  }

  /**
   * Inserts a path and returns a builder for paths below it, for walkers that record a whole
   * subtree (the same set as inserting each of its paths).
   */
  insertSubtree(link: PathLink): SubtreeBuilder {
    const node = this.nodeAt(link);
    node.member = true;
    return new SubtreeBuilder(node);
  }

  /** The child set of a node, created on first use (for SubtreeBuilder). */
  static childrenOf(node: SetNode): FieldSet {
    if (node.children) {
      node.children.sortedCache = undefined;
      return node.children;
    }
    return (node.children = new FieldSet());
  }

  /** Inserts one element as a member of this set, returning its node (for SubtreeBuilder). */
  static memberNode(set: FieldSet, tok: string, pe: PathElement): SetNode {
    let node = set.nodes.get(tok);
    if (!node) {
      node = { pe, member: true, children: undefined };
      set.nodes.set(tok, node);
    } else node.member = true;
    return node;
  }

  private nodeAt(link: PathLink): SetNode {
    if (link.memo?.root === this) return link.memo.node;
    const set: FieldSet = link.parent ? (this.nodeAt(link.parent).children ??= new FieldSet()) : this;
    set.sortedCache = undefined;
    let node = set.nodes.get(link.tok);
    if (!node) {
      node = { pe: link.pe, member: false, children: undefined };
      set.nodes.set(link.tok, node);
    }
    link.memo = { root: this, node };
    return node;
  }

  has(path: FieldPath): boolean {
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length && set; i++) {
      const node = set.nodes.get(peToken(path[i]!));
      if (!node) return false;
      if (i === path.length - 1) return node.member;
      set = node.children;
    }
    return false;
  }

  isEmpty(): boolean {
    return this.nodes.size === 0;
  }

  /** The set below one path element (SMD WithPrefix), or undefined. */
  child(pe: PathElement): FieldSet | undefined {
    return this.nodes.get(peToken(pe))?.children;
  }

  hasMember(pe: PathElement): boolean {
    return this.nodes.get(peToken(pe))?.member ?? false;
  }

  /** Nodes in SMD order. */
  entries(): Array<[string, SetNode]> {
    if (!this.sortedCache) {
      // (a for-of copy: spreading a Map iterator is several times slower for the small levels most sets have)
      const all: Array<[string, SetNode]> = [];
      for (const e of this.nodes) all.push(e);
      this.sortedCache = all.length > SMALL_SORT ? all.sort(compareNodes) : insertionSort(all);
    }
    return this.sortedCache;
  }

  private static build(nodes: Iterable<[string, SetNode]>): FieldSet {
    const out = new FieldSet();
    for (const [tok, n] of nodes) {
      const children = n.children && !n.children.isEmpty() ? n.children : undefined;
      if (n.member || children) out.nodes.set(tok, { pe: n.pe, member: n.member, children });
    }
    return out;
  }

  union(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    const merged = new Map(this.nodes);
    for (const [tok, b] of o.nodes) {
      const a = merged.get(tok);
      if (!a) merged.set(tok, b);
      else {
        const children = a.children && b.children ? a.children.union(b.children) : (a.children ?? b.children);
        merged.set(tok, { pe: a.pe, member: a.member || b.member, children });
      }
    }
    return FieldSet.build(merged);
  }

  intersection(o: FieldSet): FieldSet {
    const out: Array<[string, SetNode]> = [];
    for (const [tok, a] of this.nodes) {
      const b = o.nodes.get(tok);
      if (!b) continue;
      const children = a.children && b.children ? a.children.intersection(b.children) : undefined;
      out.push([tok, { pe: a.pe, member: a.member && b.member, children }]);
    }
    return FieldSet.build(out);
  }

  difference(o: FieldSet): FieldSet {
    if (o.isEmpty() || this.isEmpty()) return this;
    const out: Array<[string, SetNode]> = [];
    for (const [tok, a] of this.nodes) {
      const b = o.nodes.get(tok);
      if (!b) out.push([tok, a]);
      else {
        const children = a.children && b.children ? a.children.difference(b.children) : a.children;
        out.push([tok, { pe: a.pe, member: a.member && !b.member, children }]);
      }
    }
    return FieldSet.build(out);
  }

  /** Removes every path that is in `o` or lies below a member of `o`. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.isEmpty() || this.isEmpty()) return this;
    const out: Array<[string, SetNode]> = [];
    for (const [tok, a] of this.nodes) {
      const b = o.nodes.get(tok);
      if (!b) out.push([tok, a]);
      else if (!b.member) {
        const children = a.children && b.children ? a.children.recursiveDifference(b.children) : a.children;
        out.push([tok, { pe: a.pe, member: a.member, children }]);
      }
    }
    return FieldSet.build(out);
  }

  /** Keeps only the subtree under one top-level field (the field itself included). */
  onlyUnder(field: string): FieldSet {
    const tok = peToken({ field });
    const n = this.nodes.get(tok);
    return n ? FieldSet.build([[tok, n]]) : new FieldSet();
  }

  /** Rebuilds the set with a transformation of each node (used by schema-aware passes). */
  mapNodes(
    fn: (
      pe: PathElement,
      member: boolean,
      children: FieldSet | undefined,
    ) => { member: boolean; children: FieldSet | undefined },
  ): FieldSet {
    const out: Array<[string, SetNode]> = [];
    for (const [tok, n] of this.nodes) out.push([tok, { pe: n.pe, ...fn(n.pe, n.member, n.children) }]);
    return FieldSet.build(out);
  }

  /** Member paths in SMD iteration order: this level's members, then each child subtree. */
  paths(prefix: FieldPath = []): FieldPath[] {
    const out: FieldPath[] = [];
    const entries = this.entries();
    for (const [, n] of entries) if (n.member) out.push([...prefix, n.pe]);
    for (const [, n] of entries) if (n.children) out.push(...n.children.paths([...prefix, n.pe]));
    return out;
  }

  equals(o: FieldSet): boolean {
    if (this.nodes.size !== o.nodes.size) return false;
    for (const [tok, a] of this.nodes) {
      const b = o.nodes.get(tok);
      if (!b || a.member !== b.member) return false;
      if (!a.children !== !b.children) return false;
      if (a.children && b.children && !a.children.equals(b.children)) return false;
    }
    return true;
  }

  /** The fieldsV1 object: children in SMD order, `"."` first where a node is also a member. */
  toFieldsV1(): JsonObject {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): JsonObject {
    const out: JsonObject = {};
    if (includeSelf && !this.isEmpty()) out['.'] = EMPTY_FIELDS;
    for (const [tok, n] of this.entries()) out[tok] = n.children ? n.children.emit(n.member) : EMPTY_FIELDS;
    return out;
  }

  static fromFieldsV1(v: unknown): FieldSet {
    if (!isObject(v)) throw new FieldPathError('fieldsV1 must be a JSON object');
    // Stored objects hand the same fieldsV1 to every request; sets are never mutated once read.
    let set = decoded.get(v);
    if (!set) {
      set = FieldSet.read(v).set;
      decoded.set(v, set);
    }
    return set;
  }

  private static read(obj: JsonObject): { set: FieldSet; member: boolean } {
    const set = new FieldSet();
    let member = false;
    for (const [k, v] of Object.entries(obj)) {
      if (k === '.') {
        member = true;
        continue;
      }
      const pe = parseToken(k);
      if (!pe) continue;
      if (!isObject(v)) throw new FieldPathError(`fieldsV1 entry ${k} must be an object`);
      const child = FieldSet.read(v);
      const tok = peToken(pe);
      set.nodes.set(tok, { pe, member: child.member, children: child.set.isEmpty() ? undefined : child.set });
    }
    if (set.isEmpty()) member = true;
    return { set, member };
  }
}
