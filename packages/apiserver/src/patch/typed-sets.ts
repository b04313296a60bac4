// Schema-aware set operations on objects: the fields an applied configuration sets (SMD ToFieldSet),
// removing a set of fields from an object (RemoveItems), promoting named struct fields to members
// (EnsureNamedFieldsAreMembers, used by pruning), and the checks kube runs when it converts an
// applied configuration to a typed value.
import { FieldSet } from './fieldpath.ts';
import { goJson, isObject, type Json, type JsonObject } from './json-value.ts';
import { type FieldPath, type PathElement, pathString, peString, peToken } from './path-elements.ts';
import {
  fieldSchema,
  isNamedField,
  type PatchSchema,
  type StructSchema,
  structOfUntyped,
  structView,
  UNTYPED,
} from './schema.ts';
import { itemPE } from './typed-merge.ts';

/**
 * The fields a value sets: every scalar and atomic node, every associative-list item, and every map
 * entry that is not a named struct field (named fields count only through what they contain).
 */
export function toFieldSet(v: Json | undefined, s: PatchSchema): FieldSet {
  const set = new FieldSet();
  if (v !== undefined) collect(v, s, [], set);
  return set;
}

function collect(v: Json, s: PatchSchema, path: FieldPath, set: FieldSet): void {
  switch (s.kind) {
    case 'scalar':
      set.insert(path);
      return;
    case 'struct':
      if (s.mapType === 'atomic') set.insert(path);
      else if (isObject(v)) collectMap(v, s, path, set);
      else if (v !== null) set.insert(path);
      return;
    case 'list':
      if (s.listType === 'atomic') set.insert(path);
      else if (Array.isArray(v)) {
        v.forEach((item, index) => {
          const got = itemPE(s, item);
          const p = [...path, typeof got === 'string' ? { index } : got];
          collect(item, s.item, p, set);
          set.insert(p);
        });
      } else if (v !== null) set.insert(path);
      return;
    case 'untyped':
      if (isObject(v)) collectMap(v, structOfUntyped(s), path, set);
      else if (v !== null) set.insert(path);
      return;
  }
}

function collectMap(v: JsonObject, s: StructSchema, path: FieldPath, set: FieldSet): void {
  for (const k of Object.keys(v)) {
    const p = [...path, { field: k }];
    collect(v[k]!, fieldSchema(s, k), p, set);
    if (!isNamedField(s, k)) set.insert(p);
  }
}

/** The value without the members of `set` (a removed node takes its whole subtree); undefined when nothing is left. */
export function removeItems(v: Json, set: FieldSet, s: PatchSchema): Json | undefined {
  if (set.isEmpty()) return v;
  if (s.kind === 'list' && s.listType !== 'atomic' && Array.isArray(v) && v.length > 0) {
    const out: Json[] = [];
    v.forEach((item, index) => {
      const got = itemPE(s, item);
      const pe: PathElement = typeof got === 'string' ? { index } : got;
      if (set.hasMember(pe)) return;
      const sub = set.child(pe);
      const kept = sub ? removeItems(item, sub, s.item) : item;
      if (kept !== undefined) out.push(kept);
    });
    return out.length > 0 ? out : undefined;
  }
  const st = s.kind === 'struct' && s.mapType !== 'atomic' ? s : s.kind === 'untyped' ? structOfUntyped(s) : undefined;
  if (st && isObject(v) && Object.keys(v).length > 0) {
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const pe = { field: k };
      if (set.hasMember(pe)) continue;
      const sub = set.child(pe);
      const kept = sub ? removeItems(v[k]!, sub, fieldSchema(st, k)) : v[k]!;
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return v;
}

/** Adds as members the named struct fields that only have descendants in the set. */
export function ensureNamedFieldsAreMembers(set: FieldSet, s: PatchSchema): FieldSet {
  const st = structView(s);
  return set.mapNodes((pe, member, children) => {
    let childSchema: PatchSchema = UNTYPED;
    let named = false;
    if ('field' in pe && st) {
      childSchema = fieldSchema(st, pe.field);
      named = isNamedField(st, pe.field);
    } else if ('key' in pe && s.kind === 'list') childSchema = s.item;
    return {
      member: member || (named && children !== undefined),
      children: children ? ensureNamedFieldsAreMembers(children, childSchema) : undefined,
    };
  });
}

/** Problems kube reports when it converts an applied configuration to a typed value, as `path: message`. */
export function typeErrors(v: Json, s: PatchSchema): string[] {
  const out: string[] = [];
  check(v, s, [], out);
  return out;
}

function describe(v: Json): string {
  if (Array.isArray(v)) return `list ${goJson(v)}`;
  if (isObject(v)) return `map ${goJson(v)}`;
  return goJson(v);
}

function report(out: string[], path: FieldPath, msg: string): void {
  out.push(path.length === 0 ? msg : `${pathString(path)}: ${msg}`);
}

function check(v: Json, s: PatchSchema, path: FieldPath, out: string[]): void {
  switch (s.kind) {
    case 'scalar':
      if (isObject(v) || Array.isArray(v)) report(out, path, `expected scalar, got ${describe(v)}`);
      return;
    case 'struct':
      if (v === null) return;
      if (!isObject(v)) {
        report(out, path, `expected map, got ${describe(v)}`);
        return;
      }
      for (const k of Object.keys(v)) check(v[k]!, fieldSchema(s, k), [...path, { field: k }], out);
      return;
    case 'untyped':
      if (isObject(v)) for (const k of Object.keys(v)) check(v[k]!, s, [...path, { field: k }], out);
      return;
    case 'list': {
      if (v === null) return;
      if (!Array.isArray(v)) {
        report(out, path, `expected list, got ${describe(v)}`);
        return;
      }
      const seen = new Set<string>();
      v.forEach((item, i) => {
        if (s.listType === 'atomic') {
          check(item, s.item, [...path, { index: i }], out);
          return;
        }
        const got = itemPE(s, item);
        if (typeof got === 'string') report(out, path, `element ${i}: ${got}`);
        else if (seen.has(peToken(got))) report(out, path, `duplicate entries for key ${peString(got)}`);
        else {
          seen.add(peToken(got));
          check(item, s.item, [...path, got], out);
        }
      });
      return;
    }
  }
}

/** SMD's ValidationErrors text: one error as is, several under an `errors:` header. */
export function formatTypeErrors(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
}
