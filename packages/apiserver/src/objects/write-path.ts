// The write path every create, update, patch and apply goes through, in kube-apiserver's order:
// immutable metadata kept, subresource scoping, mutating admission, defaults and pruning, validation
// (schema, CEL, metadata), validating admission, managed fields, generation, no-op detection, commit.

import { eventsV1ToEvent } from '../builtin/events.ts';
import { cause, errors, type StatusCause, StatusError } from '../errors.ts';
import type { Generation, ResourceType } from '../resource-types/resource-type.ts';
import { groupVersion, storageVersion } from '../resource-types/resource-type.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject, ManagedFieldsEntry } from '../types.ts';
import type { RequestContext } from './context.ts';
import { heldByNamespaceFinalizers } from './deleter.ts';
import type { AdmissionAttributes, AdmissionChain, AdmissionOperation } from './hooks.ts';
import { deepClone, deepEqual, generateNameSuffix, isPlainObject, kubeTime, newUid, specPartsEqual } from './meta.ts';
import type { StrategyProvider, TypeStrategy } from './strategy.ts';
import { validateMeta } from './validate-meta.ts';

export interface WriteRequest {
  rt: ResourceType;
  /** the version the client used */
  version: string;
  namespace?: string;
  subresource?: string;
  ctx: RequestContext;
  /** the object as it should be after this write (before server-side processing) */
  candidate: KubeObject;
  /**
   * The candidate is a value nothing else references (a freshly decoded request body), so the write
   * may change it in place. Otherwise it is copied first: patch results share parts with the stored object.
   */
  owned?: boolean;
  old?: KubeObject;
  /** set by server-side apply, which computes ownership itself */
  managedFields?: ManagedFieldsEntry[];
  /** a POST: kube's storage refuses to create an object that carries a resourceVersion (an apply does not) */
  post?: boolean;
  /** set for ordinary writes: records ownership of what changed */
  recordManagedFields?: (oldObj: KubeObject | undefined, newObj: KubeObject) => ManagedFieldsEntry[] | undefined;
}

export interface WriteResult {
  object: KubeObject;
  created: boolean;
  /** the write changed nothing: the stored object is returned unchanged */
  noop: boolean;
  /** the write removed the last finalizer of a deleting object, so it was deleted */
  deleted?: boolean;
}

export interface LifecycleDeps {
  store: ObjectStore;
  strategies: StrategyProvider;
  admission: () => AdmissionChain;
  /** called for create when the namespace must exist */
  namespaceExists: (ns: string) => boolean;
  /** called after an object is finally removed (GC and namespace cleanup react to it) */
  onDeleted?: (rt: ResourceType, obj: KubeObject) => void;
  /** built-in validating admission (e.g. RBAC escalation prevention), run before the validating webhooks */
  builtinValidators?: () => ReadonlyArray<(attrs: AdmissionAttributes) => void>;
  /** resolves once committed writes are durable (persistence); a write is acknowledged only after it */
  durable: () => Promise<void>;
  /** converts objects to another version of their resource (CRD conversion webhooks); default rewrites apiVersion */
  convert?: (rt: ResourceType, objects: KubeObject[], version: string) => Promise<KubeObject[]>;
}

const SERVER_META = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
] as const;

export class Lifecycle {
  constructor(private readonly deps: LifecycleDeps) {}

  /** One straight run over kube-apiserver's phases; each phase below is one step of the file header's list. */
  async write(req: WriteRequest): Promise<WriteResult> {
    const strategy = this.deps.strategies.for(req.rt);
    const sentVersion = req.candidate.metadata?.resourceVersion;
    let obj = decodedCandidate(req, strategy);
    let creatorFields: ManagedFieldsEntry[] | undefined;
    if (req.old) obj = carryOverStored(req, strategy, obj, req.old);
    else creatorFields = this.prepareCreate(req, strategy, obj, sentVersion);
    const attrs = admissionAttributes(req, obj);
    obj = (await this.admit(attrs, strategy, req.version)) ?? obj;
    await this.validate(req, strategy, attrs, obj);
    recordManagedFields(req, obj, creatorFields);
    if (req.old) {
      bumpGeneration(req, obj, req.old);
      if (unchanged(req.old, obj)) return { object: req.old, created: false, noop: true };
    } else if (req.rt.generation) {
      // Kinds whose strategy keeps no generation (Pods, Services, ConfigMaps … in 1.32) store whatever the
      // creator sent, and updates carry the old value over (SERVER_META), as kube-apiserver does.
      obj.metadata.generation = 1;
    }
    return this.commit(req, obj);
  }

