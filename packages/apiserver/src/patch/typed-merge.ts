// Schema-aware merge and comparison of two objects, following structured-merge-diff's merging
// walker: scalars, atomic maps and atomic lists are leaves; granular maps merge key by key;
// associative lists (sets and maps with keys) merge item by item, keyed by their path element.
// When both sides are empty or null the node is a leaf too, which keeps the empty/null distinction.
import { FieldSet, fieldLink, type PathLink, type SubtreeBuilder } from './fieldpath.ts';
import { deepEqual, hasOwn, isObject, type Json, type JsonObject } from './json-value.ts';
import { fieldToken, type PathElement, peToken, sortKeyFields } from './path-elements.ts';
import { fieldSchema, type ListSchema, type PatchSchema, type StructSchema, structOfUntyped } from './schema.ts';

export type View = { kind: 'leaf' } | { kind: 'map'; s: StructSchema } | { kind: 'list'; s: ListSchema };
const LEAF: View = { kind: 'leaf' };

const mapLike = (v: Json | undefined) => v === undefined || v === null || isObject(v);
const listLike = (v: Json | undefined) => v === undefined || v === null || Array.isArray(v);

export function isEmptyish(v: Json | undefined): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/** How a node is walked given its schema and the values on both sides (a type mismatch is a leaf). */
export function viewOf(s: PatchSchema, a: Json | undefined, b: Json | undefined): View {
  switch (s.kind) {
    case 'scalar':
      return LEAF;
    case 'struct':
      return s.mapType === 'atomic' || !mapLike(a) || !mapLike(b) ? LEAF : { kind: 'map', s };
    case 'list':
      return s.listType === 'atomic' || !listLike(a) || !listLike(b) ? LEAF : { kind: 'list', s };
    case 'untyped': {
      const probe = b !== undefined && b !== null ? b : a;
      return isObject(probe) && mapLike(a) && mapLike(b) ? { kind: 'map', s: structOfUntyped(s) } : LEAF;
    }
  }
}

/** The path element of a list item, or the reason it has none. */
export function itemPE(list: ListSchema, item: Json): PathElement | string {
  if (list.listType === 'map') {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isObject(item)) return 'associative list with keys may not have non-map elements';
    const fields: Array<[string, Json]> = [];
    for (const k of list.keys ?? []) {
      if (hasOwn(item, k)) fields.push([k, item[k]!]);
      else if (list.keyDefaults && hasOwn(list.keyDefaults, k)) fields.push([k, list.keyDefaults[k]!]);
      else
        return `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`;
    }
    return { key: sortKeyFields(fields) };
  }
  if (isObject(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return { value: item };
}

export interface ListEntry {
  tok: string;
  pe: PathElement;
  value: Json;
  /** a repeated key (tolerated in live objects) */
  dup: boolean;
}

/** Items of an associative list with their path elements; items without one are keyed by index. */
export function indexList(list: ListSchema, arr: Json | undefined): ListEntry[] {
  if (!Array.isArray(arr)) return [];
  const seen = new Set<string>();
  return arr.map((value, index) => {
    const got = itemPE(list, value);
    const pe = typeof got === 'string' ? { index } : got;
    const tok = peToken(pe);
    const dup = seen.has(tok);
    seen.add(tok);
    return { tok, pe, value, dup };
  });
}

// ---- merge (apply: live ⊕ applied configuration; the configuration wins on leaves) ----

export function mergeTyped(lhs: Json | undefined, rhs: Json | undefined, s: PatchSchema): Json | undefined {
  if (rhs === undefined) return lhs;
  const v = viewOf(s, lhs, rhs);
  if (v.kind === 'leaf' || (isEmptyish(lhs) && isEmptyish(rhs))) return rhs;
  if (v.kind === 'map') return mergeMap(lhs, rhs, v.s);
  return mergeList(lhs, rhs, v.s);
}

function mergeMap(lhs: Json | undefined, rhs: Json, s: StructSchema): Json | undefined {
  // a null configuration for a non-empty map keeps the live entries (SMD merges with a nil map)
  if (!isObject(rhs)) return lhs;
  const lo = isObject(lhs) ? lhs : undefined;
  const out: JsonObject = {};
  if (lo) {
    for (const k of Object.keys(lo)) {
      if (!hasOwn(rhs, k)) {
        out[k] = lo[k]!;
        continue;
      }
      // an explicit null in the configuration unsets the field
      if (rhs[k] === null) continue;
      const m = mergeTyped(lo[k], rhs[k], fieldSchema(s, k));
      if (m !== undefined) out[k] = m;
    }
  }
  for (const k of Object.keys(rhs)) {
    if ((lo && hasOwn(lo, k)) || rhs[k] === null) continue;
    const m = mergeTyped(undefined, rhs[k], fieldSchema(s, k));
    if (m !== undefined) out[k] = m;
  }
  return out;
}

/** SMD's list order: live-only items keep their place, shared items follow the configuration's order. */
function mergeList(lhs: Json | undefined, rhs: Json, s: ListSchema): Json | undefined {
  if (!Array.isArray(rhs)) return lhs;
  const left = indexList(s, lhs);
  const right = indexList(s, rhs);
  const rmap = new Map(right.map((e) => [e.tok, e]));
  const lmap = new Map<string, ListEntry>();
  for (const e of left) if (!e.dup) lmap.set(e.tok, e);
  const shared = right.filter((e) => lmap.has(e.tok)).map((e) => e.tok);
  let si = 0;
  let next: string | undefined = shared[si++];
  const merged = new Set<string>();
  const out: Json[] = [];
  const push = (v: Json | undefined) => {
    if (v !== undefined) out.push(v);
  };
  let lI = 0;
  let rI = 0;
  while (lI < left.length || rI < right.length) {
    const le = left[lI];
    if (le && rI < right.length) {
      const re = right[rI]!;
      if (!le.dup && le.tok === re.tok) {
        push(mergeTyped(le.value, re.value, s.item));
        merged.add(le.tok);
        lI++;
        rI++;
        next = shared[si++];
        continue;
      }
      if (rmap.has(le.tok) && next !== undefined && next !== le.tok) {
        lI++;
        continue;
      }
    }
    if (le) {
      if (!rmap.has(le.tok)) {
        push(le.value);
        lI++;
        continue;
      }
      if (le.dup || merged.has(le.tok)) {
        lI++;
        continue;
      }
    }
    if (rI < right.length) {
      const re = right[rI]!;
      merged.add(re.tok);
      push(mergeTyped(lmap.get(re.tok)?.value, re.value, s.item));
      rI++;
      if (next === re.tok) next = shared[si++];
    } else lI++;
  }
  return out;
}

// ---- compare (which fields an update added, modified or removed) ----

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareTyped(lhs: Json | undefined, rhs: Json | undefined, s: PatchSchema): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  if (lhs !== undefined || rhs !== undefined) compareNode(lhs, rhs, s, undefined, c);
  return c;
}

