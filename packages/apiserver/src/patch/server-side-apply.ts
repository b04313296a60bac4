// Server-side apply and managedFields bookkeeping for every write, as kube-apiserver's field manager
// does them (see field-manager.ts for the merge/ownership rules). This file is the request-facing
// part: input checks, decoding the live managedFields, turning conflicts into the 409 kubectl
// prints, and kubectl's client-side-apply interop (the last-applied annotation).
import { errors, type StatusCause, type StatusError } from '../errors.ts';
import { createdFieldsV1 } from './created-fields.ts';
import {
  ApplyConflicts,
  type ApplyOutcome,
  applyOnce,
  type FieldManagerContext,
  recordWrite,
} from './field-manager.ts';
import type { FieldSet } from './fieldpath.ts';
import { clone, goJson, goQuoteString, isObject, type JsonObject } from './json-value.ts';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isResetManagedFields,
  type Managed,
  type ManagedFieldsEntry,
  parseIdentifier,
} from './managed-fields.ts';
import { pathString } from './path-elements.ts';
import { asPatchSchema, withZeroFields, zeroObject } from './schema.ts';
import { compareTyped } from './typed-merge.ts';
import { formatTypeErrors, toFieldSet, typeErrors } from './typed-sets.ts';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** kube's TotalAnnotationSizeLimitB */
const ANNOTATIONS_SIZE_LIMIT = 256 * 1024;

interface CommonOptions {
  manager: string;
  /** strategy-provided patch schema (see schema.ts); anything else is treated as untyped */
  schema: unknown;
  subresource?: string;
  now: Date | string;
  /** group/version of the request, e.g. `apps/v1` */
  apiVersion: string;
  /** whether the kind has a status subresource (default true): the main resource then ignores .status */
  statusSubresource?: boolean;
  /** a /status write also owns metadata.annotations (Deployments: see ResourceType.statusWritesAnnotations) */
  statusAnnotations?: boolean;
}

export interface ApplyOptions extends CommonOptions {
  /** the stored object, or undefined when apply creates it */
  live: unknown;
  /** the applied configuration (apiVersion, kind, metadata.name set by the caller) */
  applied: unknown;
  force?: boolean;
  /** when set, the applied object's apiVersion and kind must match (kube's versionCheckManager) */
  kind?: string;
}

export interface ApplyResult {
  /** the object after apply, with metadata.managedFields set (not yet defaulted or validated) */
  object: JsonObject;
  managedFields: ManagedFieldsEntry[];
  /** false when the configuration changed nothing in the object (managedFields may still change) */
  changed: boolean;
}

export interface UpdateOptions extends CommonOptions {
  /** the stored object, or undefined on create */
  oldObj: unknown;
  /** the object about to be stored; its metadata.managedFields, when set, replace the live ones */
  newObj: unknown;
  operation?: 'Update';
}

function context(o: CommonOptions): FieldManagerContext {
  return {
    schema: asPatchSchema(o.schema),
    apiVersion: o.apiVersion,
    subresource: o.subresource || undefined,
    now: formatTime(o.now),
    statusSubresource: o.statusSubresource ?? true,
    statusAnnotations: o.statusAnnotations === true,
  };
}

