// Pruning as kube-apiserver does it when it decodes a custom resource (structural/pruning +
// PruneNonNullableNullsWithoutDefaults + ObjectMeta coercion): fields the schema does not specify are
// dropped unless x-kubernetes-preserve-unknown-fields says otherwise, `metadata` keeps only ObjectMeta
// fields, and a null in a non-nullable field without default disappears. The dropped paths are returned
// so the caller can warn or reject under fieldValidation=Warn/Strict.
import { isPlainObject, type SchemaNode } from './compiled-schema.ts';
import { pruneObjectMeta } from './object-meta.ts';

function childKey(parent: string, k: string): string {
  return parent ? `${parent}.${k}` : k;
}

/** A null where the schema neither allows null nor has a default is dropped rather than rejected. */
function dropsNull(node: SchemaNode): boolean {
  return !node.nullable && (node.schema.default === undefined || node.schema.default === null);
}

/** Keeps apiVersion/kind strings and a metadata map of a resource (the root or an embedded one). */
function keepsResourceMeta(k: string, v: unknown): boolean {
  if (k === 'apiVersion' || k === 'kind') return typeof v === 'string';
  return k === 'metadata' && isPlainObject(v);
}

function pruneMap(
  x: Record<string, unknown>,
  node: SchemaNode | null,
  embedded: boolean,
  path: string,
  out: string[],
): void {
  if (node === null) {
    for (const k of Object.keys(x)) {
      out.push(childKey(path, k));
      delete x[k];
    }
    return;
  }
  for (const k in x) {
    const v = x[k];
    if (embedded && keepsResourceMeta(k, v)) {
      if (k === 'metadata') pruneObjectMeta(v as Record<string, unknown>, childKey(path, 'metadata'), out);
      continue;
    }
    const prop = node.properties?.get(k);
    // (a scalar has nothing to prune: its path is not even built)
    if (prop !== undefined) {
      if (v === null && dropsNull(prop)) delete x[k];
      else if (typeof v === 'object' && v !== null) prune(v, prop, childKey(path, k), out);
    } else if (node.hasAdditional) {
      if (typeof v === 'object' && v !== null) prune(v, node.additional, childKey(path, k), out);
    } else {
      out.push(childKey(path, k));
      delete x[k];
    }
  }
}

function prune(x: unknown, node: SchemaNode | null, path: string, out: string[]): void {
  if (node?.preserveUnknown) {
    skipPrune(x, node, path, out);
    return;
  }
  if (Array.isArray(x)) {
    const items = node ? node.items : null;
    for (let i = 0; i < x.length; i++) prune(x[i], items, `${path}[${i}]`, out);
  } else if (isPlainObject(x)) {
    pruneMap(x, node, !!node?.embedded, path, out);
  }
}

/** Below x-kubernetes-preserve-unknown-fields unknown fields stay, but specified ones are still pruned inside. */
function skipPrune(x: unknown, node: SchemaNode, path: string, out: string[]): void {
  if (Array.isArray(x)) {
    if (node.items) for (let i = 0; i < x.length; i++) skipPrune(x[i], node.items, `${path}[${i}]`, out);
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k in x) {
    const v = x[k];
    if (node.embedded && keepsResourceMeta(k, v)) {
      if (k === 'metadata') pruneObjectMeta(v as Record<string, unknown>, childKey(path, 'metadata'), out);
      continue;
    }
    const prop = node.properties?.get(k);
    if (prop !== undefined) {
      if (v === null && dropsNull(prop)) delete x[k];
      else prune(v, prop, childKey(path, k), out);
    } else if (node.additional) {
      prune(v, node.additional, childKey(path, k), out);
    }
  }
}

/**
 * Prunes a whole custom resource in place. The root is treated as an embedded resource: apiVersion, kind
 * and metadata always survive, and metadata is reduced to ObjectMeta's fields.
 */
export function pruneResource(obj: Record<string, unknown>, root: SchemaNode): string[] {
  const out: string[] = [];
  if (root.preserveUnknown) {
    for (const k in obj) {
      const v = obj[k];
      if (keepsResourceMeta(k, v)) {
        if (k === 'metadata') pruneObjectMeta(v as Record<string, unknown>, 'metadata', out);
        continue;
      }
      const prop = root.properties?.get(k);
      if (prop !== undefined) {
        if (v === null && dropsNull(prop)) delete obj[k];
        else prune(v, prop, k, out);
      } else if (root.additional) prune(v, root.additional, k, out);
    }
    return out.sort();
  }
  pruneMap(obj, root, true, '', out);
  // sorted so Strict-mode errors and Warn-mode warnings list the fields in a stable order
  return out.sort();
}

/** Prunes a value against a schema node that is not a resource root (used to check CRD default values). */
export function pruneValue(value: unknown, node: SchemaNode): string[] {
  const out: string[] = [];
  prune(value, node, '', out);
  return out;
}
