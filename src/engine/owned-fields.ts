// Which part of an object's status belongs to this controller. Several controllers write one status with
// server-side apply (one field manager each), so a controller must apply only the fields it owns: applying
// a copy of someone else's field would take it over, and a stale copy would overwrite their newer value.
// The managedFields entry of our field manager says exactly which fields those are.

import type { KubeObject, ManagedFieldsEntry } from '@modelplane/runtime/meta';

type FieldsV1 = Record<string, unknown>;

function ownApplyEntry(obj: KubeObject, fieldManager: string, subresource: string): ManagedFieldsEntry | undefined {
  return (obj.metadata.managedFields ?? []).find(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && (e.subresource ?? '') === subresource,
  );
}

/**
 * The status fields `fieldManager` owns through server-side apply on the status subresource, as a fresh
 * copy. No entry (never applied) gives an empty status.
 */
export function ownedStatus(obj: KubeObject, fieldManager: string): Record<string, unknown> {
  const entry = ownApplyEntry(obj, fieldManager, 'status');
  const fields = entry?.fieldsV1?.['f:status'];
  const status = obj.status;
  if (!isRecord(fields) || !isRecord(status)) return {};
  const out = extractOwned(status, fields);
  return isRecord(out) ? out : {};
}

/** the part of `value` that `fields` (a fieldsV1 tree) names; a leaf takes the whole value */
export function extractOwned(value: unknown, fields: FieldsV1): unknown {
  const children = Object.keys(fields).filter((k) => k !== '.');
  if (children.length === 0) return structuredClone(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    // keep the live order of the elements
    for (const item of value) {
      for (const key of children) {
        if (!elementMatches(item, key, value)) continue;
        const sub = fields[key];
        const part = isRecord(sub) ? extractOwned(item, sub) : structuredClone(item);
        out.push(key.startsWith('k:') && isRecord(part) ? { ...keyFields(key), ...part } : part);
        break;
      }
    }
    return out;
  }
  if (!isRecord(value)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of children) {
    if (!key.startsWith('f:')) continue;
    const name = key.slice(2);
    if (!Object.hasOwn(value, name)) continue;
    const sub = fields[key];
    out[name] = isRecord(sub) ? extractOwned(value[name], sub) : structuredClone(value[name]);
  }
  return out;
}

function keyFields(key: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(key.slice(2));
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function elementMatches(item: unknown, key: string, list: unknown[]): boolean {
  if (key.startsWith('k:')) {
    const k = keyFields(key);
    return isRecord(item) && Object.keys(k).length > 0 && Object.entries(k).every(([f, v]) => item[f] === v);
  }
  if (key.startsWith('v:')) {
    try {
      return JSON.stringify(JSON.parse(key.slice(2))) === JSON.stringify(item);
    } catch {
      return false;
    }
  }
  if (key.startsWith('i:')) return list[Number.parseInt(key.slice(2), 10)] === item;
  return false;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
