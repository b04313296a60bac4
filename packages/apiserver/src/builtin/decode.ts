// Decoding a built-in object the way kube-apiserver decodes JSON into its Go structs (sigs.k8s.io/json
// with strict errors): fields the Go type does not have are dropped and their paths returned (the caller
// rejects or warns per fieldValidation), a null field is dropped (omitempty), and a value of the wrong
// JSON type is a 400 with Go's message. One pass over the object against types compiled once.
//
// Go's error order is kept: a type error is saved and decoding goes on (the first one is reported), an
// error from a custom decoder (IntOrString, Quantity, Time, the CRD schema wrappers) ends decoding at
// once and wins, and unknown fields are reported only when there was no error at all.
import { parseQuantity } from '@modelplane/apimachinery/quantity';
import { errors } from '../errors.ts';
import type { KubeObject } from '../types.ts';
import { goBase64Error, goQuantityError, goTimeCanonical, goTimeError } from './go-values.ts';
import { builtinTypes, K, type TypeNode } from './schema-types.ts';

/** sigs.k8s.io/json keeps at most this many strict errors */
const MAX_UNKNOWN = 100;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_LIMIT = 2 ** 63;
const STRING: TypeNode = { kind: K.string, go: 'string' };

class DecodeAbort {
  constructor(readonly message: string) {}
}

interface State {
  unknown: string[];
  saved: string | undefined;
  schemaProps: TypeNode;
  /** set by walk() when the parent must store another value in place of the one walked (a canonical quantity) */
  replacement: string | undefined;
}

// The current position, shared by every decode (decoding is synchronous: one at a time). `path` holds
// JSON keys and array indices for unknown-field paths; `fields`/`structs` are Go's error context: the
// struct field names from the root (no map keys, no indices) and the struct type holding the innermost.
const path: Array<string | number> = [];
const fields: string[] = [];
const structs: string[] = [];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** How Go's decoder names a JSON value it cannot store. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

function typeError(value: string, goType: string): string {
  if (fields.length === 0) return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  return `json: cannot unmarshal ${value} into Go struct field ${structs[structs.length - 1]}.${fields.join('.')} of type ${goType}`;
}

function unknownPath(key: string): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out === '' ? key : `${out}.${key}`;
}

function save(st: State, message: string): void {
  st.saved ??= message;
}

function checkNumber(v: unknown, n: TypeNode, st: State): void {
  if (typeof v !== 'number') {
    save(st, typeError(jsonKind(v), n.go));
    return;
  }
  const ok =
    n.kind === K.float64
      ? Number.isFinite(v)
      : Number.isInteger(v) && (n.kind === K.int32 ? v >= INT32_MIN && v <= INT32_MAX : Math.abs(v) < INT64_LIMIT);
  if (!ok) save(st, typeError(`number ${v}`, n.go));
}

function walkStruct(obj: Record<string, unknown>, n: TypeNode, silent: boolean, st: State): void {
  const known = n.fields!;
  for (const key in obj) {
    const f = known.get(key);
    if (f === undefined) {
      // below the CRD schema wrappers kube decodes without strictness: dropped, never reported
      if (!silent && st.unknown.length < MAX_UNKNOWN) st.unknown.push(unknownPath(key));
      delete obj[key];
      continue;
    }
    const v = obj[key];
    if (v === null) {
      delete obj[key];
      continue;
    }
    path.push(key);
    fields.push(key);
    structs.push(n.struct!);
    const drop = walk(v, f.node, silent, st);
    path.pop();
    fields.pop();
    structs.pop();
    if (drop) delete obj[key];
    else if (st.replacement !== undefined) replace(obj, key, st);
  }
}

