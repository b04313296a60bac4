// Turns zod's OpenAPI 3.0 output into a Kubernetes *structural* schema. zod gets close on its own; what is left
// is what kube-apiserver rejects or treats differently: `additionalProperties: false` (structural schemas prune
// instead), the ±2^53-1 bounds zod puts on every `.int()`, `$schema`, and `additionalProperties: {}` from
// z.record(z.string(), z.unknown()) / z.looseObject, which kube spells x-kubernetes-preserve-unknown-fields.

import type { JSONSchemaProps } from '@modelplane/apimachinery/builtin';
/** an OpenAPI v3 schema as a CRD stores it, open to the keywords structural() reads and writes */
export type JsonSchema = JSONSchemaProps & Record<string, unknown>;

const SAFE_BOUND = Number.MAX_SAFE_INTEGER;
/** keys that take one sub-schema */
const SCHEMA_KEYS = ['items', 'additionalProperties', 'not'] as const;
/** keys that take a list of sub-schemas */
const SCHEMA_LIST_KEYS = ['anyOf', 'allOf', 'oneOf'] as const;
/** keys that are not allowed anywhere in a structural schema */
const FORBIDDEN_KEYS = [
  '$ref',
  '$defs',
  'definitions',
  'const',
  'patternProperties',
  'dependencies',
  'if',
  'then',
  'else',
];

/** Rewrites zod's JSON schema into a structural one, throwing on constructs that cannot be made structural. */
export function toStructural(schema: JsonSchema, path = ''): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'id' || key === '$id') continue;
    if (FORBIDDEN_KEYS.includes(key))
      throw new Error(`schema ${path || '<root>'}: "${key}" is not allowed in a structural schema`);
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === SAFE_BOUND) continue;
    if (key === 'properties') {
      const props: Record<string, JsonSchema> = {};
      for (const [name, sub] of Object.entries(value as JsonSchema))
        props[name] = toStructural(sub as JsonSchema, `${path}.${name}`);
      out.properties = props;
      continue;
    }
    if ((SCHEMA_KEYS as readonly string[]).includes(key)) {
      if (key === 'additionalProperties' && value === false) continue;
      if (key === 'additionalProperties' && isEmptySchema(value)) {
        out['x-kubernetes-preserve-unknown-fields'] = true;
        continue;
      }
      out[key] = toStructural(value as JsonSchema, `${path}${key === 'items' ? '[*]' : `.${key}`}`);
      continue;
    }
    if ((SCHEMA_LIST_KEYS as readonly string[]).includes(key)) {
      out[key] = (value as JsonSchema[]).map((s, i) => toStructural(s, `${path}.${key}[${i}]`));
      continue;
    }
    out[key] = value;
  }
  if (isEmptySchema(schema)) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (out.properties && out.additionalProperties) {
    throw new Error(
      `schema ${path || '<root>'}: properties and additionalProperties are mutually exclusive in a structural schema`,
    );
  }
  assertStructuralNode(out, path);
  return out;
}

function isEmptySchema(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** The per-node rules of kube's structural-schema check that zod output can violate. */
function assertStructuralNode(node: JsonSchema, path: string): void {
  const where = path || '<root>';
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  if (node.oneOf)
    throw new Error(`schema ${where}: oneOf is not structural; express alternatives with x-kubernetes-validations`);
  if (node.anyOf) {
    if (!intOrString)
      throw new Error(
        `schema ${where}: anyOf (a zod union) is only allowed for int-or-string; use x-kubernetes-validations`,
      );
    // kube accepts anyOf under int-or-string only when the branches carry nothing but types/value validations
    node.anyOf = (node.anyOf as JsonSchema[]).map((b) => {
      const { type, ...rest } = b;
      for (const k of Object.keys(rest)) if (k !== 'pattern' && k !== 'minimum' && k !== 'maximum') delete rest[k];
      return { type, ...rest };
    });
  }
  if (node.type === undefined && !intOrString && !preserve) {
    throw new Error(
      `schema ${where}: every node needs a type (or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields)`,
    );
  }
}