  /**
   * Readies a new object in place; returns the creator's managed fields, recorded here as kube's field
   * manager records them: after decoding and defaulting, before the strategy sets its own fields (a
   * Namespace's spec.finalizers, a Service's cluster IP) and before mutating admission, neither of which
   * the creator owns.
   */
  private prepareCreate(
    req: WriteRequest,
    strategy: TypeStrategy,
    obj: KubeObject,
    sentVersion: string | undefined,
  ): ManagedFieldsEntry[] | undefined {
    this.prepareNew(req, obj, sentVersion);
    if (req.rt.subresources.status && req.subresource !== 'status') delete obj.status;
    const creatorFields = req.managedFields ? undefined : req.recordManagedFields?.(undefined, obj);
    strategy.prepareForCreate?.(obj);
    return creatorFields;
  }

  /** mutating admission: the object a webhook returned (decoded again, as kube re-decodes it), or none */
  private async admit(
    attrs: AdmissionAttributes,
    strategy: TypeStrategy,
    version: string,
  ): Promise<KubeObject | undefined> {
    const mutated = await this.deps.admission().mutate(attrs);
    if (!mutated) return undefined;
    // its unknown fields are dropped without a strict-decoding error, since the client did not send them
    strategy.prune(mutated, version);
    strategy.applyDefaults(mutated, version);
    return mutated;
  }

  /** schema, CEL and metadata validation, then built-in and webhook validating admission */
  private async validate(
    req: WriteRequest,
    strategy: TypeStrategy,
    attrs: AdmissionAttributes,
    obj: KubeObject,
  ): Promise<void> {
    const { rt, old } = req;
    const causes: StatusCause[] = [...validateMeta(rt, obj, old), ...strategy.validate(obj, old, req.version)];
    if (old?.metadata.deletionTimestamp) causes.push(...finalizersAddedWhileDeleting(old, obj));
    if (causes.length > 0) throw errors.invalid(rt.kind, rt.group, obj.metadata.name ?? '', causes);
    for (const check of this.deps.builtinValidators?.() ?? []) check({ ...attrs, object: obj });
    await this.deps.admission().validate({ ...attrs, object: obj });
  }

  /** storage conversion, the optimistic-concurrency check, then the commit (or the final delete) */
  private async commit(req: WriteRequest, obj: KubeObject): Promise<WriteResult> {
    const { rt, ctx, old } = req;
    const stored = await this.toStorage(rt, obj);
    // Admission and conversion may have waited on webhooks: refuse to overwrite a write that landed meanwhile.
    this.assertUnchangedSince(rt, obj, req);
    if (
      old?.metadata.deletionTimestamp &&
      (stored.metadata.finalizers ?? []).length === 0 &&
      !heldByNamespaceFinalizers(rt, stored)
    ) {
      if (ctx.dryRun) return { object: obj, created: false, noop: false, deleted: true };
      const gone = this.deps.store.commit(rt.storageKey, 'DELETED', stored);
      this.deps.onDeleted?.(rt, gone);
      await this.deps.durable();
      return { object: gone, created: false, noop: false, deleted: true };
    }
    if (ctx.dryRun) {
      if (old) obj.metadata.resourceVersion = old.metadata.resourceVersion;
      return { object: obj, created: !old, noop: false };
    }
    const committed = this.deps.store.commit(rt.storageKey, old ? 'MODIFIED' : 'ADDED', stored);
    await this.deps.durable();
    return { object: committed, created: !old, noop: false };
  }