/** Checks `v` against `n`, pruning in place; returns true when the parent should drop the value. */
function walk(v: unknown, n: TypeNode, silent: boolean, st: State): boolean {
  switch (n.kind) {
    case K.string:
      if (typeof v !== 'string') save(st, typeError(jsonKind(v), n.go));
      return false;
    case K.bool:
      if (typeof v !== 'boolean') save(st, typeError(jsonKind(v), n.go));
      return false;
    case K.int32:
    case K.int64:
    case K.float64:
      checkNumber(v, n, st);
      return false;
    case K.bytes:
      if (typeof v !== 'string') save(st, typeError(jsonKind(v), n.go));
      else {
        const err = goBase64Error(v);
        if (err) save(st, err);
      }
      return false;
    case K.time:
    case K.microTime:
      checkTime(v, n.kind === K.microTime, st);
      return false;
    case K.intOrString:
      if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX))
        return false;
      throw new DecodeAbort(typeError(typeof v === 'number' ? `number ${v}` : jsonKind(v), 'int32'));
    case K.quantity:
      checkQuantity(v, st);
      return false;
    case K.any:
      return false;
    case K.struct:
      if (isPlainObject(v)) walkStruct(v, n, silent, st);
      else save(st, typeError(jsonKind(v), n.go));
      return false;
    case K.array:
      if (!Array.isArray(v)) save(st, typeError(jsonKind(v), n.go));
      else walkItems(v, n.elem!, silent, st);
      return false;
    case K.map:
      if (!isPlainObject(v)) save(st, typeError(jsonKind(v), n.go));
      else walkMap(v, n.elem!, silent, st);
      return false;
    case K.schemaOrBool:
    case K.schemaOrArray:
    case K.schemaOrStringArray:
      return walkSchemaUnion(v, n.kind, st);
  }
}

function checkTime(v: unknown, micro: boolean, st: State): void {
  if (typeof v !== 'string') throw new DecodeAbort(typeError(jsonKind(v), 'string'));
  const err = goTimeError(v, micro);
  if (err) throw new DecodeAbort(err);
  const canonical = goTimeCanonical(v, micro);
  if (canonical !== undefined) st.replacement = canonical;
}

function checkQuantity(v: unknown, st: State): void {
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  const err = goQuantityError(text);
  if (err) throw new DecodeAbort(err);
  // Go re-encodes a decoded Quantity in canonical form: `0.5` and "500m" are both stored as "500m"
  const canonical = canonicalQuantity(text);
  if (canonical !== undefined && canonical !== v) st.replacement = canonical;
}

/** JSONSchemaProps' union fields (schema or bool / array / string array); true when the parent drops the value */
function walkSchemaUnion(v: unknown, kind: TypeNode['kind'], st: State): boolean {
  if (kind === K.schemaOrBool) {
    if (typeof v === 'boolean') return false;
    if (!isPlainObject(v)) throw new DecodeAbort('boolean or JSON schema expected');
    walkStruct(v, st.schemaProps, true, st);
    return false;
  }
  if (isPlainObject(v)) walkStruct(v, st.schemaProps, true, st);
  else if (Array.isArray(v)) walkItems(v, kind === K.schemaOrArray ? st.schemaProps : STRING, true, st);
  else return true; // kube's JSONSchemaPropsOrArray keeps nothing of a scalar
  return false;
}

function replace(container: Record<string, unknown> | unknown[], key: string | number, st: State): void {
  (container as Record<string | number, unknown>)[key] = st.replacement;
  st.replacement = undefined;
}

function canonicalQuantity(text: string): string | undefined {
  try {
    return parseQuantity(text.trim()).toString();
  } catch {
    return undefined; // (the shape was valid but the value is out of range: left as sent)
  }
}

function walkItems(items: unknown[], elem: TypeNode, silent: boolean, st: State): void {
  for (let i = 0; i < items.length; i++) {
    if (items[i] === null) continue;
    path.push(i);
    walk(items[i], elem, silent, st);
    path.pop();
    if (st.replacement !== undefined) replace(items, i, st);
  }
}

function walkMap(map: Record<string, unknown>, elem: TypeNode, silent: boolean, st: State): void {
  for (const key in map) {
    const v = map[key];
    if (v === null) continue;
    path.push(key);
    const drop = walk(v, elem, silent, st);
    path.pop();
    if (drop) delete map[key];
    else if (st.replacement !== undefined) replace(map, key, st);
  }
}

/**
 * Decodes a built-in object in place: drops unknown fields (returned, as `spec.containers[0].foo`) and
 * null fields; throws 400 BadRequest for a value Go would not decode. Kinds without a compiled schema
 * are left alone.
 */
export function decodeBuiltin(obj: KubeObject, group: string, version: string, kind: string): string[] {
  const types = builtinTypes();
  const root = types.kind(group, version, kind);
  if (!root) return [];
  const st: State = { unknown: [], saved: undefined, schemaProps: types.schemaProps, replacement: undefined };
  path.length = 0;
  fields.length = 0;
  structs.length = 0;
  let message: string | undefined;
  try {
    walkStruct(obj as Record<string, unknown>, root, false, st);
    message = st.saved;
  } catch (e) {
    if (!(e instanceof DecodeAbort)) throw e;
    message = e.message;
  }
  if (message !== undefined)
    throw errors.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${message}`);
  return st.unknown;
}
