// kube-controller-manager's namespace controller: a Namespace marked for deletion (DELETE sets its
// deletionTimestamp and phase Terminating; `spec.finalizers: [kubernetes]` keeps it) has everything in
// it deleted through the normal delete path, so each object's finalizers and the garbage collector are
// honoured. Each pass reports kube's conditions; when no content is left, `kubernetes` is removed from
// spec.finalizers (what PUT .../finalize does) and the namespace goes unless other finalizers hold it.
// A pass runs whenever the namespace or anything in it changes, so a finalizer removed from the last
// object finishes the namespace at once.
import type { ServerCore } from '../core.ts';
import { kubeTime } from '../objects/meta.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { StoredEvent } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import { type ContentTotals, type NamespaceCondition, namespaceConditions } from './namespace-conditions.ts';
import { NamespaceKeyedController } from './namespace-keyed-controller.ts';
import { controllerContext, isRaceError, NAMESPACES, rewrite } from './writes.ts';

export const NAMESPACE_FINALIZER = 'kubernetes';
const SERVICE_ACCOUNT = 'namespace-controller';

export interface NamespaceControllerOptions {
  warn?: (message: string) => void;
}

/** Thrown to retry a pass whose deletions failed (the queue backs off). */
class ContentDeletionFailed extends Error {}

export class NamespaceController extends NamespaceKeyedController {
  constructor(core: ServerCore, opts: NamespaceControllerOptions = {}) {
    super(core, 'namespace controller', 2, opts.warn ?? console.warn);
  }

  protected initialKeys(): string[] {
    return this.core.store
      .list(NAMESPACES)
      .filter((ns) => ns.metadata.deletionTimestamp)
      .map((ns) => ns.metadata.name!);
  }

  protected onEvent(e: StoredEvent): void {
    try {
      if (e.storageKey === NAMESPACES) {
        if (e.type !== 'DELETED' && e.object.metadata.deletionTimestamp) this.queue.add(e.object.metadata.name!);
        return;
      }
      const ns = e.object.metadata.namespace;
      if (ns && this.core.store.get(NAMESPACES, undefined, ns)?.metadata.deletionTimestamp) this.queue.add(ns);
    } catch (err) {
      console.warn(`namespace controller: ${e.storageKey} ${e.object.metadata.name}: ${String(err)}`);
    }
  }

  /** the served namespaced types, one per storage (core/v1 and events.k8s.io Events share one) */
  private namespacedTypes(): ResourceType[] {
    const byStorage = new Map<string, ResourceType>();
    for (const rt of this.core.registry.all()) {
      if (!rt.namespaced) continue;
      const seen = byStorage.get(rt.storageKey);
      if (!seen || (rt.group === '' && seen.group !== '')) byStorage.set(rt.storageKey, rt);
    }
    return [...byStorage.values()];
  }

  protected async sync(name: string): Promise<void> {
    const ns = this.core.store.get(NAMESPACES, undefined, name);
    if (!ns?.metadata.deletionTimestamp || !specFinalizers(ns).includes(NAMESPACE_FINALIZER)) return;
    const types = this.namespacedTypes();
    const failures = await this.deleteContent(name, types);
    const totals = this.remainingContent(name, types, failures);
    this.reportStatus(name, totals);
    if (totals.remaining.size === 0 && failures.length === 0) this.finalize(name);
    await this.core.durable();
    if (failures.length > 0) throw new ContentDeletionFailed(`namespace ${name}: ${failures.join('; ')}`);
  }

  /** Deletes every object in the namespace not already being deleted; returns the failures. */
  private async deleteContent(ns: string, types: ResourceType[]): Promise<string[]> {
    const failures: string[] = [];
    const pending: Array<Promise<unknown>> = [];
    for (const rt of types) {
      for (const obj of this.core.store.list(rt.storageKey, ns)) {
        if (obj.metadata.deletionTimestamp) continue;
        const ctx = controllerContext(SERVICE_ACCOUNT);
        pending.push(
          this.core.deleter
            .delete(
              rt,
              ns,
              obj.metadata.name!,
              { propagationPolicy: 'Background', preconditions: { uid: obj.metadata.uid } },
              ctx,
            )
            .catch((err: unknown) => {
              if (!isRaceError(err))
                failures.push(
                  `${rt.plural}.${rt.group} "${obj.metadata.name}": ${err instanceof Error ? err.message : String(err)}`,
                );
            }),
        );
      }
    }
    await Promise.all(pending);
    return failures;
  }

  private remainingContent(ns: string, types: ResourceType[], failures: string[]): ContentTotals {
    const totals: ContentTotals = { remaining: new Map(), finalizers: new Map(), failures };
    for (const rt of types) {
      const left = this.core.store.list(rt.storageKey, ns);
      if (left.length === 0) continue;
      totals.remaining.set(`${rt.plural}.${rt.group}`, left.length);
      for (const obj of left) {
        for (const f of obj.metadata.finalizers ?? []) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + 1);
      }
    }
    return totals;
  }

  private reportStatus(name: string, totals: ContentTotals): void {
    const rt = this.nsType();
    rewrite(
      this.core,
      rt,
      { namespace: undefined, name, uid: undefined },
      controllerContext(SERVICE_ACCOUNT),
      (draft) => {
        const status = (draft.status ?? {}) as { phase?: string; conditions?: NamespaceCondition[] };
        const conditions = namespaceConditions(status.conditions, totals, kubeTime());
        if (status.phase === 'Terminating' && JSON.stringify(conditions) === JSON.stringify(status.conditions))
          return false;
        draft.status = { ...status, phase: 'Terminating', conditions };
        return true;
      },
      'status',
    );
  }

  /** Removes the `kubernetes` finalizer; the namespace goes once no other finalizer holds it. */
  private finalize(name: string): void {
    rewrite(
      this.core,
      this.nsType(),
      { namespace: undefined, name, uid: undefined },
      controllerContext(SERVICE_ACCOUNT),
      (draft) => {
        const spec = (draft.spec ?? {}) as { finalizers?: string[] };
        // An empty list is kept rather than dropped: the Namespace defaults would put `kubernetes` back
        // into a missing list on the next update of a namespace still held by other finalizers.
        draft.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
        return true;
      },
    );
  }

  private nsType(): ResourceType {
    const rt = this.core.registry.byResource('', 'namespaces');
    if (!rt) throw new Error('namespaces are not served');
    return rt;
  }
}

function specFinalizers(ns: KubeObject): string[] {
  const spec = ns.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) ? (spec.finalizers as string[]) : [];
}
