// x-kubernetes-list-type set/map uniqueness (apiextensions-apiserver schema/listtype) and the
// apiVersion/kind checks of embedded resources (schema/objectmeta), both walked along the schema.
// Paths use field.Path notation: `spec.ports[1]`, `spec.labels[key]`.
import type { StatusCause } from '../errors.ts';
import { isPlainObject, type SchemaNode } from './compiled-schema.ts';
import { fieldError, fieldPath } from './field-errors.ts';
import { embeddedResourceErrors } from './object-meta.ts';

/** Canonical text of a JSON value (sorted keys) so equal compound values compare equal. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlainObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  if (typeof v === 'number') return `n:${v}`;
  return JSON.stringify(v) ?? 'undefined';
}

function setErrors(list: unknown[], path: string, out: StatusCause[]): void {
  if (list.length <= 1) return;
  const seen = new Map<string, number>();
  list.forEach((x, i) => {
    const k = canonical(x);
    const times = seen.get(k) ?? 0;
    seen.set(k, times + 1);
    // kube reports each duplicated value once, at its second occurrence
    if (times === 1) out.push(fieldError.duplicate(fieldPath.index(path, i), x));
  });
}

function mapErrors(node: SchemaNode, list: unknown[], path: string, out: StatusCause[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isPlainObject(x)) {
      out.push(fieldError.invalid(fieldPath.index(path, i), x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  const keys = node.listMapKeys;
  const seen = new Map<string, number>();
  for (let i = 0; i < list.length; i++) {
    const item = (list[i] ?? {}) as Record<string, unknown>;
    const id = keys.length === 1 ? keyPart(item, keys[0]!) : keys.map((k) => keyPart(item, k)).join('\u0000');
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times !== 1) continue;
    const keyValue: Record<string, unknown> = {};
    for (const k of keys) if (Object.hasOwn(item, k)) keyValue[k] = item[k];
    out.push(fieldError.duplicate(fieldPath.index(path, i), keyValue));
  }
}

function keyPart(item: Record<string, unknown>, k: string): string {
  return Object.hasOwn(item, k) ? canonical(item[k]) : '<unspecified>';
}

/** Appends duplicate-entry causes for every set/map list in `x`. */
export function listTypeErrors(node: SchemaNode | null, x: unknown, path: string, out: StatusCause[]): void {
  if (node === null || !node.hasListTypes) return;
  if (Array.isArray(x)) {
    if (node.listType === 'set') setErrors(x, path, out);
    else if (node.listType === 'map') mapErrors(node, x, path, out);
    if (node.items?.hasListTypes)
      for (let i = 0; i < x.length; i++) listTypeErrors(node.items, x[i], fieldPath.index(path, i), out);
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k in x) {
    const prop = node.properties?.get(k);
    if (prop !== undefined) listTypeErrors(prop, x[k], fieldPath.child(path, k), out);
    else if (node.additional !== null) listTypeErrors(node.additional, x[k], fieldPath.key(path, k), out);
  }
}

/** Appends apiVersion/kind causes for every embedded resource below the root. */
export function embeddedErrors(
  node: SchemaNode | null,
  x: unknown,
  path: string,
  out: StatusCause[],
  isRoot = false,
): void {
  if (node === null || !node.hasEmbedded) return;
  if (Array.isArray(x)) {
    if (node.items) for (let i = 0; i < x.length; i++) embeddedErrors(node.items, x[i], fieldPath.index(path, i), out);
    return;
  }
  if (!isPlainObject(x)) return;
  if (node.embedded && !isRoot) out.push(...embeddedResourceErrors(x, path));
  for (const k in x) {
    const prop = node.properties?.get(k);
    if (prop !== undefined) embeddedErrors(prop, x[k], fieldPath.child(path, k), out);
    else if (node.additional !== null) embeddedErrors(node.additional, x[k], fieldPath.key(path, k), out);
  }
}
