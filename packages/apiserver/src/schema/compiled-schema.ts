// A CRD version schema pre-digested once into a tree of nodes (lookup maps, compiled regexes, subtree
// flags) so pruning, defaulting and validation of every custom resource is a single cheap walk.
// Compiled trees are cached per schema object: the API server keeps the CRD objects it serves.
import { RE2JS } from 're2js';
import { kubeStringFormat, NUMBER_FORMAT_RANGES } from './formats.ts';
import type { JSONSchemaProps } from './types.ts';

export interface SchemaNode {
  schema: JSONSchemaProps;
  /** types the value may have; `['integer','string']` for x-kubernetes-int-or-string, empty when untyped */
  types: string[];
  nullable: boolean;
  preserveUnknown: boolean;
  embedded: boolean;
  properties: Map<string, SchemaNode> | null;
  /** the same, in schema order, for walks over every property (iterating the Map allocates an entry per step) */
  propertyList: Array<[string, SchemaNode]>;
  /** additionalProperties given as a schema */
  additional: SchemaNode | null;
  /** additionalProperties given at all (schema or boolean) */
  hasAdditional: boolean;
  items: SchemaNode | null;
  /** properties with a default, in schema order */
  defaulted: [string, unknown][];
  /** compiled with RE2 semantics, like Go's regexp */
  pattern: RE2JS | null;
  /** format kube validates (original spelling) and its checker */
  format: string;
  formatCheck: ((s: string) => boolean) | null;
  /** int32/int64/float/double range or quantity, enforced on top of kube */
  extraFormat: string;
  enumValues: unknown[] | null;
  allOf: SchemaNode[];
  anyOf: SchemaNode[];
  oneOf: SchemaNode[];
  not: SchemaNode | null;
  required: string[];
  listType: string;
  listMapKeys: string[];
  /** subtree contains list-type set/map, embedded resources, defaults or CEL rules: lets walks skip plain subtrees */
  hasListTypes: boolean;
  hasEmbedded: boolean;
  hasDefaults: boolean;
  hasRules: boolean;
}

const cache = new WeakMap<JSONSchemaProps, SchemaNode>();

function compilePattern(p: string | undefined): RE2JS | null {
  if (!p) return null;
  try {
    return RE2JS.compile(p);
  } catch {
    // an invalid pattern is rejected when the CRD is checked; a stored one simply matches nothing
    return RE2JS.compile('[^\\x00-\\x{10FFFF}]');
  }
}

export function compileSchema(schema: JSONSchemaProps): SchemaNode {
  const hit = cache.get(schema);
  if (hit) return hit;
  const node = newNode(schema);
  // cached before its children compile, so a schema that refers to itself ends the recursion
  cache.set(schema, node);
  const check = kubeStringFormat(schema.format);
  if (check) {
    node.format = schema.format!;
    node.formatCheck = check;
  } else if (schema.format && (schema.format in NUMBER_FORMAT_RANGES || schema.format === 'quantity')) {
    node.extraFormat = schema.format;
  }
  const children = compileChildren(node, schema);
  node.hasListTypes = node.listType === 'set' || node.listType === 'map' || children.some((c) => c.hasListTypes);
  node.hasEmbedded = node.embedded || children.some((c) => c.hasEmbedded);
  node.hasDefaults =
    node.defaulted.length > 0 ||
    children.some((c) => c.hasDefaults || (c.schema.default !== undefined && c.schema.default !== null));
  node.hasRules = node.hasRules || children.some((c) => c.hasRules);
  return node;
}

function newNode(schema: JSONSchemaProps): SchemaNode {
  const types = schema['x-kubernetes-int-or-string'] ? ['integer', 'string'] : schema.type ? [schema.type] : [];
  return {
    schema,
    types,
    nullable: !!schema.nullable,
    preserveUnknown: !!schema['x-kubernetes-preserve-unknown-fields'],
    embedded: !!schema['x-kubernetes-embedded-resource'],
    properties: null,
    propertyList: [],
    additional: null,
    hasAdditional: schema.additionalProperties !== undefined,
    items: null,
    defaulted: [],
    pattern: compilePattern(schema.pattern),
    format: '',
    formatCheck: null,
    extraFormat: '',
    enumValues: Array.isArray(schema.enum) ? schema.enum : null,
    allOf: [],
    anyOf: [],
    oneOf: [],
    not: null,
    required: schema.required ?? [],
    listType: schema['x-kubernetes-list-type'] ?? '',
    listMapKeys: schema['x-kubernetes-list-map-keys'] ?? [],
    hasListTypes: false,
    hasEmbedded: false,
    hasDefaults: false,
    hasRules: !!schema['x-kubernetes-validations']?.length,
  };
}

/** properties, additionalProperties, items and the junctors, compiled; returns the direct children */
function compileChildren(node: SchemaNode, schema: JSONSchemaProps): SchemaNode[] {
  const children: SchemaNode[] = [];
  if (schema.properties) {
    node.properties = new Map();
    for (const [k, v] of Object.entries(schema.properties)) {
      const c = compileSchema(v);
      node.properties.set(k, c);
      node.propertyList.push([k, c]);
      children.push(c);
      if (v.default !== undefined && v.default !== null) node.defaulted.push([k, v.default]);
    }
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    node.additional = compileSchema(schema.additionalProperties);
    children.push(node.additional);
  }
  if (schema.items && !Array.isArray(schema.items)) {
    node.items = compileSchema(schema.items);
    children.push(node.items);
  }
  node.allOf = (schema.allOf ?? []).map(compileSchema);
  node.anyOf = (schema.anyOf ?? []).map(compileSchema);
  node.oneOf = (schema.oneOf ?? []).map(compileSchema);
  node.not = schema.not ? compileSchema(schema.not) : null;
  return children;
}

/** JSON-ish type name of a decoded value as kube-openapi reports it. */
export function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(v) ? 'integer' : 'number';
    case 'bigint':
      return 'integer';
    case 'object':
      return Array.isArray(v) ? 'array' : 'object';
    default:
      return typeof v;
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Structural deep equality of decoded JSON values; numbers compare by value (Go converts int64 ↔ float64). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' || typeof a === 'bigint')
    return (typeof b === 'number' || typeof b === 'bigint') && Number(a) === Number(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

export function deepCopyJson<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(deepCopyJson) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = deepCopyJson(x);
  return out as T;
}
