// Structural defaulting (apiextensions-apiserver schema/defaulting.Default): a missing field, or a null in
// a non-nullable field, gets a deep copy of its schema default; defaults are applied top-down, so the
// fields inside a freshly defaulted object get their own defaults too. Runs on write and on read.
import { compileSchema, deepCopyJson, isPlainObject, type SchemaNode } from './compiled-schema.ts';
import type { JSONSchemaProps } from './types.ts';

function isNonNullableNull(v: unknown, node: SchemaNode | null): boolean {
  return v === null && node !== null && !node.nullable;
}

function hasDefault(node: SchemaNode | null): node is SchemaNode {
  return node !== null && node.schema.default !== undefined && node.schema.default !== null;
}

export function defaultNode(x: unknown, node: SchemaNode | null): void {
  if (node === null || !node.hasDefaults) return;
  if (Array.isArray(x)) {
    const items = node.items;
    if (items === null) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && hasDefault(items)) x[i] = deepCopyJson(items.schema.default);
      defaultNode(x[i], items);
    }
    return;
  }
  if (!isPlainObject(x)) return;
  for (const [k, def] of node.defaulted) {
    const prop = node.properties!.get(k)!;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = deepCopyJson(def);
  }
  for (const k in x) {
    const prop = node.properties?.get(k);
    if (prop !== undefined) {
      defaultNode(x[k], prop);
    } else if (node.additional !== null) {
      if (isNonNullableNull(x[k], node.additional) && hasDefault(node.additional))
        x[k] = deepCopyJson(node.additional.schema.default);
      defaultNode(x[k], node.additional);
    }
  }
}

/** Applies the schema's defaults to `obj` in place (kube does this on every write and every read). */
export function applyDefaults(schema: JSONSchemaProps, obj: unknown): void {
  defaultNode(obj, compileSchema(schema));
}
