// The fieldsV1 a create records for its manager, built in one walk over the new object. It is the
// same set recordWrite arrives at for a create (the typed comparison of the kind's Go zero value with
// the object, scoped to the main resource, minus the paths no manager owns), written straight into
// fieldsV1 instead of going through FieldSet tries, their set algebra and their emission: creates are
// most writes, and this bookkeeping was one of their largest costs.
//
// Against a zero value every recorded path is added or (where the zero holds `{}`/null and the object
// something else at a leaf) modified. Removals are dropped: a write owns added ∪ modified − removed,
// and no path is both. The differential check this was verified with compares it to recordWrite on
// random objects of every built-in schema and a CRD schema, byte for byte.
import { EMPTY_FIELDS, SMALL_SORT } from './fieldpath.ts';
import { deepEqual, hasOwn, isObject, type Json, type JsonObject } from './json-value.ts';
import { STRIPPED_METADATA_FIELDS } from './managed-fields.ts';
import { compareTokens, fieldToken, type PathElement } from './path-elements.ts';
import { fieldSchema, type PatchSchema, withZeroFields, zeroObject } from './schema.ts';
import { indexList, isEmptyish, type ListEntry, type View, viewOf } from './typed-merge.ts';

/**
 * One recorded path element: a member itself, or only the parent of members below it. Field entries
 * carry no element: fields order by their tokens alone (compareTokens never looks further).
 */
interface Entry {
  tok: string;
  pe: PathElement | undefined;
  member: boolean;
  kids: Entry[] | undefined;
}

/** kube's stripMetaManager paths below metadata (metadata itself and apiVersion/kind are handled at the root). */
const STRIPPED_META = new Set(STRIPPED_METADATA_FIELDS.map(fieldToken));
const ROOT_STRIPPED = new Set([fieldToken('apiVersion'), fieldToken('kind')]);
const METADATA = fieldToken('metadata');
const STATUS = fieldToken('status');
/** stands in for the element of a field entry, which compareTokens never reads */
const FIELD: PathElement = { field: '' };

const zeroObjects = new WeakMap<PatchSchema, JsonObject>();

/** The kind's Go zero value (never changed: the walk only reads it). */
function zeroOf(s: PatchSchema): JsonObject {
  let z = zeroObjects.get(s);
  if (!z) {
    z = withZeroFields(zeroObject(s) as JsonObject, s);
    zeroObjects.set(s, z);
  }
  return z;
}

/**
 * The fieldsV1 of a create under the main resource (`statusSubresource`: .status is not the writer's),
 * or undefined when the create owns nothing.
 */
export function createdFieldsV1(obj: JsonObject, s: PatchSchema, statusSubresource: boolean): JsonObject | undefined {
  const zero = zeroOf(s);
  const v = viewOf(s, zero, obj);
  // the root is never recorded itself; a kind whose root is not a map records nothing
  if (v.kind === 'leaf' || (isEmptyish(zero) && isEmptyish(obj))) return undefined;
  const kids = compareKids(zero, withZeroFields(obj, s), v);
  if (!kids) return undefined;
  const root: Entry[] = [];
  for (const e of kids) {
    if (statusSubresource && e.tok === STATUS) continue;
    if (ROOT_STRIPPED.has(e.tok)) e.member = false;
    else if (e.tok === METADATA) {
      e.member = false;
      if (e.kids) {
        for (const m of e.kids) if (STRIPPED_META.has(m.tok)) m.member = false;
        e.kids = e.kids.filter(kept);
        if (e.kids.length === 0) e.kids = undefined;
      }
    }
    if (kept(e)) root.push(e);
  }
  return root.length > 0 ? emit(root, false) : undefined;
}

function kept(e: Entry): boolean {
  return e.member || e.kids !== undefined;
}