function withoutManagedFields(obj: JsonObject): JsonObject {
  if (!isObject(obj.metadata) || obj.metadata.managedFields === undefined) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/**
 * A patch the typed merge cannot use. kube-apiserver surfaces these as a bare 500; they are caused by the
 * request, so we answer 400 with the same message (as kubernetes/kubernetes PR #139255 proposes).
 */
function serverError(message: string): StatusError {
  return errors.badRequest(message);
}

/** The managedFields of a create, update or patch (not apply) under `manager`. */
export function recordUpdate(opts: UpdateOptions): ManagedFieldsEntry[] {
  const ctx = context(opts);
  // A create that brings no managedFields of its own: one entry, built directly (created-fields.ts).
  if (opts.oldObj === undefined && ctx.subresource === undefined && isObject(opts.newObj)) {
    const meta = opts.newObj.metadata;
    if (!isObject(meta) || meta.managedFields === undefined || meta.managedFields === null)
      return createdEntry(ctx, opts.newObj, opts.manager);
  }
  const live = isObject(opts.oldObj) ? opts.oldObj : (zeroObject(ctx.schema) as JsonObject);
  const next = isObject(opts.newObj) ? opts.newObj : {};
  const managed = liveOrRequestManaged(live, next, ctx.subresource !== undefined);
  return encodeManagedFields(
    recordWrite(ctx, withoutManagedFields(live), withoutManagedFields(next), managed, opts.manager),
  );
}

function createdEntry(ctx: FieldManagerContext, obj: JsonObject, manager: string): ManagedFieldsEntry[] {
  const fieldsV1 = createdFieldsV1(obj, ctx.schema, ctx.statusSubresource);
  if (!fieldsV1) return [];
  return [
    {
      manager: manager || 'unknown',
      operation: 'Update',
      apiVersion: ctx.apiVersion,
      time: ctx.now,
      fieldsType: 'FieldsV1',
      fieldsV1,
    },
  ];
}

/**
 * Which managedFields an update starts from: the request's own list when it sets a valid non-empty
 * one (so clients can rewrite ownership, as kubectl's client-side→server-side migration does), an
 * empty set when it asks for a reset (`[]` or `[{}]`), otherwise the live object's. Subresource
 * writes always start from the live object's.
 */
function liveOrRequestManaged(live: JsonObject, next: JsonObject, subresource: boolean): Managed {
  const decodeOrEmpty = (list: unknown): Managed => {
    try {
      return decodeManagedFields(list);
    } catch {
      return emptyManaged();
    }
  };
  const liveList = isObject(live.metadata) ? live.metadata.managedFields : undefined;
  if (subresource) return decodeOrEmpty(liveList);
  const requested = isObject(next.metadata) ? next.metadata.managedFields : undefined;
  if (isResetManagedFields(requested)) return emptyManaged();
  try {
    const m = decodeManagedFields(requested);
    if (m.fields.size > 0) return m;
  } catch {
    // fall back to the live object's, so clients unaware of managedFields cannot wipe them
  }
  return decodeOrEmpty(liveList);
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const parts = av.split('/');
  const [group, version] = parts.length === 2 ? parts : parts.length === 1 ? ['', parts[0]!] : ['', ''];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** Server-side apply of `applied` onto `live` by `manager`; throws StatusError 409 on conflicts. */
export function applyServerSide(opts: ApplyOptions): ApplyResult {
  const ctx = context(opts);
  if (!isObject(opts.applied)) throw errors.badRequest('an apply patch must be a JSON or YAML object');
  const applied = opts.applied;
  if (opts.kind !== undefined && (applied.apiVersion !== opts.apiVersion || applied.kind !== opts.kind)) {
    throw errors.badRequest(`invalid object type: ${gvkString(applied.apiVersion, applied.kind)}`);
  }
  const appliedMeta = isObject(applied.metadata) ? applied.metadata : {};
  if (appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null)
    throw errors.badRequest('metadata.managedFields must be nil');
  const config: JsonObject =
    isObject(applied.metadata) && appliedMeta.managedFields === null ? withoutManagedFields(applied) : applied;

  const typeProblems = typeErrors(config, ctx.schema);
  if (typeProblems.length > 0) {
    const where = `${String(appliedMeta.namespace ?? '')}/${String(appliedMeta.name ?? '')}; ${gvkString(applied.apiVersion, applied.kind)}`;
    throw serverError(`failed to create typed patch object (${where}): ${formatTypeErrors(typeProblems)}`);
  }

  const liveFull = isObject(opts.live) ? opts.live : undefined;
  let managed: Managed;
  try {
    managed = decodeManagedFields(
      liveFull && isObject(liveFull.metadata) ? liveFull.metadata.managedFields : undefined,
    );
  } catch (e) {
    throw serverError(`failed to decode managed fields: ${(e as Error).message}`);
  }
  const live = liveFull ? withoutManagedFields(liveFull) : {};

  let outcome: ApplyOutcome;
  try {
    outcome = applyOnce(ctx, live, config, managed, opts.manager, opts.force ?? false);
  } catch (e) {
    if (!(e instanceof ApplyConflicts)) throw e;
    outcome = retryAllowedByLastApplied(ctx, e, live, config, managed, opts.manager);
  }

  const object = clone(outcome.object);
  if (opts.manager === 'kubectl' && lastAppliedOf(object) !== undefined)
    setLastApplied(object, buildLastApplied(applied));
  const managedFields = encodeManagedFields(outcome.managed);
  const metadata = isObject(object.metadata) ? object.metadata : (object.metadata = {});
  if (managedFields.length > 0) metadata.managedFields = managedFields as unknown as JsonObject[];
  else delete metadata.managedFields;
  return { object, managedFields, changed: outcome.changed || lastAppliedOf(object) !== lastAppliedOf(live) };
}

/**
 * kube's lastAppliedManager: when kubectl server-side-applies an object it used to client-side
 * apply, conflicts on fields whose last-applied value still matches the live value are the user's
 * own fields, so the apply is forced; any other conflict is reported.
 */
function retryAllowedByLastApplied(
  ctx: FieldManagerContext,
  e: ApplyConflicts,
  live: JsonObject,
  config: JsonObject,
  managed: Managed,
  manager: string,
): ApplyOutcome {
  if (manager !== 'kubectl') throw conflictError(e.conflicts);
  const allowed = allowedConflicts(ctx, live);
  if (!allowed) throw conflictError(e.conflicts);
  const remaining = new Map<string, FieldSet>();
  for (const [id, set] of e.conflicts) {
    const rest = set.difference(allowed);
    if (!rest.isEmpty()) remaining.set(id, rest);
  }
  if (remaining.size > 0) throw conflictError(remaining);
  return applyOnce(ctx, live, config, managed, manager, true);
}

function allowedConflicts(ctx: FieldManagerContext, live: JsonObject): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (!text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(last) || last.apiVersion !== ctx.apiVersion || typeErrors(last, ctx.schema).length > 0)
    return undefined;
  const c = compareTyped(withZeroFields(last, ctx.schema), withZeroFields(live, ctx.schema), ctx.schema);
  return toFieldSet(last, ctx.schema).difference(c.modified).difference(c.added).difference(c.removed);
}

function lastAppliedOf(obj: JsonObject): string | undefined {
  const ann =
    isObject(obj.metadata) && isObject(obj.metadata.annotations)
      ? obj.metadata.annotations[LAST_APPLIED_ANNOTATION]
      : undefined;
  return typeof ann === 'string' && ann !== '' ? ann : undefined;
}

/** The applied configuration without its own last-applied annotation, as Go's JSON encoder writes it. */
function buildLastApplied(applied: JsonObject): string {
  const copy = clone(applied);
  if (isObject(copy.metadata) && isObject(copy.metadata.annotations))
    delete copy.metadata.annotations[LAST_APPLIED_ANNOTATION];
  return `${goJson(copy)}\n`;
}

function setLastApplied(obj: JsonObject, value: string): void {
  const metadata = obj.metadata as JsonObject;
  const annotations = (isObject(metadata.annotations) ? metadata.annotations : (metadata.annotations = {})) as Record<
    string,
    string
  >;
  annotations[LAST_APPLIED_ANNOTATION] = value;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > ANNOTATIONS_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
}

/** kube's printManager: `"name"`, `"name" with subresource "status"`, `"name" using apps/v1` for updaters. */
function printManager(id: string): string {
  const e = parseIdentifier(id);
  let s = goQuoteString(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${goQuoteString(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
  return s;
}

/** The 409 kube returns: one FieldManagerConflict cause per conflicting field, managers in identifier order. */
function conflictError(conflicts: Map<string, FieldSet>): StatusError {
  const causes: StatusCause[] = [];
  for (const id of [...conflicts.keys()].sort()) {
    for (const path of conflicts.get(id)!.paths()) {
      causes.push({
        reason: 'FieldManagerConflict',
        message: `conflict with ${printManager(id)}`,
        field: pathString(path),
      });
    }
  }
  return errors.applyConflict(causes);
}