// The root path is empty and never recorded.
function record(set: FieldSet, path: PathLink | undefined): void {
  if (path) set.insertLink(path);
}

function compareNode(
  l: Json | undefined,
  r: Json | undefined,
  s: PatchSchema,
  path: PathLink | undefined,
  c: Comparison,
): void {
  // A node only in the new object is added as a whole subtree (most of a create). (Not used for
  // removals: an undefined entry inside a removed subtree is recorded as added, below.)
  if (path && l === undefined && r !== undefined) {
    recordAdded(r, s, c.added.insertSubtree(path));
    return;
  }
  const v = viewOf(s, l, r);
  if (v.kind === 'leaf' || (isEmptyish(l) && isEmptyish(r))) {
    if (l === undefined) record(c.added, path);
    else if (r === undefined) record(c.removed, path);
    else if (!deepEqual(l, r)) record(c.modified, path);
    return;
  }
  if (v.kind === 'map') {
    const lo = isObject(l) ? l : undefined;
    const ro = isObject(r) ? r : undefined;
    if (lo)
      for (const k of Object.keys(lo))
        compareNode(lo[k], ro && hasOwn(ro, k) ? ro[k] : undefined, fieldSchema(v.s, k), fieldLink(path, k), c);
    if (ro)
      for (const k of Object.keys(ro))
        if (!lo || !hasOwn(lo, k)) compareNode(undefined, ro[k], fieldSchema(v.s, k), fieldLink(path, k), c);
  } else {
    const left = new Map<string, ListEntry>();
    for (const e of indexList(v.s, l)) if (!e.dup) left.set(e.tok, e);
    const right = new Map<string, ListEntry>();
    for (const e of indexList(v.s, r)) if (!e.dup) right.set(e.tok, e);
    for (const [tok, e] of left)
      compareNode(e.value, right.get(tok)?.value, v.s.item, { parent: path, pe: e.pe, tok }, c);
    for (const [tok, e] of right)
      if (!left.has(tok)) compareNode(undefined, e.value, v.s.item, { parent: path, pe: e.pe, tok }, c);
  }
  // non-leaf nodes are recorded only when they appear or disappear as a whole
  if (l === undefined) record(c.added, path);
  else if (r === undefined) record(c.removed, path);
}

/**
 * compareNode for a value only the new object has: every node it walks is added, the leaves as
 * leaves and the maps and lists after their children, so the subtree is inserted top-down at once.
 */
function recordAdded(x: Json | undefined, s: PatchSchema, at: SubtreeBuilder): void {
  const v = viewOf(s, undefined, x);
  if (v.kind === 'leaf' || isEmptyish(x)) return;
  if (v.kind === 'map') {
    const o = x as JsonObject;
    for (const k of Object.keys(o)) recordAdded(o[k], fieldSchema(v.s, k), at.member(fieldToken(k), { field: k }));
  } else {
    for (const e of indexList(v.s, x)) if (!e.dup) recordAdded(e.value, v.s.item, at.member(e.tok, e.pe));
  }
}
