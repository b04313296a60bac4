// Which status fields a field manager alone owns, read from the object's managedFields field sets (never
// from their timestamps, which have one-second resolution: two writes in one second look alike there). A
// controller's own status writes change only fields it owns; a change anywhere else in the status is news
// for it. `statusOthersSee(obj, manager)` is the status with the manager's exclusive fields taken out, so
// two versions of an object compare equal under it exactly when nobody else changed the status.

import type { KubeObject } from '../meta/types.ts';

type Json = unknown;
type FieldsV1 = Record<string, Json>;

/** the leaf paths (and owned list/map nodes, as `…/.`) of a fieldsV1 tree under f:status */
function statusPaths(fields: FieldsV1 | undefined): string[] {
  const status = fields?.['f:status'];
  if (!status || typeof status !== 'object') return [];
  const out: string[] = [];
  const walk = (node: FieldsV1, prefix: string[]) => {
    const keys = Object.keys(node);
    if (keys.length === 0) {
      out.push(JSON.stringify(prefix));
      return;
    }
    for (const k of keys) {
      if (k === '.') out.push(JSON.stringify([...prefix, '.']));
      else if (node[k] && typeof node[k] === 'object') walk(node[k] as FieldsV1, [...prefix, k]);
    }
  };
  walk(status as FieldsV1, []);
  return out;
}

/** the status paths `manager` owns (shared or not), as JSON strings */
function ownedPaths(obj: KubeObject, manager: string): Set<string> {
  const out = new Set<string>();
  for (const e of obj.metadata.managedFields ?? [])
    if (e.manager === manager) for (const p of statusPaths(e.fieldsV1 as FieldsV1 | undefined)) out.add(p);
  return out;
}

/**
 * Did `manager` lose a status field between two versions of an object? Another writer removing one of its
 * fields (a JSON patch `remove`, a merge patch `null`) takes no ownership and leaves the rest of the status
 * as it was, so only this shows it; the manager's own write that drops a field looks the same, and costs
 * one reconcile that finds nothing to do.
 */
export function lostStatusFields(old: KubeObject, obj: KubeObject, manager: string): boolean {
  const now = ownedPaths(obj, manager);
  for (const p of ownedPaths(old, manager)) if (!now.has(p)) return true;
  return false;
}

/** the status paths `manager` owns and no other manager does */
function exclusivePaths(obj: KubeObject, manager: string): string[][] {
  const mine = new Set<string>();
  const others = new Set<string>();
  for (const e of obj.metadata.managedFields ?? []) {
    const target = e.manager === manager ? mine : others;
    for (const p of statusPaths(e.fieldsV1 as FieldsV1 | undefined)) target.add(p);
  }
  return [...mine].filter((p) => !others.has(p)).map((p) => JSON.parse(p) as string[]);
}

/** the index of the element of `items` that a fieldsV1 list key names, or -1 */
function elementIndex(items: Json[], key: string): number {
  try {
    if (key.startsWith('k:')) {
      const fields = JSON.parse(key.slice(2)) as Record<string, Json>;
      return items.findIndex(
        (it) =>
          typeof it === 'object' &&
          it !== null &&
          Object.entries(fields).every(
            ([f, v]) => JSON.stringify((it as Record<string, Json>)[f]) === JSON.stringify(v),
          ),
      );
    }
    if (key.startsWith('v:')) {
      const value = key.slice(2);
      return items.findIndex((it) => JSON.stringify(it) === value);
    }
    if (key.startsWith('i:')) {
      const i = Number.parseInt(key.slice(2), 10);
      return i < items.length ? i : -1;
    }
  } catch {
    return -1;
  }
  return -1;
}

const REMOVED = Symbol('removed');

/**
 * Where the value at `path` (fieldsV1 keys) lives: its container and the key or index in it; none for a
 * `.` (a node is dropped only once stripping emptied it) or a path that names nothing. All paths are
 * resolved before any is removed: list elements are found by their key fields, which removal takes away.
 */
function locate(
  root: Json,
  path: string[],
): { container: Record<string, Json> | Json[]; at: string | number } | undefined {
  let node: Json = root;
  for (let i = 0; i < path.length - 1; i++) {
    node = child(node, path[i]!);
    if (node === undefined) return undefined;
  }
  const last = path.at(-1)!;
  if (last === '.') return undefined;
  if (last.startsWith('f:'))
    return isObject(node) && last.slice(2) in node ? { container: node, at: last.slice(2) } : undefined;
  if (!Array.isArray(node)) return undefined;
  const i = elementIndex(node, last);
  return i >= 0 ? { container: node, at: i } : undefined;
}

function child(node: Json, key: string): Json {
  if (key.startsWith('f:')) return isObject(node) ? (node as Record<string, Json>)[key.slice(2)] : undefined;
  if (!Array.isArray(node)) return undefined;
  const i = elementIndex(node, key);
  return i >= 0 ? node[i] : undefined;
}

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** drops removed values, and containers that stripping emptied (they held only the manager's fields) */
function compact(v: Json): Json {
  if (Array.isArray(v)) {
    const out: Json[] = [];
    for (const x of v) {
      if (x === REMOVED) continue;
      const c = compact(x);
      if (!(emptied(x) && isEmpty(c))) out.push(c);
    }
    return out;
  }
  if (!isObject(v)) return v;
  const out: Record<string, Json> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === REMOVED) continue;
    const c = compact(x);
    if (emptied(x) && isEmpty(c)) continue;
    out[k] = c;
  }
  return out;
}

/** did stripping remove something inside this value? */
function emptied(v: Json): boolean {
  if (Array.isArray(v)) return v.some((x) => x === REMOVED || emptied(x));
  return isObject(v) && Object.values(v).some((x) => x === REMOVED || emptied(x));
}

const isEmpty = (v: Json) => (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/**
 * The object's status without the fields `manager` alone owns: what the status says that somebody else wrote.
 * An object without managedFields (or a manager owning nothing) gives the whole status.
 */
export function statusOthersSee(obj: KubeObject, manager: string): Json {
  const status = (obj as { status?: Json }).status;
  if (status === undefined) return undefined;
  const paths = exclusivePaths(obj, manager);
  if (paths.length === 0) return status;
  const copy = structuredClone(status);
  const found = paths.map((p) => locate(copy, p));
  for (const f of found) if (f) (f.container as Record<string | number, Json>)[f.at] = REMOVED;
  return compact(copy);
}
