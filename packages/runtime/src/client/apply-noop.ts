// Would a server-side apply change anything? Answering this from the cache is what makes a resync with
// nothing changed cost zero writes. An apply is a no-op when
//   1. every field in the desired object already has that value in the live object, and
//   2. the manager already owns (through an Apply entry in managedFields) no field the desired object
//      leaves out, since the server would delete those.
// When in doubt (no managedFields entry for the manager, unparseable keys) the answer is "apply".

import { isSubset } from '../meta/equality.ts';
import type { KubeObject, ManagedFieldsEntry } from '../meta/types.ts';

type Json = unknown;

/** the fields an apply body sets, without identity fields that always match */
function applyBody(desired: KubeObject, subresource: string | undefined): Record<string, Json> {
  if (subresource === 'status') return { status: desired.status };
  const { apiVersion: _a, kind: _k, status: _s, metadata, ...rest } = desired;
  const { name: _n, namespace: _ns, resourceVersion: _rv, managedFields: _mf, uid: _u, ...meta } = metadata;
  return Object.keys(meta).length > 0 ? { ...rest, metadata: meta } : rest;
}

function ownEntry(
  live: KubeObject,
  fieldManager: string,
  subresource: string | undefined,
): ManagedFieldsEntry | undefined {
  return (live.metadata.managedFields ?? []).find(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && (e.subresource ?? '') === (subresource ?? ''),
  );
}

/** does `items` (a desired list) contain an element the fieldsV1 list key `k:{…}` / `v:…` / `i:N` names? */
function listHas(items: Json[], key: string): boolean {
  try {
    if (key.startsWith('k:')) {
      const fields = JSON.parse(key.slice(2)) as Record<string, Json>;
      return items.some(
        (it) =>
          typeof it === 'object' &&
          it !== null &&
          Object.entries(fields).every(([f, v]) => (it as Record<string, Json>)[f] === v),
      );
    }
    if (key.startsWith('v:')) {
      const value = JSON.parse(key.slice(2)) as Json;
      return items.some((it) => isSubset(value, it) && isSubset(it, value));
    }
    if (key.startsWith('i:')) return Number.parseInt(key.slice(2), 10) < items.length;
  } catch {
    return false;
  }
  return false;
}

/** true when every field recorded in `owned` (a fieldsV1 tree) is still present in `desired` */
function ownedFieldsStillDesired(owned: Record<string, Json>, desired: Json): boolean {
  for (const [key, sub] of Object.entries(owned)) {
    if (key === '.') continue;
    if (key.startsWith('f:')) {
      if (typeof desired !== 'object' || desired === null || Array.isArray(desired)) return false;
      const value = (desired as Record<string, Json>)[key.slice(2)];
      if (value === undefined) return false;
      if (
        sub &&
        typeof sub === 'object' &&
        Object.keys(sub).length > 0 &&
        !ownedFieldsStillDesired(sub as Record<string, Json>, value)
      )
        return false;
      continue;
    }
    // a list element key: the element must still be desired, and so must its owned sub-fields
    if (!Array.isArray(desired) || !listHas(desired, key)) return false;
    if (sub && typeof sub === 'object' && Object.keys(sub).length > 0) {
      const element = elementFor(desired, key);
      if (element === undefined || !ownedFieldsStillDesired(sub as Record<string, Json>, element)) return false;
    }
  }
  return true;
}

function elementFor(items: Json[], key: string): Json | undefined {
  if (key.startsWith('i:')) return items[Number.parseInt(key.slice(2), 10)];
  if (key.startsWith('k:')) {
    const fields = JSON.parse(key.slice(2)) as Record<string, Json>;
    return items.find(
      (it) =>
        typeof it === 'object' &&
        it !== null &&
        Object.entries(fields).every(([f, v]) => (it as Record<string, Json>)[f] === v),
    );
  }
  return undefined;
}

/**
 * True when applying `desired` as `fieldManager` (to the main resource, or to `status`) would change the
 * live object. `live` is normally the cached copy; undefined means the object does not exist.
 */
export function needsApply(
  desired: KubeObject,
  live: KubeObject | undefined,
  fieldManager: string,
  subresource?: 'status',
): boolean {
  if (!live) return true;
  const body = applyBody(desired, subresource);
  if (!isSubset(body, live)) return true;
  const entry = ownEntry(live, fieldManager, subresource);
  if (!entry) return true;
  const owned = entry.fieldsV1 ?? {};
  return !ownedFieldsStillDesired(owned, desired);
}
