// JSON patch (RFC 6902) with the semantics of evanphx/json-patch v4 as kube-apiserver configures it:
// negative array indexes count from the end, `add` without a value adds null, and `test` of a null
// value also passes for a missing member. A patch that is not a list of operation objects is a 400;
// an operation that cannot be applied (including a failed `test`) is kube's generic 422, whose
// message names no cause — kube-apiserver discards the library's error text.
import { errors, StatusError } from '../errors.ts';
import { clone, deepEqual, hasOwn, isObject, type Json, type JsonObject } from './json-value.ts';

/** kube's maxJSONPatchOperations */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

class NotApplicable extends Error {}

function goTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Applies `ops` to a copy of `target`. */
export function applyJsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw errors.badRequest(`json: cannot unmarshal ${goTypeName(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) {
    if (!isObject(op))
      throw errors.badRequest(`json: cannot unmarshal ${goTypeName(op)} into Go value of type jsonpatch.Operation`);
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw errors.requestEntityTooLarge(
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  let doc = clone(target) as Json;
  try {
    for (const op of ops as JsonObject[]) doc = applyOperation(doc, op);
  } catch (e) {
    if (e instanceof NotApplicable)
      throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    throw e;
  }
  return doc;
}

function applyOperation(doc: Json, op: JsonObject): Json {
  const path = pointer(op, 'path');
  const value = hasOwn(op, 'value') ? op.value! : null;
  switch (op.op) {
    case 'add':
      add(doc, path, clone(value));
      return doc;
    case 'remove':
      remove(doc, path);
      return doc;
    case 'replace': {
      const [parent, key] = locate(doc, path);
      get(parent, key);
      set(parent, key, clone(value));
      return doc;
    }
    case 'move': {
      const from = pointer(op, 'from');
      if (path.length > from.length && from.every((t, i) => path[i] === t))
        throw new NotApplicable('cannot move a value into one of its children');
      const [parent, key] = locate(doc, from);
      const v = get(parent, key);
      remove(doc, from);
      add(doc, path, v);
      return doc;
    }
    case 'copy': {
      const [parent, key] = locate(doc, pointer(op, 'from'));
      add(doc, path, clone(get(parent, key)));
      return doc;
    }
    case 'test':
      test(doc, path, hasOwn(op, 'value') ? op.value! : null);
      return doc;
    default:
      throw new NotApplicable(`Unexpected kind: ${String(op.op)}`);
  }
}

function pointer(op: JsonObject, field: 'path' | 'from'): string[] {
  const p = op[field];
  if (typeof p !== 'string') throw new NotApplicable(`operation missing ${field}`);
  if (p === '') return [];
  if (!p.startsWith('/')) throw new NotApplicable(`invalid JSON pointer ${p}`);
  return p
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = JsonObject | Json[];

/** The container holding the last token, and that token; the root itself has no container. */
function locate(doc: Json, tokens: string[]): [Container, string] {
  if (tokens.length === 0) throw new NotApplicable('the document root cannot be the target of this operation');
  let cur: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    if (!isObject(cur) && !Array.isArray(cur)) throw new NotApplicable('doc is missing path');
    cur = get(cur, t);
  }
  if (!isObject(cur) && !Array.isArray(cur)) throw new NotApplicable('doc is missing path');
  return [cur, tokens[tokens.length - 1]!];
}

function arrayIndex(key: string, length: number, forAdd: boolean): number {
  if (!/^[+-]?\d+$/.test(key)) throw new NotApplicable(`value was not a proper array index: '${key}'`);
  let idx = Number(key);
  const size = forAdd ? length + 1 : length;
  if (idx >= size || idx < -size) throw new NotApplicable(`Unable to access invalid index: ${idx}`);
  if (idx < 0) idx += size;
  return idx;
}

function get(c: Container, key: string): Json {
  if (Array.isArray(c)) return c[arrayIndex(key, c.length, false)]!;
  if (!hasOwn(c, key)) throw new NotApplicable(`doc is missing key: ${key}`);
  return c[key]!;
}

function set(c: Container, key: string, v: Json): void {
  if (Array.isArray(c)) c[arrayIndex(key, c.length, false)] = v;
  else c[key] = v;
}

function add(doc: Json, tokens: string[], v: Json): void {
  const [parent, key] = locate(doc, tokens);
  if (!Array.isArray(parent)) {
    parent[key] = v;
    return;
  }
  if (key === '-') parent.push(v);
  else parent.splice(arrayIndex(key, parent.length, true), 0, v);
}

function remove(doc: Json, tokens: string[]): void {
  const [parent, key] = locate(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(key, parent.length, false), 1);
  else if (!hasOwn(parent, key)) throw new NotApplicable(`Unable to remove nonexistent key: ${key}`);
  else delete parent[key];
}

function test(doc: Json, tokens: string[], expected: Json): void {
  if (tokens.length === 0) {
    if (!deepEqual(doc, expected)) throw new NotApplicable('testing value failed');
    return;
  }
  const [parent, key] = locate(doc, tokens);
  const present = Array.isArray(parent) || hasOwn(parent, key);
  const actual = present ? get(parent, key) : null;
  if (actual === null) {
    if (expected !== null) throw new NotApplicable(`testing value ${tokens.join('/')} failed`);
    return;
  }
  if (!deepEqual(actual, expected)) throw new NotApplicable(`testing value ${tokens.join('/')} failed`);
}
