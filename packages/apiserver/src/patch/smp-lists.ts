// List handling of strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch): merging
// lists of primitives and lists of maps by merge key, the `$patch` list directives, and the order
// rules of the preserve-order design ($setElementOrder > order in the patch > order in the live list).
import { goFormat, hasOwn, isObject, type Json, type JsonObject } from './json-value.ts';

export const DIRECTIVE = '$patch';

/** Why a strategic merge patch failed, with the HTTP class kube-apiserver maps it to. */
export class SmpError extends Error {
  constructor(
    message: string,
    readonly status: 'badRequest' | 'invalid' | 'internal',
  ) {
    super(message);
  }
}

export const smpErrors = {
  noListOfLists: () => new SmpError('lists of lists are not supported', 'invalid'),
  badPrimitiveList: () => new SmpError('invalid patch format of primitive list', 'badRequest'),
  badRetainKeys: () => new SmpError('invalid patch format of retainKeys', 'badRequest'),
  badSetElementOrder: () => new SmpError('invalid patch format of setElementOrder list', 'badRequest'),
  noMergeKey: (m: unknown, key: string) =>
    new SmpError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`, 'internal'),
  badPatchType: (t: unknown, m: unknown) =>
    new SmpError(`unknown patch type: ${goFormat(t)} in map: ${goFormat(m)}`, 'internal'),
  badArgType: (expected: string, actual: unknown) =>
    new SmpError(`expected a ${expected}, but received a ${goTypeOf(actual)}`, 'internal'),
};

function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

export type ElementKind = 'map' | 'scalar';

/** All elements must have one type, and not be lists (strategicpatch's sliceElementType). */
export function sliceElementKind(...slices: Json[][]): ElementKind {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = Array.isArray(v) ? 'slice' : isObject(v) ? 'map' : v === null ? 'null' : typeof v;
      if (prev === undefined) {
        if (t === 'slice') throw smpErrors.noListOfLists();
        prev = t;
      } else if (prev !== t)
        throw new SmpError(`list element types are not identical: ${goFormat(slices)}`, 'internal');
    }
  }
  if (prev === undefined) throw new SmpError('no elements in any of the given slices', 'internal');
  return prev === 'map' ? 'map' : 'scalar';
}

function keyOf(item: Json, mergeKey: string): Json | undefined {
  if (!isObject(item)) throw new SmpError('value for key is not a map.', 'internal');
  return hasOwn(item, mergeKey) ? item[mergeKey] : undefined;
}

function findByKey(list: Json[], mergeKey: string, value: Json | undefined): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    if (!isObject(item)) throw new SmpError(`value for key ${i} is not a map.`, 'internal');
    if (hasOwn(item, mergeKey) && item[mergeKey] === value) return i;
  }
  return -1;
}

/** Separates `$patch` elements: deletes are applied to `original`, `replace` drops `original` altogether. */
export function applyListDirectives(
  original: Json[],
  patch: Json[],
  mergeKey: string,
): { original: Json[]; patch: Json[] } {
  const plain: Json[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    switch (item[DIRECTIVE]) {
      case 'delete': {
        if (!hasOwn(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
        const value = item[mergeKey];
        original = original.filter((o) => keyOf(o, mergeKey) !== value);
        break;
      }
      case 'replace':
        replace = true;
        break;
      case 'merge':
        throw new SmpError('merging lists cannot yet be specified in the patch', 'internal');
      default:
        throw smpErrors.badPatchType(item[DIRECTIVE], item);
    }
  }
  return replace ? { original: plain, patch: [] } : { original, patch: plain };
}

/** Merges patch items into the live items with the same merge key; new items are appended. */
export function mergeByKey(
  original: Json[],
  patch: Json[],
  mergeKey: string,
  mergeItem: (o: JsonObject, p: JsonObject) => JsonObject,
  newItem: (p: Json) => Json | undefined,
): Json[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
    const i = findByKey(out, mergeKey, item[mergeKey]);
    if (i >= 0) out[i] = mergeItem(out[i] as JsonObject, item);
    else {
      const added = newItem(item);
      if (added !== undefined) out.push(added);
    }
  }
  return out;
}

/** Union of two primitive lists, deduplicated the way strategicpatch does it (a duplicate is replaced by the last element). */
export function deduplicateScalars(s: Json[]): Json[] {
  const out = [...s];
  let length = out.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (out[i] === out[j]) {
        out[j] = out[length]!;
        out.length = length;
        length--;
        j--;
      }
    }
  }
  return out;
}

export function deleteFromSlice(current: Json[], toDelete: Json[]): Json[] {
  const drop = new Set(toDelete);
  return current.filter((v) => !drop.has(v));
}

function indexIn(list: Json[], v: Json, mergeKey: string, kind: ElementKind): number {
  if (kind === 'map') {
    const want = isObject(v) ? v[mergeKey] : undefined;
    return list.findIndex((x) => (isObject(x) ? x[mergeKey] : undefined) === want);
  }
  return list.indexOf(v);
}

/** Splits `items` into those present in `by` (by merge key or value) and the rest, keeping order. */
export function partitionByPresence(
  items: Json[],
  by: Json[],
  mergeKey: string,
  kind: ElementKind,
): { present: Json[]; rest: Json[] } {
  const present: Json[] = [];
  const rest: Json[] = [];
  for (const v of items) {
    if (kind === 'map') {
      if (!isObject(v)) throw smpErrors.badArgType('map[string]interface {}', v);
      if (!hasOwn(v, mergeKey)) throw smpErrors.noMergeKey(v, mergeKey);
      (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? present : rest).push(v);
    } else (by.includes(v) ? present : rest).push(v);
  }
  return { present, rest };
}

/** Sorts `toSort` by position in `order`, as sort.SliceStable does with strategicpatch's comparator; deletes go last. */
function normalizeSliceOrder(toSort: Json[], order: Json[], mergeKey: string, kind: ElementKind): Json[] {
  let items = [...toSort];
  const deletes: Json[] = [];
  if (kind === 'map') {
    for (const v of [...items, ...order]) {
      if (!isObject(v)) throw smpErrors.badArgType('map[string]interface {}', v);
      if (!hasOwn(v, mergeKey)) throw smpErrors.noMergeKey(v, mergeKey);
    }
    items = items.filter((v) => {
      const del = (v as JsonObject)[DIRECTIVE] === 'delete';
      if (del) deletes.push(v);
      return !del;
    });
  }
  const less = (a: Json, b: Json) => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j]!, items[j - 1]!); j--) [items[j], items[j - 1]] = [items[j - 1]!, items[j]!];
  }
  return [...items, ...deletes];
}

/**
 * Orders patch items by `patchOrder` and live-only items by `serverOrder`, then interleaves them:
 * a live-only item goes before a patch item only when the live list had it before that item.
 */
export function normalizeElementOrder(
  patch: Json[],
  serverOnly: Json[],
  patchOrder: Json[],
  serverOrder: Json[],
  mergeKey: string,
  kind: ElementKind,
): Json[] {
  const right = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexIn(serverOrder, left[i]!, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j]!, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

/** The relative order of patch items must match the $setElementOrder list, which must list them all. */
export function validateAgainstOrder(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isObject(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p]!;
    if (isObject(item) && hasOwn(item, DIRECTIVE)) {
      p++;
      continue;
    }
    let equal: boolean;
    if (!mergeKey) equal = item === order[o];
    else {
      const a = order[o]!;
      if (!isObject(item)) throw smpErrors.badArgType('map[string]interface {}', item);
      if (!isObject(a)) throw smpErrors.badArgType('map[string]interface {}', a);
      if (!hasOwn(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
      if (!hasOwn(a, mergeKey)) throw smpErrors.noMergeKey(a, mergeKey);
      equal = item[mergeKey] === a[mergeKey];
    }
    if (equal) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new SmpError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(order)}\n`,
      'internal',
    );
  }
}
