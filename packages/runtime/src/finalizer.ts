// One function owns a finalizer's whole life (docs/controllers.md, "Finalizers"), in the manner of kube-rs's
// `finalizer()`: it adds the finalizer before the first `apply`, runs `cleanup` once the object is being
// deleted, and removes the finalizer when cleanup is done. A controller never patches finalizers itself.
// A finalizer never blocks the deletion of a namespace: when the object's namespace is terminating (or
// already gone), cleanup is best-effort (its errors are logged, a request to wait is ignored) and the
// finalizer is removed anyway, because the namespace controller is deleting everything cleanup would.
// The finalizer patches are JSON merge patches carrying the resourceVersion, so a concurrent change to the
// list (another controller's finalizer) is never overwritten: the write conflicts and the key is retried.

import { isConflict, isNotFound } from './client/errors.ts';
import { Namespaces } from './client/kinds.ts';
import type { ReconcileContext, Result } from './controller/controller.ts';
import type { KindRef, KubeObject } from './meta/types.ts';

export type FinalizerEvent<T extends KubeObject> =
  | { type: 'apply'; object: T }
  /** `namespaceTerminating`: clean up what you can quickly; the finalizer goes whatever this returns or throws */
  | { type: 'cleanup'; object: T; namespaceTerminating: boolean };

export interface FinalizerOptions<T extends KubeObject> {
  /** add the finalizer only to objects for which this holds (e.g. not paused ones); default: all */
  addWhen?: (object: T) => boolean;
}

export function hasFinalizer(object: KubeObject, name: string): boolean {
  return object.metadata.finalizers?.includes(name) ?? false;
}

/**
 * Is the object's namespace being deleted, or gone? (cluster-scoped objects: never.) Read live, once per
 * deletion: no informer on every namespace, and only `get namespaces` in RBAC.
 */
async function namespaceTerminating(object: KubeObject, ctx: Pick<ReconcileContext, 'client'>): Promise<boolean> {
  const ns = object.metadata.namespace;
  if (!ns) return false;
  const namespace = await ctx.client.getOrUndefined(Namespaces, ns);
  return (
    !namespace ||
    namespace.metadata.deletionTimestamp !== undefined ||
    (namespace.status as { phase?: string } | undefined)?.phase === 'Terminating'
  );
}

/** the object with `finalizers`, or undefined when it changed meanwhile (conflict) or is gone */
async function patchFinalizers<T extends KubeObject>(
  ctx: Pick<ReconcileContext, 'client'>,
  kind: KindRef<T>,
  object: T,
  finalizers: string[],
): Promise<T | undefined> {
  try {
    const patch = { metadata: { resourceVersion: object.metadata.resourceVersion, finalizers } };
    return await ctx.client.patch(kind, object.metadata.name ?? '', object.metadata.namespace, patch, 'merge');
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return undefined;
    throw err;
  }
}

const wantsMore = (r: Result | undefined) => r !== undefined && (r.requeue === true || r.requeueAfter !== undefined);

/**
 * Runs `reconcile` with `apply` (the finalizer in place first) or `cleanup` (the object is being deleted and
 * still has the finalizer; the finalizer is removed when cleanup returns without asking to be called again).
 */
export async function finalizer<T extends KubeObject>(
  ctx: Pick<ReconcileContext, 'client' | 'log'>,
  kind: KindRef<T>,
  name: string,
  object: T,
  reconcile: (event: FinalizerEvent<T>) => Promise<Result | undefined>,
  opts: FinalizerOptions<T> = {},
): Promise<Result> {
  const ours = hasFinalizer(object, name);
  if (object.metadata.deletionTimestamp) {
    if (!ours) return {};
    const terminating = await namespaceTerminating(object, ctx);
    let result: Result | undefined;
    try {
      result = await reconcile({ type: 'cleanup', object, namespaceTerminating: terminating });
    } catch (err) {
      if (!terminating) throw err;
      ctx.log.info('cleanup failed in a terminating namespace; removing the finalizer anyway', {
        finalizer: name,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    if (!terminating && wantsMore(result)) return result ?? {};
    const removed = await patchFinalizers(
      ctx,
      kind,
      object,
      (object.metadata.finalizers ?? []).filter((f) => f !== name),
    );
    // changed meanwhile (or already gone): the next reconcile looks again
    return removed ? {} : { requeue: true };
  }
  if (!ours && (opts.addWhen?.(object) ?? true)) {
    const added = await patchFinalizers(ctx, kind, object, [...(object.metadata.finalizers ?? []), name]);
    // changed meanwhile: the watch brings the newer object
    if (!added) return { requeue: true };
    object = added;
  }
  return (await reconcile({ type: 'apply', object })) ?? {};
}
