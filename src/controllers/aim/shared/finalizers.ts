// The AIM finalizers (docs/aim.md, "Finalizers"): an AIMService cleans up the template caches it created,
// an AIMTemplateCache the artifacts it created, because those children are not all reachable by owner
// references (Shared ones have no owner at all). Cleanup deletes only children that are not Ready: a Ready
// cache or artifact holds downloaded weights the next service reuses; a Failed one would only be found and
// reused broken. One still coming up that another live parent uses (a Shared cache other services wait on)
// is left to them. The finalizer's life is packages/runtime's `finalizer()`, so a
// terminating namespace is never held up.

import { isConflict, isNotFound } from '@modelplane/runtime/client';
import type { ReconcileContext, Reconciler, Result } from '@modelplane/runtime/controller';
import { finalizer } from '@modelplane/runtime/finalizer';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { AIMArtifacts, AIMServices, AIMTemplateCaches } from './kinds.ts';
import { AIM_PAUSE_ANNOTATIONS } from './reconcile-paused.ts';

export const TEMPLATE_CACHE_CLEANUP_FINALIZER = 'aim.eai.amd.com/template-cache-cleanup';
export const ARTIFACT_CLEANUP_FINALIZER = 'aim.eai.amd.com/artifactcleanup';

type Child = KubeObject & { status?: { status?: string }; spec?: { templateName?: string } };
type Parent = KubeObject & { status?: Record<string, any> };

/** what a parent cleans up on deletion: its finalizer, the kind of its children and the label they carry */
export interface ChildCleanup {
  finalizer: string;
  children: KindRef<Child>;
  /** `key=value` selecting the children the parent created */
  selector: (parent: KubeObject) => string;
  /** the parent kind: other parents in the namespace may use a child too */
  parents: KindRef<Parent>;
  uses: (parent: Parent, child: Child) => boolean;
}

/** label values are at most 63 characters; the children were labelled with the name cut there */
const labelValue = (o: KubeObject) => (o.metadata.name ?? '').slice(0, 63);

/** an AIMService: the template caches it created (label aim.eai.amd.com/service) */
export const SERVICE_CACHE_CLEANUP: ChildCleanup = {
  finalizer: TEMPLATE_CACHE_CLEANUP_FINALIZER,
  children: AIMTemplateCaches as KindRef<Child>,
  selector: (service) => `aim.eai.amd.com/service=${labelValue(service)}`,
  parents: AIMServices as KindRef<Parent>,
  uses: (service, cache) =>
    service.status?.cache?.templateCacheRef?.name === cache.metadata.name ||
    (cache.spec?.templateName !== undefined && service.status?.resolvedTemplate?.name === cache.spec.templateName),
};

/** an AIMTemplateCache: the artifacts it created (label aim.eai.amd.com/template-cache.name) */
export const CACHE_ARTIFACT_CLEANUP: ChildCleanup = {
  finalizer: ARTIFACT_CLEANUP_FINALIZER,
  children: AIMArtifacts as KindRef<Child>,
  selector: (cache) => `aim.eai.amd.com/template-cache.name=${labelValue(cache)}`,
  parents: AIMTemplateCaches as KindRef<Parent>,
  uses: (cache, artifact) =>
    Object.entries((cache.status?.artifacts ?? {}) as Record<string, { name?: string }>).some(
      ([key, a]) => key === artifact.metadata.name || a?.name === artifact.metadata.name,
    ),
};

/**
 * pure: the children to delete: not Ready and not already going; Failed ones always, others only when no
 * other live parent uses them (`inUse`)
 */
export function childrenToDelete<C extends Child>(
  children: readonly C[],
  inUse: (child: C) => boolean = () => false,
): C[] {
  return children.filter(
    (c) =>
      c.status?.status !== 'Ready' && !c.metadata.deletionTimestamp && (c.status?.status === 'Failed' || !inUse(c)),
  );
}

async function deleteUnreadyChildren(parent: KubeObject, cleanup: ChildCleanup, ctx: ReconcileContext) {
  const children = await ctx.cache.list(cleanup.children, {
    namespace: parent.metadata.namespace ?? '',
    labelSelector: cleanup.selector(parent),
  });
  const others = (await ctx.cache.list(cleanup.parents, { namespace: parent.metadata.namespace ?? '' })).filter(
    (p) => p.metadata.uid !== parent.metadata.uid && !p.metadata.deletionTimestamp,
  );
  const doomed = childrenToDelete(children, (c) => others.some((p) => cleanup.uses(p, c)));
  if (doomed.length === 0) return {};
  const kind = cleanup.children.kind;
  ctx.recorder.event(
    parent,
    'Normal',
    'CleaningUp',
    `deleting ${doomed.length} ${kind}${doomed.length === 1 ? '' : 's'} it created that ${doomed.length === 1 ? 'is' : 'are'} not Ready: ${doomed.map((c) => c.metadata.name).join(', ')}`,
  );
  for (const child of doomed) {
    try {
      await ctx.client.delete(cleanup.children, child.metadata.name ?? '', child.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(child.metadata.uid ? { preconditions: { uid: child.metadata.uid } } : {}),
      });
    } catch (err) {
      // gone already, or replaced by a newer object of that name (not ours to delete)
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return {};
}

const paused = (o: KubeObject) => AIM_PAUSE_ANNOTATIONS.some((a) => o.metadata.annotations?.[a] === 'true');

/** the thin controller's reconciler: the finalizer around the pipeline, cleanup of the unready children on deletion */
export function finalizingReconciler<T extends KubeObject>(
  kind: KindRef<T>,
  pipeline: { reconcile(object: T, ctx: ReconcileContext): Promise<Result> },
  cleanup: ChildCleanup,
): Reconciler {
  return async (req, ctx) => {
    const object = await ctx.cache.get(kind, req.name, req.namespace || undefined);
    if (!object) return {};
    return finalizer(
      ctx,
      kind,
      cleanup.finalizer,
      object,
      (ev) =>
        ev.type === 'apply' ? pipeline.reconcile(ev.object, ctx) : deleteUnreadyChildren(ev.object, cleanup, ctx),
      // a paused object is left as it is; one that has the finalizer still gets cleanup when deleted
      { addWhen: (o) => !paused(o) },
    );
  };
}
