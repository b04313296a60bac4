// The field manager of kube-apiserver (k8s.io/apimachinery managedfields + structured-merge-diff's
// Updater), as one pipeline per operation:
//   Update: changed fields go to the writing manager and leave everyone else's sets;
//   Apply:  merge the configuration, give the applier exactly the fields it applied, prune what it
//           stopped applying (unless someone else owns it), and refuse to change fields other
//           managers own unless forced.
// Paths kube never tracks (apiVersion, kind, name, uid, resourceVersion…) are stripped, and the
// status subresource and the main resource each only see their own part of the object.
import { FieldSet } from './fieldpath.ts';
import { deepEqual, isObject, type Json, type JsonObject } from './json-value.ts';
import {
  capUpdateManagers,
  cloneManaged,
  type Managed,
  type ManagerSet,
  managerIdentifier,
  STRIPPED_METADATA_FIELDS,
} from './managed-fields.ts';
import { type PatchSchema, withZeroFields, zeroObject } from './schema.ts';
import { type Comparison, compareTyped, mergeTyped } from './typed-merge.ts';
import { ensureNamedFieldsAreMembers, removeItems, toFieldSet } from './typed-sets.ts';

export interface FieldManagerContext {
  schema: PatchSchema;
  /** group/version the request was made in; recorded on entries */
  apiVersion: string;
  subresource: string | undefined;
  /** RFC 3339 time recorded on entries that change the object */
  now: string;
  /** true when the kind has a status subresource (the main resource then ignores .status) */
  statusSubresource: boolean;
  /** /status also writes metadata.annotations (kube's Deployment status strategy resets only spec and labels) */
  statusAnnotations?: boolean;
}

/** Conflicts of an apply, by manager identifier. */
export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Map<string, FieldSet>) {
    super('apply conflicts');
  }
}

const CURRENT_OPERATION = 'current-operation';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const STATUS = FieldSet.of([{ field: 'status' }]);

/** kube's stripMetaManager set: paths no manager ever owns. */
const STRIPPED = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...STRIPPED_METADATA_FIELDS.map((f) => [{ field: 'metadata' }, { field: f }]),
);

/** The part of a field set a request may own: only .status on /status, everything but .status on the main resource. */
function scope(ctx: FieldManagerContext, set: FieldSet): FieldSet {
  if (ctx.subresource === 'status') {
    const status = set.onlyUnder('status');
    if (!ctx.statusAnnotations) return status;
    return status.union(
      set
        .onlyUnder('metadata')
        .mapNodes((_pe, _member, children) => ({ member: false, children: children?.onlyUnder('annotations') })),
    );
  }
  if (ctx.statusSubresource) return set.recursiveDifference(STATUS);
  return set;
}

function scopeComparison(ctx: FieldManagerContext, c: Comparison): Comparison {
  return { added: scope(ctx, c.added), modified: scope(ctx, c.modified), removed: scope(ctx, c.removed) };
}

/** What the write actually changes: /status keeps everything but .status, the main resource keeps .status. */
export function scopeObject(ctx: FieldManagerContext, live: JsonObject, next: JsonObject): JsonObject {
  const keepFrom = (src: JsonObject, base: JsonObject): JsonObject => {
    const out = { ...base };
    if (src.status === undefined) delete out.status;
    else out.status = src.status;
    return out;
  };
  if (ctx.subresource === 'status') {
    const out = keepFrom(next, live);
    if (!ctx.statusAnnotations) return out;
    const meta = { ...(out.metadata as JsonObject) };
    const annotations = (next.metadata as JsonObject | undefined)?.annotations;
    if (annotations === undefined) delete meta.annotations;
    else meta.annotations = annotations;
    return { ...out, metadata: meta };
  }
  if (ctx.statusSubresource) return keepFrom(live, next);
  return next;
}

function stripManager(fields: Map<string, ManagerSet>, id: string): void {
  const vs = fields.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.isEmpty()) fields.delete(id);
  else fields.set(id, { ...vs, set });
}

/**
 * SMD Updater.update: every manager other than `workflow` loses the fields this change modifies,
 * adds or removes; with force off, modified/added fields of other managers are conflicts instead.
 */
