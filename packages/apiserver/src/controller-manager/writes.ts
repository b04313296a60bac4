// What the in-server controllers share: the identities kube-controller-manager's controllers run as,
// the resource type behind a storage key, and the one way they change an existing object — a
// synchronous read-modify-commit against the latest stored version, so no client write can slip in
// between the read and the commit (the store is only ever touched from this thread).
import type { ServerCore } from '../core.ts';
import type { RequestContext } from '../objects/context.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';

export const NAMESPACES = '/namespaces';
/** the field manager kube-controller-manager's writes are recorded under */
export const CONTROLLER_MANAGER = 'kube-controller-manager';

/** A fresh request context for one write by the named kube-system controller service account. */
export function controllerContext(serviceAccount: string): RequestContext {
  return {
    user: {
      username: `system:serviceaccount:kube-system:${serviceAccount}`,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    },
    dryRun: false,
    fieldManager: CONTROLLER_MANAGER,
    fieldValidation: 'Ignore',
    warnings: [],
  };
}

/** The served type stored under `storageKey` (the core/v1 view when two groups share the storage). */
export function resourceTypeOf(core: ServerCore, storageKey: string): ResourceType | undefined {
  let found: ResourceType | undefined;
  for (const rt of core.registry.all()) {
    if (rt.storageKey !== storageKey) continue;
    if (rt.group === '') return rt;
    found ??= rt;
  }
  return found;
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

/**
 * An object marked for deletion goes once nothing holds it: no metadata.finalizers, and for a
 * Namespace also no spec.finalizers (kube's ShouldDeleteNamespaceDuringUpdate).
 */
export function readyToGo(rt: ResourceType, obj: KubeObject): boolean {
  if (!obj.metadata.deletionTimestamp || (obj.metadata.finalizers?.length ?? 0) > 0) return false;
  if (rt.storageKey !== NAMESPACES) return true;
  const spec = obj.spec as { finalizers?: unknown[] } | undefined;
  return (spec?.finalizers?.length ?? 0) === 0;
}

export interface ObjectRef {
  namespace: string | undefined;
  name: string;
  uid: string | undefined;
}

export type RewriteOutcome = 'gone' | 'unchanged' | 'updated' | 'deleted';

/**
 * Changes the latest stored version of an object. `change` edits a shallow copy (top-level fields and
 * metadata are copies; it must replace nested values, never mutate them) and says whether it changed
 * anything. Ownership is recorded for the controller; an object marked for deletion whose last
 * finalizer this removes is deleted, as the API server does on update.
 */
export function rewrite(
  core: ServerCore,
  rt: ResourceType,
  ref: ObjectRef,
  ctx: RequestContext,
  change: (draft: KubeObject) => boolean,
  subresource?: 'status',
): RewriteOutcome {
  const latest = core.store.get(rt.storageKey, ref.namespace, ref.name);
  if (!latest || (ref.uid !== undefined && latest.metadata.uid !== ref.uid)) return 'gone';
  const draft: KubeObject = { ...latest, metadata: { ...latest.metadata } };
  if (!change(draft)) return 'unchanged';
  const meta = draft.metadata;
  if (meta.finalizers?.length === 0) delete meta.finalizers;
  if (meta.ownerReferences?.length === 0) delete meta.ownerReferences;
  const version = latest.apiVersion.split('/').pop()!;
  const managed = core.managedFieldsRecorder(rt, version, ctx, subresource)(latest, draft);
  if (managed.length > 0) meta.managedFields = managed;
  else delete meta.managedFields;
  if (readyToGo(rt, draft)) {
    const gone = core.store.commit(rt.storageKey, 'DELETED', draft);
    core.notifyDeleted(rt, gone);
    return 'deleted';
  }
  core.store.commit(rt.storageKey, 'MODIFIED', draft);
  return 'updated';
}

/** Errors a controller expects when racing clients: the object is gone or changed under it. */
export function isRaceError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 404 || code === 409;
}
