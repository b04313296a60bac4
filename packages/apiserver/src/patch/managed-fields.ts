// metadata.managedFields in and out: decoding entries into per-manager field sets, the manager
// identity kube uses (manager + operation + subresource, plus apiVersion for Update entries),
// encoding back in kube's order, and capping the number of Update entries.

import type { ManagedFieldsEntry } from '../types.ts';
import { FieldSet } from './fieldpath.ts';
import { goQuote, isObject } from './json-value.ts';
import { FieldPathError } from './path-elements.ts';

/** kube's stripMetaManager fields below metadata: no manager ever owns them (nor apiVersion, kind, metadata) */
export const STRIPPED_METADATA_FIELDS = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
] as const;

export type { ManagedFieldsEntry };

export interface ManagerSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Field sets by manager identifier, with the time each manager last changed the object. */
export interface Managed {
  fields: Map<string, ManagerSet>;
  times: Map<string, string | undefined>;
}

export class ManagedFieldsDecodeError extends Error {}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

export function cloneManaged(m: Managed): Managed {
  return { fields: new Map(m.fields), times: new Map(m.times) };
}

export interface ManagerIdentity {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
}

/**
 * kube's BuildManagerIdentifier: the JSON of the entry without time, fields and fieldsType — and
 * without apiVersion for appliers, so an applier keeps one entry across versions.
 */
export function managerIdentifier(e: ManagerIdentity): string {
  const parts: string[] = [];
  if (e.manager) parts.push(`"manager":${goQuote(e.manager)}`);
  if (e.operation) parts.push(`"operation":${goQuote(e.operation)}`);
  if (e.apiVersion && e.operation !== 'Apply') parts.push(`"apiVersion":${goQuote(e.apiVersion)}`);
  if (e.subresource) parts.push(`"subresource":${goQuote(e.subresource)}`);
  return `{${parts.join(',')}}`;
}

export function parseIdentifier(id: string): ManagerIdentity {
  try {
    const v = JSON.parse(id) as unknown;
    return isObject(v) ? (v as ManagerIdentity) : {};
  } catch {
    return {};
  }
}

/** metav1.Time as kube writes it: RFC 3339, seconds precision, UTC. */
export function formatTime(t: Date | string): string {
  const d = typeof t === 'string' ? new Date(t) : t;
  if (Number.isNaN(d.getTime())) throw new ManagedFieldsDecodeError(`invalid time ${String(t)}`);
  return `${d.toISOString().slice(0, 19)}Z`;
}

function timeSeconds(t: string | undefined): number {
  return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
}

/** kube's DecodeManagedFields; throws on the first invalid entry. */
export function decodeManagedFields(list: unknown): Managed {
  const out = emptyManaged();
  if (list === undefined || list === null) return out;
  if (!Array.isArray(list)) throw new ManagedFieldsDecodeError('managedFields must be a list');
  list.forEach((raw, i) => {
    const e = (isObject(raw) ? raw : {}) as ManagedFieldsEntry & Record<string, unknown>;
    if (e.operation !== 'Apply' && e.operation !== 'Update')
      throw new ManagedFieldsDecodeError('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || e.apiVersion.length < 1)
      throw new ManagedFieldsDecodeError('apiVersion must not be empty');
    if (e.fieldsType === undefined || (e.fieldsType as string) === '')
      throw new ManagedFieldsDecodeError(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1')
      throw new ManagedFieldsDecodeError(
        `invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`,
      );
    const id = managerIdentifier({
      manager: str(e.manager),
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: str(e.subresource),
    });
    let set: FieldSet;
    try {
      set = e.fieldsV1 === undefined || e.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(e.fieldsV1);
    } catch (err) {
      throw new ManagedFieldsDecodeError(
        `error decoding versioned set from entry ${i}: ${err instanceof FieldPathError ? err.message : String(err)}`,
      );
    }
    out.fields.set(id, { set, apiVersion: e.apiVersion, applied: e.operation === 'Apply' });
    out.times.set(id, e.time === undefined || e.time === null ? undefined : formatTime(String(e.time)));
  });
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A list that asks for managedFields to be reset: an empty list, or one empty entry. */
export function isResetManagedFields(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  if (list.length === 0) return true;
  return list.length === 1 && isObject(list[0]) && Object.keys(list[0]).length === 0;
}

/** kube's encodeManagedFields: one entry per manager, Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(m: Managed): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const who = parseIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (who.manager) e.manager = who.manager;
    e.operation = vs.applied ? 'Apply' : ((who.operation as 'Update' | undefined) ?? 'Update');
    e.apiVersion = vs.apiVersion;
    const t = m.times.get(id);
    if (t !== undefined) e.time = t;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = vs.set.toFieldsV1();
    if (who.subresource) e.subresource = who.subresource;
    entries.push(e);
  }
  return entries.sort(compareEntries);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    cmp(p.operation ?? '', q.operation ?? '') ||
    timeSeconds(p.time) - timeSeconds(q.time) ||
    cmp(p.manager ?? '', q.manager ?? '') ||
    cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
    cmp(p.subresource ?? '', q.subresource ?? '')
  );
}

export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';

/** Merges the oldest Update entries into per-version "ancient-changes" buckets until at most `max` remain. */
export function capUpdateManagers(m: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...m.fields.entries()].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => timeSeconds(m.times.get(a)) - timeSeconds(m.times.get(b)) || cmp(a, b));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i]!;
    const vs = m.fields.get(id)!;
    const time = m.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!m.fields.has(bucket)) {
      m.fields.set(bucket, m.fields.get(first)!);
      m.fields.delete(first);
      m.times.delete(first);
    }
    const current = m.fields.get(bucket)!;
    m.fields.set(bucket, { set: vs.set.union(current.set), apiVersion: vs.apiVersion, applied: false });
    m.fields.delete(id);
    m.times.delete(id);
    m.times.set(bucket, time);
    length--;
  }
}