function updateManagers(
  ctx: FieldManagerContext,
  oldObj: Json,
  newObj: Json,
  fields: Map<string, ManagerSet>,
  workflow: string,
  force: boolean,
): Comparison {
  const compare = scopeComparison(
    ctx,
    compareTyped(withZeroFields(oldObj, ctx.schema), withZeroFields(newObj, ctx.schema), ctx.schema),
  );
  const changed = compare.modified.union(compare.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [id, vs] of fields) {
    if (id === workflow) continue;
    const c = vs.set.intersection(changed);
    if (!c.isEmpty()) conflicts.set(id, c);
  }
  if (!force && conflicts.size > 0) throw new ApplyConflicts(conflicts);
  for (const [id, vs] of [...fields]) {
    if (id === workflow) continue;
    const set = vs.set.difference(conflicts.get(id) ?? new FieldSet()).difference(compare.removed);
    if (set.isEmpty()) fields.delete(id);
    else fields.set(id, { ...vs, set });
  }
  return compare;
}

/** Records a non-apply write under `managerName`; `skipUntracked` is false only for the first-apply bootstrap. */
export function recordWrite(
  ctx: FieldManagerContext,
  live: JsonObject,
  next: JsonObject,
  managed: Managed,
  managerName: string,
  skipUntracked = true,
): Managed {
  // An existing object without managedFields stays untracked until someone applies (skipNonAppliedManager).
  if (skipUntracked && managed.fields.size === 0 && isObject(live.metadata) && live.metadata.uid) return managed;
  const m = cloneManaged(managed);
  const id = managerIdentifier({
    manager: managerName || 'unknown',
    operation: 'Update',
    apiVersion: ctx.apiVersion,
    subresource: ctx.subresource,
  });
  const compare = updateManagers(ctx, live, next, m.fields, CURRENT_OPERATION, true);
  const set = scope(ctx, compare.modified.union(compare.added).difference(compare.removed)).difference(STRIPPED);
  // The write took fields: merge them into the manager's previous entry and stamp the time.
  if (!set.isEmpty()) {
    const prev = m.fields.get(id);
    m.fields.set(id, { set: prev ? set.union(prev.set) : set, apiVersion: ctx.apiVersion, applied: false });
    m.times.set(id, ctx.now);
  }
  capUpdateManagers(m);
  return m;
}

export interface ApplyOutcome {
  object: JsonObject;
  managed: Managed;
  changed: boolean;
}

/** One apply attempt (kube's manager stack below lastAppliedManager). Throws ApplyConflicts. */
export function applyOnce(
  ctx: FieldManagerContext,
  live: JsonObject,
  config: JsonObject,
  managed: Managed,
  managerName: string,
  force: boolean,
): ApplyOutcome {
  let m = managed;
  // Fields set before anyone applied are attributed to a placeholder manager (skipNonAppliedManager).
  if (m.fields.size === 0)
    m = recordWrite(ctx, zeroObject(ctx.schema) as JsonObject, live, m, BEFORE_FIRST_APPLY, false);
  m = cloneManaged(m);
  const id = managerIdentifier({ manager: managerName || 'unknown', operation: 'Apply', subresource: ctx.subresource });
  let merged = (mergeTyped(live, config, ctx.schema) ?? {}) as JsonObject;
  const lastSet = m.fields.get(id)?.set;
  const set = scope(ctx, toFieldSet(config, ctx.schema));
  m.fields.set(id, { set, apiVersion: ctx.apiVersion, applied: true });
  // Pruning only ever removes fields of the last set that this apply no longer sets.
  if (lastSet && !lastSet.difference(set).isEmpty()) merged = prune(ctx.schema, merged, m.fields, lastSet);
  merged = scopeObject(ctx, live, merged);
  updateManagers(ctx, live, merged, m.fields, id, force);
  stripManager(m.fields, id);
  const changed = !deepEqual(live, merged);
  if (changed) m.times.set(id, ctx.now);
  return { object: changed ? merged : live, managed: m, changed };
}

/**
 * Removes what the applier applied last time and not this time, unless another manager (or the
 * applier's new configuration) still owns it; fields nobody applied are never removed.
 */
function prune(
  schema: PatchSchema,
  merged: JsonObject,
  fields: Map<string, ManagerSet>,
  lastSet: FieldSet,
): JsonObject {
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, schema);
  const last = named(lastSet);
  const fieldsOf = (v: Json | undefined) => named(toFieldSet(v, schema));
  const mergedSet = fieldsOf(merged);
  let pruned = removeItems(merged, last, schema);
  // add back what someone still owns
  let owned = new FieldSet();
  for (const vs of fields.values()) owned = owned.union(vs.set);
  pruned = removeItems(merged, mergedSet.difference(fieldsOf(pruned).union(named(owned))), schema);
  // and what the applier never owned
  const dropped = mergedSet.difference(fieldsOf(pruned)).intersection(last);
  return (removeItems(merged, dropped, schema) ?? {}) as JsonObject;
}
