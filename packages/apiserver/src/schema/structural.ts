// The structural-schema rules kube-apiserver enforces on every apiextensions.k8s.io/v1 CRD schema
// (apiextensions-apiserver pkg/apiserver/schema: ValidateStructural = invariants + completeness).
// Messages and field paths match kube's so `kubectl apply` of a non-structural CRD prints the same lines.
import { RE2JS } from 're2js';
import type { StatusCause } from '../errors.ts';
import { fieldError, fieldPath } from './field-errors.ts';
import type { JSONSchemaProps } from './types.ts';

type Level = 'root' | 'item' | 'field';

const { child, key, index } = fieldPath;

function isIntOrStringPair(list: JSONSchemaProps[] | undefined): boolean {
  if (list?.length !== 2) return false;
  const only = (s: JSONSchemaProps, t: string) => Object.keys(s).length === 1 && s.type === t;
  return only(list[0]!, 'integer') && only(list[1]!, 'string');
}

function singleItems(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return s.items && !Array.isArray(s.items) ? s.items : undefined;
}

function additionalSchema(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

/** What remains of the root `metadata` schema once name/generateName restrictions, type and default are ignored. */
function metadataHasMoreThanNames(m: JSONSchemaProps): boolean {
  for (const k of Object.keys(m)) {
    if (k === 'type' || k === 'default') continue;
    if (k === 'properties') {
      const names = Object.keys(m.properties ?? {});
      const onlyNames = names.length > 0 && names.every((n) => n === 'name' || n === 'generateName');
      if (onlyNames || names.length === 0) continue;
    }
    return true;
  }
  return false;
}

function invariants(s: JSONSchemaProps | undefined, lvl: Level, path: string, out: StatusCause[]): void {
  if (!s) return;
  const items = singleItems(s);
  if (s.type === 'array' && !items) out.push(fieldError.required(child(path, 'items'), 'must be specified'));
  invariants(items, 'item', child(path, 'items'), out);
  for (const [k, v] of Object.entries(s.properties ?? {}))
    invariants(v, 'field', key(child(path, 'properties'), k), out);
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root')
      out.push(fieldError.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    invariants(additionalSchema(s), 'field', child(path, 'additionalProperties'), out);
  }

  intOrStringRules(s, path, out);
  valueValidation(s, isIntOrStringPair(s.anyOf), !!s.allOf?.length && isIntOrStringPair(s.allOf[0]!.anyOf), path, out);

  typeRules(s, lvl, path, out);
  metadataRules(s, lvl, path, out);
}

/** x-kubernetes-int-or-string excludes preserve-unknown-fields and embedded-resource */
function intOrStringRules(s: JSONSchemaProps, path: string, out: StatusCause[]): void {
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-preserve-unknown-fields']) {
    out.push(
      fieldError.invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-embedded-resource']) {
    out.push(
      fieldError.invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
}

/** every node has a type (object at the root and for embedded resources) */
function typeRules(s: JSONSchemaProps, lvl: Level, path: string, out: StatusCause[]): void {
  const embedded = !!s['x-kubernetes-embedded-resource'];
  if (embedded && s.type !== 'object') {
    if (!s.type)
      out.push(fieldError.required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else
      out.push(
        fieldError.invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'),
      );
  } else if (!s.type && !s['x-kubernetes-int-or-string'] && !s['x-kubernetes-preserve-unknown-fields']) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[lvl];
    out.push(fieldError.required(child(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined) {
    out.push(
      fieldError.forbidden(
        child(path, 'additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  }
  if (lvl === 'root' && s.type && s.type !== 'object')
    out.push(fieldError.invalid(child(path, 'type'), s.type, 'must be object at the root'));
}

/** kind/apiVersion/metadata of the root and of embedded resources */
function metadataRules(s: JSONSchemaProps, lvl: Level, path: string, out: StatusCause[]): void {
  const embedded = !!s['x-kubernetes-embedded-resource'];
  const checkMetadata = lvl === 'root' || embedded;
  const props = s.properties ?? {};
  for (const meta of ['kind', 'apiVersion'] as const) {
    if (props[meta] && checkMetadata && props[meta].type !== 'string') {
      out.push(
        fieldError.invalid(
          child(key(child(path, 'properties'), meta), 'type'),
          props[meta].type ?? '',
          'must be string',
        ),
      );
    }
  }
  const metadata = props.metadata;
  if (metadata) {
    const mPath = key(child(path, 'properties'), 'metadata');
    if (checkMetadata && metadata.type !== 'object')
      out.push(fieldError.invalid(child(mPath, 'type'), metadata.type ?? '', 'must be object'));
    if (lvl === 'root' && metadataHasMoreThanNames(metadata)) {
      out.push(
        fieldError.forbidden(
          mPath,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  if (embedded && !s['x-kubernetes-preserve-unknown-fields'] && Object.keys(props).length === 0) {
    out.push(
      fieldError.required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

/** The junctors (anyOf/allOf/oneOf/not) of a node: only value validations may appear inside them. */
function valueValidation(
  v: JSONSchemaProps,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  path: string,
  out: StatusCause[],
): void {
  if (!skipAnyOf)
    (v.anyOf ?? []).forEach((n, i) => {
      nested(n, false, index(child(path, 'anyOf'), i), out);
    });
  (v.allOf ?? []).forEach((n, i) => {
    nested(n, skipFirstAllOfAnyOf && i === 0, index(child(path, 'allOf'), i), out);
  });
  (v.oneOf ?? []).forEach((n, i) => {
    nested(n, false, index(child(path, 'oneOf'), i), out);
  });
  if (v.not) nested(v.not, false, child(path, 'not'), out);
  if (v.pattern) {
    try {
      RE2JS.compile(v.pattern);
    } catch (e) {
      // re2js is a port of Go's regexp, so its messages are Go's ("error parsing regexp: ...")
      out.push(
        fieldError.invalid(
          child(path, 'pattern'),
          v.pattern,
          `must be a valid regular expression, but isn't: ${(e as Error).message}`,
        ),
      );
    }
  }
}

const FORBIDDEN_IN_NESTED: [keyof JSONSchemaProps, string][] = [
  ['type', 'must be empty to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['externalDocs', 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return false;
  return !(Array.isArray(v) && v.length === 0);
}

function nested(v: JSONSchemaProps | undefined, skipAnyOf: boolean, path: string, out: StatusCause[]): void {
  if (!v) return;
  valueValidation(v, skipAnyOf, false, path, out);
  nested(singleItems(v), false, child(path, 'items'), out);
  for (const [k, p] of Object.entries(v.properties ?? {})) nested(p, false, key(child(path, 'properties'), k), out);
  if (v.additionalProperties !== undefined) {
    out.push(fieldError.forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  for (const [name, detail] of FORBIDDEN_IN_NESTED) {
    if (name === 'default' ? v.default !== undefined && v.default !== null : isSet(v[name]))
      out.push(fieldError.forbidden(child(path, name), detail));
  }
  if (v.properties?.metadata)
    out.push(
      fieldError.forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'),
    );
}

/** Every field or item mentioned inside a junctor must also be specified outside of it. */
function completeness(
  v: JSONSchemaProps,
  s: JSONSchemaProps | undefined,
  sPath: string,
  vPath: string,
  out: StatusCause[],
): void {
  const junctors: [JSONSchemaProps, string][] = [];
  if (v.not) junctors.push([v.not, child(vPath, 'not')]);
  (v.allOf ?? []).forEach((n, i) => {
    junctors.push([n, index(child(vPath, 'allOf'), i)]);
  });
  (v.anyOf ?? []).forEach((n, i) => {
    junctors.push([n, index(child(vPath, 'anyOf'), i)]);
  });
  (v.oneOf ?? []).forEach((n, i) => {
    junctors.push([n, index(child(vPath, 'oneOf'), i)]);
  });
  for (const [n, nPath] of junctors) nestedCompleteness(n, s, sPath, nPath, out);
}

function nestedCompleteness(
  v: JSONSchemaProps,
  s: JSONSchemaProps | undefined,
  sPath: string,
  vPath: string,
  out: StatusCause[],
): void {
  if (!s) {
    out.push(fieldError.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(v, s, sPath, vPath, out);
  const vItems = singleItems(v);
  if (vItems) nestedCompleteness(vItems, singleItems(s), child(sPath, 'items'), child(vPath, 'items'), out);
  for (const [k, vf] of Object.entries(v.properties ?? {})) {
    const sf = s.properties?.[k];
    const sfPath = key(child(sPath, 'properties'), k);
    const vfPath = key(child(vPath, 'properties'), k);
    if (!sf) out.push(fieldError.required(sfPath, `because it is defined in ${vfPath}`));
    else nestedCompleteness(vf, sf, sfPath, vfPath, out);
  }
}

/** kube sorts structural errors by their full text so the list is stable across Go map iteration orders. */
export function structuralErrors(schema: JSONSchemaProps, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  invariants(schema, 'root', path, out);
  // like kube, completeness is only checked for the junctors at the root node
  completeness(schema, schema, path, path, out);
  const text = (c: StatusCause) => `${c.field}: ${c.message}`;
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}