  private prepareNew(req: WriteRequest, obj: KubeObject, sentVersion: string | undefined): void {
    const { rt } = req;
    const meta = obj.metadata;
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${generateNameSuffix()}`;
    if (!meta.name)
      throw errors.invalid(rt.kind, rt.group, '', [
        cause('metadata.name', 'FieldValueRequired', 'Required value: name or generateName is required'),
      ]);
    if (rt.namespaced) {
      const ns = req.namespace ?? meta.namespace;
      if (meta.namespace && req.namespace && meta.namespace !== req.namespace) {
        throw errors.badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      if (!ns) throw errors.badRequest('the namespace of the object must be set');
      meta.namespace = ns;
      if (!this.deps.namespaceExists(ns)) throw errors.notFound('namespaces', '', ns);
      if (this.deps.store.get('/namespaces', undefined, ns)?.metadata.deletionTimestamp)
        throw namespaceTerminating(rt, meta.name, ns);
    } else {
      delete meta.namespace;
    }
    // kube's storage refuses this before it looks for an existing object (a dry run never reaches it)
    if (req.post && sentVersion && !req.ctx.dryRun)
      throw errors.storage('resourceVersion should not be set on objects to be created');
    if (this.deps.store.get(rt.storageKey, meta.namespace, meta.name))
      throw errors.alreadyExists(rt.plural, rt.group, meta.name);
    meta.uid = newUid();
    meta.creationTimestamp = kubeTime();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }

  /** Objects are stored in the storage version (strategy None only rewrites apiVersion; Webhook asks the CRD's webhook). */
  async toStorage(rt: ResourceType, obj: KubeObject): Promise<KubeObject> {
    if (rt.group === 'events.k8s.io') return eventsV1ToEvent(obj);
    const sv = groupVersion(rt.group, storageVersion(rt));
    if (obj.apiVersion === sv) return obj;
    if (this.deps.convert) return (await this.deps.convert(rt, [obj], storageVersion(rt)))[0]!;
    return { ...obj, apiVersion: sv };
  }

  private assertUnchangedSince(rt: ResourceType, obj: KubeObject, req: WriteRequest): void {
    const { old } = req;
    const latest = this.deps.store.get(rt.storageKey, obj.metadata.namespace, obj.metadata.name!);
    if (!old && latest) {
      // a POST refuses an existing object; an apply that would create one updates it instead (on a retry)
      if (req.post) throw errors.alreadyExists(rt.plural, rt.group, obj.metadata.name!);
      throw new ObjectChangedMeanwhile(rt, obj.metadata.name!);
    }
    if (old && latest?.metadata.resourceVersion !== old.metadata.resourceVersion)
      throw new ObjectChangedMeanwhile(rt, obj.metadata.name!);
  }
}

/**
 * The stored object changed while a write waited on admission or conversion. kube-apiserver's storage
 * (GuaranteedUpdate) then runs the write again on the latest object, so a client sees 409 only when its own
 * resourceVersion precondition fails: the handlers retry on this error (handlers/guaranteed-update.ts).
 */
export class ObjectChangedMeanwhile extends StatusError {
  constructor(rt: ResourceType, name: string) {
    const conflict = errors.conflict(
      rt.plural,
      rt.group,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
    super(conflict.code, conflict.reason, conflict.message, conflict.details);
  }
}

/** kube's NamespaceLifecycle admission refusing new objects in a namespace being deleted */
function namespaceTerminating(rt: ResourceType, name: string, ns: string): StatusError {
  const resource = rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
  return errors.forbidden(
    `${resource} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
    {
      name,
      group: rt.group,
      kind: rt.plural,
      causes: [
        { reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' },
      ],
    },
  );
}

/** PUT namespaces/<name>/finalize: only spec.finalizers change */
function onlyFinalizersChanged(old: KubeObject, candidate: KubeObject): KubeObject {
  const spec = { ...((old.spec as Record<string, unknown>) ?? {}) };
  const next = (candidate.spec as { finalizers?: unknown } | undefined)?.finalizers;
  if (next === undefined) delete spec.finalizers;
  else spec.finalizers = next;
  return { ...old, metadata: { ...old.metadata }, spec };
}

function onlyStatusChanged(old: KubeObject, candidate: KubeObject, withAnnotations: boolean): KubeObject {
  const out: KubeObject = { ...old, metadata: { ...old.metadata } };
  if (withAnnotations) {
    if (candidate.metadata.annotations === undefined) delete out.metadata.annotations;
    else out.metadata.annotations = candidate.metadata.annotations;
  }
  if (candidate.status === undefined) delete out.status;
  else out.status = candidate.status;
  return out;
}

/** A write that changes nothing, managed fields included (ownership-only changes are real writes). */
function unchanged(old: KubeObject, obj: KubeObject): boolean {
  const strip = (o: KubeObject) => ({
    ...o,
    apiVersion: undefined,
    metadata: { ...o.metadata, resourceVersion: undefined },
  });
  return deepEqual(strip(old), strip(obj));
}

export function isApiError(e: unknown): e is StatusError {
  return (
    e instanceof Error && typeof (e as StatusError).code === 'number' && typeof (e as StatusError).reason === 'string'
  );
}

function generationBumps(rule: Generation, old: KubeObject, obj: KubeObject, hasStatus: boolean): boolean {
  if (!specPartsEqual(old, obj, hasStatus)) return true;
  return rule === 'spec+annotations' && !deepEqual(old.metadata.annotations ?? {}, obj.metadata.annotations ?? {});
}

/** the candidate as the write will change it: copied unless owned, typed, decoded */
function decodedCandidate(req: WriteRequest, strategy: TypeStrategy): KubeObject {
  const obj = req.owned ? req.candidate : deepClone(req.candidate);
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  delete obj.metadata.resourceVersion;
  obj.apiVersion = groupVersion(req.rt.group, req.version);
  obj.kind = req.rt.kind;
  decode(req, strategy, obj);
  return obj;
}

/** an update keeps the stored object's identity and server-set metadata, and writes only its subresource */
function carryOverStored(req: WriteRequest, strategy: TypeStrategy, obj: KubeObject, old: KubeObject): KubeObject {
  const { rt } = req;
  for (const k of SERVER_META) {
    if (old.metadata[k] === undefined) delete obj.metadata[k];
    else (obj.metadata as Record<string, unknown>)[k] = old.metadata[k];
  }
  obj.metadata.name = old.metadata.name;
  if (rt.namespaced) obj.metadata.namespace = old.metadata.namespace;
  // What the write takes over from the stored object is copied: pruning, defaulting and admission
  // change `obj` in place, and stored objects never change (their JSON is cached and shared).
  if (req.subresource === 'finalize') obj = onlyFinalizersChanged(deepClone(old), obj);
  else strategy.prepareForUpdate?.(obj, old);
  if (rt.subresources.status) {
    if (req.subresource === 'status') obj = onlyStatusChanged(deepClone(old), obj, rt.statusWritesAnnotations === true);
    else if (old.status === undefined) delete obj.status;
    else obj.status = deepClone(old.status);
  }
  return obj;
}

function admissionAttributes(req: WriteRequest, obj: KubeObject): AdmissionAttributes {
  const { ctx } = req;
  const operation: AdmissionOperation = req.old ? 'UPDATE' : 'CREATE';
  return {
    rt: req.rt,
    version: req.version,
    operation,
    namespace: req.namespace,
    name: obj.metadata.name!,
    object: obj,
    oldObject: req.old,
    user: ctx.user,
    dryRun: ctx.dryRun,
    warnings: ctx.warnings,
    ...(req.subresource ? { subresource: req.subresource } : {}),
    ...(ctx.auditAnnotations ? { auditAnnotations: ctx.auditAnnotations } : {}),
  };
}

function finalizersAddedWhileDeleting(old: KubeObject, obj: KubeObject): StatusCause[] {
  const added = (obj.metadata.finalizers ?? []).filter((f) => !(old.metadata.finalizers ?? []).includes(f));
  if (added.length === 0) return [];
  const list = added.map((f) => JSON.stringify(f)).join(', ');
  const forbidden = cause(
    'metadata.finalizers',
    'FieldValueForbidden',
    `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${list}}`,
  );
  // kube validates an update's metadata twice (its generic storage, then the kind's strategy), so the
  // Status lists this cause twice (its message once)
  return [forbidden, forbidden];
}

function recordManagedFields(req: WriteRequest, obj: KubeObject, creatorFields?: ManagedFieldsEntry[]): void {
  obj.metadata.managedFields =
    req.managedFields ?? creatorFields ?? req.recordManagedFields?.(req.old, obj) ?? req.old?.metadata.managedFields;
  if (!obj.metadata.managedFields || obj.metadata.managedFields.length === 0) delete obj.metadata.managedFields;
}

/** a /status write never bumps generation (kube's status strategies leave it alone), a /scale write does */
function bumpGeneration(req: WriteRequest, obj: KubeObject, old: KubeObject): void {
  const { rt } = req;
  if (rt.generation && req.subresource !== 'status' && generationBumps(rt.generation, old, obj, rt.subresources.status))
    obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

/**
 * kube-apiserver's decoding step, before any strategy or admission sees the object: unknown fields dropped
 * (and refused or warned about per fieldValidation), wrong JSON types refused, defaults applied.
 */
function decode(req: WriteRequest, strategy: TypeStrategy, obj: KubeObject): void {
  const { rt, ctx } = req;
  const unknown = strategy.prune(obj, req.version);
  if (unknown.length > 0) {
    if (ctx.fieldValidation === 'Strict') {
      const list = unknown.map((f) => `unknown field "${f}"`).join(', ');
      throw errors.badRequest(
        `${rt.kind} in version "${req.version}" cannot be handled as a ${rt.kind}: strict decoding error: ${list}`,
      );
    }
    if (ctx.fieldValidation === 'Warn') for (const f of unknown) ctx.warnings.push(`unknown field "${f}"`);
  }
  strategy.applyDefaults(obj, req.version);
}
