// Deletion semantics: preconditions, finalizers (an object with finalizers is only marked with a
// deletionTimestamp), the propagation-policy finalizers the garbage collector honours, and dry runs.
// Namespaces: the first DELETE only marks them Terminating (spec.finalizers keeps them until the
// namespace controller has emptied them), and the system namespaces cannot be deleted at all.
import { errors } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { ObjectStore } from '../storage/store.ts';
import type { KubeObject } from '../types.ts';
import type { DeleteOptions, RequestContext } from './context.ts';
import type { AdmissionChain } from './hooks.ts';
import { kubeTime } from './meta.ts';

export interface DeleteResult {
  /** the final state: the deleted object, or the object now marked for deletion */
  object: KubeObject;
  /** true when the object is gone; false when finalizers keep it */
  deleted: boolean;
}

export interface DeleterDeps {
  store: ObjectStore;
  admission: () => AdmissionChain;
  onDeleted: (rt: ResourceType, obj: KubeObject) => void;
  /** resolves once committed writes are durable */
  durable: () => Promise<void>;
  /**
   * the default propagation policy when the client gives none (kube: Background, Orphan for a few
   * legacy kinds such as batch/v1 Jobs), and the warning kube returns with it
   */
  defaultPolicy?: (rt: ResourceType) => { policy: NonNullable<DeleteOptions['propagationPolicy']>; warning?: string };
}

const NAMESPACES = '/namespaces';
/** kube's NamespaceLifecycle admission: these can never be deleted */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

export class Deleter {
  constructor(private readonly deps: DeleterDeps) {}

  /** read, refuse what may not go, admit, then delete outright or mark for the finalizers that hold it */
  async delete(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions,
    ctx: RequestContext,
  ): Promise<DeleteResult> {
    const { store } = this.deps;
    const found = store.get(rt.storageKey, namespace, name);
    if (!found) throw errors.notFound(rt.plural, rt.group, name);
    assertDeletable(rt, name, found, options);
    await this.deps.admission().validate({
      rt,
      version: found.apiVersion.split('/').pop()!,
      operation: 'DELETE',
      namespace,
      name,
      oldObject: found,
      user: ctx.user,
      dryRun: ctx.dryRun,
      warnings: ctx.warnings,
    });
    // Admission may have waited (webhooks): decide on the latest version, not the one read before it, and
    // check the client's preconditions again on it (kube's storage checks them on the object it deletes).
    const obj = store.get(rt.storageKey, namespace, name);
    if (!obj || obj.metadata.uid !== found.metadata.uid) throw errors.notFound(rt.plural, rt.group, name);
    assertPreconditions(rt, name, obj, options);

    const finalizers = [...(obj.metadata.finalizers ?? [])];
    const policy = this.propagationPolicy(rt, options, ctx);
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (finalizers.length === 0 && !heldByNamespaceFinalizers(rt, obj)) {
      if (ctx.dryRun) return { object: obj, deleted: true };
      const gone = store.commit(rt.storageKey, 'DELETED', obj);
      this.deps.onDeleted(rt, gone);
      await this.deps.durable();
      return { object: gone, deleted: true };
    }
    if (obj.metadata.deletionTimestamp && sameList(finalizers, obj.metadata.finalizers ?? [])) {
      return { object: obj, deleted: false };
    }
    const marked = markedForDeletion(rt, obj, finalizers);
    if (ctx.dryRun) return { object: marked, deleted: false };
    const committed = store.commit(rt.storageKey, 'MODIFIED', marked);
    await this.deps.durable();
    return { object: committed, deleted: false };
  }

  /** the client's policy (or the legacy orphanDependents flag), else the kind's default with its warning */
  private propagationPolicy(
    rt: ResourceType,
    options: DeleteOptions,
    ctx: RequestContext,
  ): NonNullable<DeleteOptions['propagationPolicy']> {
    const legacyOrphan = (options as { orphanDependents?: unknown }).orphanDependents;
    const asked =
      options.propagationPolicy ??
      (typeof legacyOrphan === 'boolean' ? (legacyOrphan ? 'Orphan' : 'Background') : undefined);
    if (asked) return asked;
    const defaulted = this.deps.defaultPolicy?.(rt);
    if (defaulted?.warning) ctx.warnings.push(defaulted.warning);
    return defaulted?.policy ?? 'Background';
  }
}

/** system namespaces never go, and the client's uid / resourceVersion preconditions must hold */
function assertDeletable(rt: ResourceType, name: string, obj: KubeObject, options: DeleteOptions): void {
  if (rt.storageKey === NAMESPACES && IMMORTAL_NAMESPACES.has(name)) {
    throw errors.forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, {
      name,
      group: '',
      kind: 'namespaces',
    });
  }
  assertPreconditions(rt, name, obj, options);
}

/** the client's uid / resourceVersion preconditions, checked against `obj` */
function assertPreconditions(rt: ResourceType, name: string, obj: KubeObject, options: DeleteOptions): void {
  const pre = options.preconditions;
  if (pre?.uid && pre.uid !== obj.metadata.uid) {
    throw errors.conflict(
      rt.plural,
      rt.group,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
    throw errors.conflict(
      rt.plural,
      rt.group,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`,
    );
  }
}

/** A Namespace is removed only when its spec.finalizers are empty too (kube's ShouldDeleteNamespaceDuringUpdate). */
export function heldByNamespaceFinalizers(rt: ResourceType, obj: KubeObject): boolean {
  return (
    rt.storageKey === NAMESPACES && ((obj.spec as { finalizers?: unknown[] } | undefined)?.finalizers?.length ?? 0) > 0
  );
}

/** the first delete stamps deletionTimestamp and bumps generation; a Namespace turns Terminating */
function markedForDeletion(rt: ResourceType, obj: KubeObject, finalizers: string[]): KubeObject {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      finalizers,
      deletionTimestamp: obj.metadata.deletionTimestamp ?? kubeTime(),
      deletionGracePeriodSeconds: obj.metadata.deletionGracePeriodSeconds ?? 0,
      generation: obj.metadata.deletionTimestamp ? obj.metadata.generation : (obj.metadata.generation ?? 0) + 1,
    },
    ...(rt.storageKey === NAMESPACES
      ? { status: { ...(obj.status as object | undefined), phase: 'Terminating' } }
      : {}),
  };
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
