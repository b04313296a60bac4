// JSON ⇄ CEL values. JSON has only one number type, but CEL distinguishes int from double and refuses
// `dyn<double> + int`, so `self.spec.replicas + 1` only works if replicas arrives as a BigInt. With a
// structural schema the schema decides (kube's rule: `integer` → int, `number` → double, int-or-string and
// untyped nodes → int when integral); without one every integral number becomes an int.
//
// The schema-directed conversion also applies kube's other CEL typing rules: object fields that are null are
// absent, property names that are not CEL identifiers are escaped (`x-y` → `x__dash__y`), strings with format
// date-time/date become timestamps, duration becomes a duration and byte becomes bytes, and the metadata of a
// resource root exposes only name and generateName.

import { parse } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';

/** the parts of an OpenAPI v3 structural schema the conversion looks at */
export interface OpenAPISchemaLike {
  type?: string;
  format?: string;
  properties?: Record<string, OpenAPISchemaLike>;
  items?: OpenAPISchemaLike | OpenAPISchemaLike[];
  additionalProperties?: OpenAPISchemaLike | boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);
const PLAIN_IDENTIFIER = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/**
 * kube's CEL property-name escaping; undefined when the name cannot be expressed (the field is then not
 * visible to CEL, as in kube).
 */
export function escapeCelProperty(name: string): string | undefined {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (PLAIN_IDENTIFIER.test(name) && !name.includes('__')) return name;
  if (!ESCAPABLE.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) =>
    m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__',
  );
}

const durationOf = parse('duration(s)');

function convertString(s: string, format: string | undefined): unknown {
  switch (format) {
    case 'date-time':
    case 'datetime':
    case 'date': {
      const d = new Date(format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
      return Number.isNaN(d.getTime()) ? s : d;
    }
    case 'duration':
      try {
        return durationOf({ s });
      } catch {
        return s;
      }
    case 'byte':
      return new Uint8Array(Buffer.from(s, 'base64'));
    default:
      return s;
  }
}

/** kube types every resource root as having apiVersion, kind and metadata limited to name and generateName */
function addResourceRootFields(raw: Record<string, unknown>, out: Record<string, unknown>): void {
  for (const k of ['apiVersion', 'kind']) if (typeof raw[k] === 'string') out[k] = raw[k];
  const meta = raw.metadata;
  if (typeof meta !== 'object' || meta === null) return;
  const visible: Record<string, unknown> = {};
  for (const k of ['name', 'generateName']) {
    const v = (meta as Record<string, unknown>)[k];
    if (typeof v === 'string') visible[k] = v;
  }
  out.metadata = visible;
}

function itemsSchema(schema: OpenAPISchemaLike | undefined): OpenAPISchemaLike | undefined {
  const items = schema?.items;
  return Array.isArray(items) ? undefined : items;
}

function convert(value: unknown, schema: OpenAPISchemaLike | undefined, resourceRoot: boolean): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'number':
      if (schema?.type === 'number') return value;
      return Number.isInteger(value) ? BigInt(value) : value;
    case 'string':
      return schema?.format ? convertString(value, schema.format) : value;
    case 'boolean':
    case 'bigint':
      return value;
    case 'object':
      break;
    default:
      return value;
  }
  if (Array.isArray(value)) {
    const items = itemsSchema(schema);
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++)
      out[i] = convert(value[i], items, items?.['x-kubernetes-embedded-resource'] === true);
    return out;
  }
  if (value instanceof Uint8Array || value instanceof Date || value instanceof Map) return value;
  const props = schema?.properties;
  const additional = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (additional || !props) {
      out[key] = convert(v, additional, additional?.['x-kubernetes-embedded-resource'] === true);
      continue;
    }
    // declared properties only: kube hides unknown fields kept by x-kubernetes-preserve-unknown-fields
    const propSchema = props[key];
    const name = propSchema && escapeCelProperty(key);
    if (name) out[name] = convert(v, propSchema, propSchema['x-kubernetes-embedded-resource'] === true);
  }
  if (resourceRoot) addResourceRootFields(value as Record<string, unknown>, out);
  return out;
}

/**
 * JSON → CEL. With a schema, integer-typed nodes become BigInt and number-typed nodes stay doubles; without
 * one, every integral number becomes a BigInt. `resourceRoot` applies kube's metadata restriction.
 */
export function toCel(value: unknown, schema?: OpenAPISchemaLike, opts?: { resourceRoot?: boolean }): unknown {
  if (!schema) return convertUntyped(value);
  return convert(value, schema, opts?.resourceRoot ?? false);
}

function convertUntyped(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(convertUntyped);
  if (value instanceof Uint8Array || value instanceof Date || value instanceof Map) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = convertUntyped(v);
  return out;
}

/** CEL → JSON: int/uint → number, timestamps → RFC 3339, durations → '1h0m0s'-style text, bytes → base64 */
export function fromCel(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'bigint':
      return Number(value);
    case 'number':
    case 'string':
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return String(value);
  }
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Duration) return value.toString();
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), fromCel(v)]));
  const ctor = (value as object).constructor;
  if (ctor === Object || ctor === undefined) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromCel(v)]));
  }
  const optional = value as { hasValue?: () => boolean; value?: () => unknown };
  if (typeof optional.hasValue === 'function' && typeof optional.value === 'function') {
    return optional.hasValue() ? fromCel(optional.value()) : null;
  }
  const prim = (value as { valueOf(): unknown }).valueOf();
  if (typeof prim === 'bigint') return fromCel(prim);
  return String(value);
}
