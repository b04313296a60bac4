// JSON merge patch (RFC 7386) with the details of evanphx/json-patch's MergePatch, which
// kube-apiserver uses: null deletes a key; a patch value that is not an object replaces the target
// (nulls inside newly added objects are dropped); a non-object patch replaces the whole document.
import { errors } from '../errors.ts';
import { clone, isObject, type Json, type JsonObject } from './json-value.ts';

/** RFC 7386 merge of `patch` into `target`; neither input is modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || patch === undefined) throw errors.badRequest('Invalid JSON Patch');
  if (!isObject(patch)) {
    // a list patch becomes the document (nulls pruned from objects inside it); scalars are not patches
    if (Array.isArray(patch)) return pruneNulls(clone(patch));
    throw errors.badRequest('Invalid JSON Patch');
  }
  if (!isObject(target)) return pruneNulls(clone(patch));
  return mergeObjects(clone(target), patch);
}

function mergeObjects(doc: JsonObject, patch: JsonObject): JsonObject {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = doc[k];
    if (cur === undefined || cur === null) doc[k] = pruneNulls(clone(v));
    else doc[k] = merge(cur, v);
  }
  return doc;
}

function merge(cur: Json, patch: Json): Json {
  if (!isObject(cur)) return pruneNulls(clone(patch));
  if (!isObject(patch)) return clone(patch);
  return mergeObjects(cur, patch);
}

/** Drops null-valued keys in objects at any depth; nulls that are list elements stay. */
function pruneNulls(v: Json): Json {
  if (Array.isArray(v)) return v.map((x) => (x === null ? x : pruneNulls(x)));
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else pruneNulls(x);
    }
  }
  return v;
}
