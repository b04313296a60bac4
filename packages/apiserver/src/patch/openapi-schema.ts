// Converts a CRD version's structural OpenAPI v3 schema into the patch schema, the way kube's
// schemaconv does for server-side apply: x-kubernetes-list-type / list-map-keys / map-type decide how
// lists and maps merge, preserve-unknown-fields and additionalProperties give deduced or typed map
// entries, int-or-string is a scalar, and embedded resources carry ObjectMeta.
import { isObject } from './json-value.ts';
import { type ListSchema, objectMetaSchema, type PatchSchema, SCALAR, type StructSchema, UNTYPED } from './schema.ts';

type OpenAPI = Record<string, unknown>;

export function schemaFromOpenAPI(openAPIV3Schema: unknown): PatchSchema {
  const root = convert(isObject(openAPIV3Schema) ? openAPIV3Schema : {});
  const base: StructSchema = root.kind === 'struct' ? root : { kind: 'struct', fields: {}, other: UNTYPED };
  // kube publishes apiVersion, kind and ObjectMeta for every custom resource whatever the CRD says.
  return { ...base, fields: { ...base.fields, apiVersion: SCALAR, kind: SCALAR, metadata: objectMetaSchema } };
}

function convert(s: OpenAPI): PatchSchema {
  if (s['x-kubernetes-int-or-string'] === true) return SCALAR;
  const type = s.type;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (type === 'object' || (type === undefined && (isObject(s.properties) || s.additionalProperties !== undefined)))
    return convertObject(s, preserve);
  if (type === 'array') return convertArray(s);
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') return SCALAR;
  // untyped with preserve-unknown-fields, or a schema made only of anyOf/allOf
  return UNTYPED;
}

function convertObject(s: OpenAPI, preserve: boolean): StructSchema {
  const fields: Record<string, PatchSchema> = {};
  if (isObject(s.properties)) {
    for (const [k, v] of Object.entries(s.properties)) fields[k] = convert(isObject(v) ? v : {});
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    fields.apiVersion ??= SCALAR;
    fields.kind ??= SCALAR;
    fields.metadata = objectMetaSchema;
  }
  let other: PatchSchema = UNTYPED;
  if (isObject(s.additionalProperties)) other = convert(s.additionalProperties);
  else if (preserve || s.additionalProperties === true) other = UNTYPED;
  const out: StructSchema = { kind: 'struct', fields, other };
  if (s['x-kubernetes-map-type'] === 'atomic') out.mapType = 'atomic';
  return out;
}

function convertArray(s: OpenAPI): ListSchema {
  const items = isObject(s.items) ? s.items : {};
  const item = convert(items);
  const listType = s['x-kubernetes-list-type'];
  const keys = Array.isArray(s['x-kubernetes-list-map-keys'])
    ? (s['x-kubernetes-list-map-keys'] as unknown[]).filter((k): k is string => typeof k === 'string')
    : [];
  if (listType === 'map' && keys.length > 0) {
    const out: ListSchema = { kind: 'list', listType: 'map', keys, item };
    const defaults = keyDefaultsOf(items, keys);
    if (defaults) out.keyDefaults = defaults;
    return out;
  }
  if (listType === 'set') return { kind: 'list', listType: 'set', item };
  return { kind: 'list', listType: 'atomic', item };
}

function keyDefaultsOf(items: OpenAPI, keys: string[]): Record<string, string | number | boolean> | undefined {
  if (!isObject(items.properties)) return undefined;
  const out: Record<string, string | number | boolean> = {};
  let any = false;
  for (const k of keys) {
    const prop = items.properties[k];
    const d = isObject(prop) ? prop.default : undefined;
    if (typeof d === 'string' || typeof d === 'number' || typeof d === 'boolean') {
      out[k] = d;
      any = true;
    }
  }
  return any ? out : undefined;
}
