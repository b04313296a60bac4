// Strategic merge patch for built-in kinds, as kube-apiserver applies it (strategicpatch's
// StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls): maps merge key by key and
// null deletes; lists follow the field's patchStrategy (merge by patchMergeKey, or replace); the
// directives `$patch: replace|delete`, `$retainKeys`, `$deleteFromPrimitiveList/<f>` and
// `$setElementOrder/<f>` work as documented. `$patch: merge` is rejected, as kube rejects it.
import { errors, StatusError } from '../errors.ts';
import { clone, hasOwn, isObject, type Json, type JsonObject } from './json-value.ts';
import { asPatchSchema, fieldSchema, type PatchSchema, structView, UNTYPED } from './schema.ts';
import {
  applyListDirectives,
  DIRECTIVE,
  deduplicateScalars,
  deleteFromSlice,
  mergeByKey,
  normalizeElementOrder,
  partitionByPresence,
  SmpError,
  sliceElementKind,
  smpErrors,
  validateAgainstOrder,
} from './smp-lists.ts';

const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/** Applies a strategic merge patch to a copy of `target`. `schema` is the kind's patch schema (untyped when absent). */
export function applyStrategicMergePatch(target: unknown, patch: unknown, schema?: unknown): unknown {
  if (!isObject(patch)) throw errors.badRequest('invalid JSON document');
  const original = isObject(target) ? clone(target) : {};
  try {
    return mergeMap(original, clone(patch), asPatchSchema(schema));
  } catch (e) {
    if (!(e instanceof SmpError)) throw e;
    if (e.status === 'badRequest') throw errors.badRequest(e.message);
    if (e.status === 'invalid')
      throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    // kube answers these with a bare 500; the request caused them, so 400 (same message)
    throw errors.badRequest(e.message);
  }
}

function childSchema(s: PatchSchema, key: string): PatchSchema {
  const st = structView(s);
  return st ? fieldSchema(st, key) : UNTYPED;
}

interface ListMeta {
  merge: boolean;
  mergeKey: string;
  item: PatchSchema;
}

function listMeta(s: PatchSchema): ListMeta {
  if (s.kind !== 'list') return { merge: false, mergeKey: '', item: UNTYPED };
  return { merge: s.patchStrategy === 'merge', mergeKey: s.patchMergeKey ?? '', item: s.item };
}

/** `<prefix>/<field>` → field */
function directiveTarget(key: string, prefix: string, bad: () => SmpError): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw bad();
  return key.slice(slash + 1);
}

function kindOf(v: Json): string {
  return v === null ? 'null' : Array.isArray(v) ? 'list' : isObject(v) ? 'map' : typeof v;
}

function mergeMap(original: JsonObject, patch: JsonObject, s: PatchSchema): JsonObject {
  if (hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    if (d === 'delete') return {};
    throw smpErrors.badPatchType(d, patch);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, s);
  for (const key of Object.keys(patch)) {
    const patchV = patch[key]!;
    let k = key;
    let isDeleteList = false;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = directiveTarget(key, DELETE_FROM_PRIMITIVE_LIST, smpErrors.badPrimitiveList);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    const cur = original[k];
    if (cur === undefined || kindOf(cur) !== kindOf(patchV)) {
      if (isDeleteList) continue;
      const v = newValue(patchV);
      if (v === undefined) delete original[k];
      else original[k] = v;
      continue;
    }
    const child = childSchema(s, k);
    if (isObject(cur)) {
      const replace = child.kind === 'struct' && child.patchStrategy === 'replace';
      original[k] = replace ? (patchV as JsonObject) : mergeMap(cur, patchV as JsonObject, child);
    } else if (Array.isArray(cur)) {
      const meta = listMeta(child);
      original[k] =
        meta.merge || isDeleteList ? mergeSlice(cur, patchV as Json[], meta, isDeleteList) : (patchV as Json[]);
    } else {
      original[k] = patchV;
    }
  }
  return original;
}

/** A value the live object did not have: nulls dropped, directive maps and keys removed (decoding drops them in kube). */
function newValue(v: Json): Json | undefined {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const x of v) {
      const kept = x === null ? x : newValue(x);
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }
  if (!isObject(v)) return v;
  if (hasOwn(v, DIRECTIVE)) return undefined;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null || k === RETAIN_KEYS || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER))
      continue;
    const kept = newValue(x);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

/** `$retainKeys`: every non-null patch key must be listed, and the live map keeps only the listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw smpErrors.badRetainKeys();
  const keep = new Set<Json>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw smpErrors.badRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** `$setElementOrder/<field>`: merges that field's list now and orders it by the directive. */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, s: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw smpErrors.badArgType('[]interface {}', order);
    const field = directiveTarget(key, SET_ELEMENT_ORDER, smpErrors.badSetElementOrder);
    const foundOriginal = hasOwn(original, field);
    const foundPatch = hasOwn(patch, field);
    const originalList = foundOriginal ? original[field] : [];
    const patchList = foundPatch ? patch[field] : [];
    if (!Array.isArray(originalList)) throw smpErrors.badArgType('[]interface {}', originalList);
    if (!Array.isArray(patchList)) throw smpErrors.badArgType('[]interface {}', patchList);
    const meta = listMeta(childSchema(s, field));
    validateAgainstOrder(patchList, order, meta.mergeKey);
    if (!foundOriginal && !foundPatch) continue;
    let merged: Json[];
    if (!foundPatch) merged = originalList;
    else if (!foundOriginal) merged = patchList;
    else merged = meta.merge ? mergeSlice(originalList, patchList, meta, false) : patchList;
    const kind = sliceElementKind(originalList, patchList);
    const { present, rest } = partitionByPresence(merged, order, meta.mergeKey, kind);
    original[field] = normalizeElementOrder(present, rest, order, originalList, meta.mergeKey, kind);
    delete patch[field];
  }
}

function mergeSlice(original: Json[], patch: Json[], meta: ListMeta, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: Json[];
  if (kind === 'scalar') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!meta.mergeKey) throw new SmpError('cannot merge lists without merge key for type map', 'internal');
    ({ original, patch } = applyListDirectives(original, patch, meta.mergeKey));
    merged = mergeByKey(
      original,
      patch,
      meta.mergeKey,
      (o, p) => mergeMap(o, p, meta.item),
      (p) => newValue(p),
    );
  }
  const { present, rest } = partitionByPresence(merged, patch, meta.mergeKey, kind);
  return normalizeElementOrder(present, rest, patch, original, meta.mergeKey, kind);
}