/** compareNode of a zero value `l` with `r` at one path: the entry it records there, if any. */
function compareAt(
  l: Json | undefined,
  r: Json | undefined,
  s: PatchSchema,
  tok: string,
  pe: PathElement | undefined,
): Entry | undefined {
  if (l === undefined) return { tok, pe, member: true, kids: added(r, s) };
  const v = viewOf(s, l, r);
  if (v.kind === 'leaf' || (isEmptyish(l) && isEmptyish(r))) {
    // a value the zero has and the object lacks is a removal, which never ends up in a write's set
    if (r === undefined || deepEqual(l, r)) return undefined;
    return { tok, pe, member: true, kids: undefined };
  }
  const kids = compareKids(l, r, v);
  return kids ? { tok, pe, member: false, kids } : undefined;
}

function compareKids(l: Json | undefined, r: Json | undefined, v: View): Entry[] | undefined {
  const out: Entry[] = [];
  let e: Entry | undefined;
  if (v.kind === 'map') {
    const lo = isObject(l) ? l : undefined;
    const ro = isObject(r) ? r : undefined;
    if (lo) {
      for (const k of Object.keys(lo))
        if (
          (e = compareAt(lo[k], ro && hasOwn(ro, k) ? ro[k] : undefined, fieldSchema(v.s, k), fieldToken(k), undefined))
        )
          out.push(e);
    }
    if (ro) {
      for (const k of Object.keys(ro))
        if ((!lo || !hasOwn(lo, k)) && (e = compareAt(undefined, ro[k], fieldSchema(v.s, k), fieldToken(k), undefined)))
          out.push(e);
    }
  } else if (v.kind === 'list') {
    const left = unique(indexList(v.s, l));
    const right = unique(indexList(v.s, r));
    for (const [tok, x] of left) if ((e = compareAt(x.value, right.get(tok)?.value, v.s.item, tok, x.pe))) out.push(e);
    for (const [tok, x] of right)
      if (!left.has(tok) && (e = compareAt(undefined, x.value, v.s.item, tok, x.pe))) out.push(e);
  }
  return out.length > 0 ? out : undefined;
}

function unique(entries: ListEntry[]): Map<string, ListEntry> {
  const m = new Map<string, ListEntry>();
  for (const e of entries) if (!e.dup) m.set(e.tok, e);
  return m;
}

/** recordAdded: a value only the new object has; everything below it is a member. */
function added(x: Json | undefined, s: PatchSchema): Entry[] | undefined {
  const v = viewOf(s, undefined, x);
  if (v.kind === 'leaf' || isEmptyish(x)) return undefined;
  const out: Entry[] = [];
  if (v.kind === 'map') {
    const o = x as JsonObject;
    for (const k of Object.keys(o))
      out.push({ tok: fieldToken(k), pe: undefined, member: true, kids: added(o[k], fieldSchema(v.s, k)) });
  } else {
    for (const e of indexList(v.s, x))
      if (!e.dup) out.push({ tok: e.tok, pe: e.pe, member: true, kids: added(e.value, v.s.item) });
  }
  return out.length > 0 ? out : undefined;
}

/** FieldSet.toFieldsV1 of the entries: SMD order, `"."` first where a node is a member with children. */
function emit(entries: Entry[], includeSelf: boolean): JsonObject {
  const out: JsonObject = {};
  if (includeSelf) out['.'] = EMPTY_FIELDS;
  sortEntries(entries);
  for (const e of entries) out[e.tok] = e.kids ? emit(e.kids, e.member) : EMPTY_FIELDS;
  return out;
}

const byToken = (a: Entry, b: Entry) => compareTokens(a.tok, a.pe ?? FIELD, b.tok, b.pe ?? FIELD);

/**
 * SMD order. Most levels are small, and there a stable insertion sort avoids Array#sort's working
 * copies, which were a large share of what a create allocated. (Tokens are unique within a level.)
 */
function sortEntries(a: Entry[]): void {
  if (a.length > SMALL_SORT) {
    a.sort(byToken);
    return;
  }
  for (let i = 1; i < a.length; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= 0 && byToken(a[j]!, x) > 0) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
}
