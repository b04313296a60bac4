// kube-controller-manager's garbage collector, in-process: dependents are found through their
// ownerReferences (indexed by owner uid) and collected once no owner they name exists any more.
//  - Background: the owner goes first; each dependent whose owners are all absent is then deleted.
//  - Foreground: the owner waits (deletionTimestamp + `foregroundDeletion`) while its dependents are
//    deleted, and loses the finalizer once no dependent with `blockOwnerDeletion: true` is left.
//  - Orphan: the owner's reference is removed from every dependent, then its `orphan` finalizer.
// An owner "exists" only if the object its reference names (kind, name, and the dependent's namespace
// for a namespaced kind) has the referenced uid, so an owner recreated under the same name does not
// adopt the old one's dependents. A dependent keeps living while any owner exists; references to
// absent owners are then dropped from it.

import { ReverseIndex } from '@modelplane/apimachinery';
import type { ServerCore } from '../core.ts';
import type { DeleteOptions } from '../objects/context.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { StoredEvent } from '../storage/store.ts';
import type { KubeObject, OwnerReference } from '../types.ts';
import { objectId, parseObjectId } from './owner-index.ts';
import { failureReporter, WorkQueue } from './queue.ts';
import { controllerContext, hasFinalizer, isRaceError, resourceTypeOf, rewrite } from './writes.ts';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
const SERVICE_ACCOUNT = 'generic-garbage-collector';

type PropagationPolicy = NonNullable<DeleteOptions['propagationPolicy']>;

/**
 * kube-apiserver's default propagation policy for a DELETE that names none: batch/v1 Jobs orphan
 * their pods (with a warning, since kubectl and most clients expect otherwise); everything else
 * served here deletes its dependents in the background.
 */
export function defaultPropagationPolicy(rt: ResourceType): { policy: PropagationPolicy; warning?: string } {
  if (rt.group === 'batch' && rt.plural === 'jobs') {
    return {
      policy: 'Orphan',
      warning:
        'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
    };
  }
  if (rt.group === '' && rt.plural === 'replicationcontrollers') return { policy: 'Orphan' };
  return { policy: 'Background' };
}

type OwnerLookup = { state: 'unresolvable' } | { state: 'absent' } | { state: 'present'; owner: KubeObject };

export interface GarbageCollectorOptions {
  warn?: (message: string) => void;
}

export class GarbageCollector {
  /** owner uid → the ids of the objects whose ownerReferences name it */
  private readonly index = new ReverseIndex();
  /** owners waiting for their dependents (foregroundDeletion), uid → object id */
  private readonly waitingOwners = new Map<string, string>();
  /** dependents naming an owner kind this server does not serve: rechecked when the served types change */
  private readonly unresolvable = new Set<string>();
  private readonly queue: WorkQueue;
  private unsubscribe: Array<() => void> = [];

  constructor(
    private readonly core: ServerCore,
    opts: GarbageCollectorOptions = {},
  ) {
    this.queue = new WorkQueue((key) => this.process(key), {
      onError: failureReporter('garbage collector', opts.warn ?? console.warn),
    });
  }

  start(): void {
    const { store } = this.core;
    for (const key of store.storageKeys()) {
      for (const obj of store.list(key)) this.observe(key, 'ADDED', obj);
    }
    this.unsubscribe.push(
      store.watchAll((e) => this.onEvent(e)),
      this.core.registry.onChange(() => {
        for (const id of this.unresolvable) this.queue.add(`dependent ${id}`);
      }),
    );
  }

  stop(): void {
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    this.queue.stop();
  }

  /** resolves when no collection work is queued or running */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  isIdle(): boolean {
    return this.queue.isIdle();
  }

  /** the dependents currently recorded for an owner uid (tests and diagnostics) */
  dependentsOf(ownerUid: string): string[] {
    return this.index.holdersOf(ownerUid);
  }

  private onEvent(e: StoredEvent): void {
    try {
      this.observe(e.storageKey, e.type, e.object, e.prev);
    } catch (err) {
      // A listener must never fail the write that notified it.
      console.warn(`garbage collector: indexing ${e.storageKey} ${e.object.metadata.name}: ${String(err)}`);
    }
  }

  /** Keeps the index current and queues the work an event makes necessary; never writes. */
  private observe(storageKey: string, type: StoredEvent['type'], obj: KubeObject, prev?: KubeObject): void {
    const id = objectId(storageKey, obj.metadata.namespace, obj.metadata.name!);
    const uid = obj.metadata.uid;
    const formerOwners = this.index.refsFrom(id);
    if (type === 'DELETED') {
      this.index.delete(id);
      this.unresolvable.delete(id);
      if (uid) {
        this.waitingOwners.delete(uid);
        for (const dependent of this.index.holdersOf(uid)) this.queue.add(`dependent ${dependent}`);
      }
      for (const owner of formerOwners) this.wakeWaitingOwner(owner);
      return;
    }
    const refs = obj.metadata.ownerReferences ?? [];
    const refsChanged =
      type === 'ADDED' || JSON.stringify(prev?.metadata.ownerReferences ?? []) !== JSON.stringify(refs);
    // (most objects never had owners: nothing to index or wake)
    if (refsChanged && (refs.length > 0 || formerOwners.length > 0)) {
      const owners = refs.map((r) => r.uid).filter((u): u is string => typeof u === 'string');
      for (const owner of new Set([...formerOwners, ...owners])) this.wakeWaitingOwner(owner);
      this.index.set(id, owners);
      if (owners.length > 0) this.queue.add(`dependent ${id}`);
    }
    if (!uid) return;
    if (obj.metadata.deletionTimestamp && hasFinalizer(obj, FOREGROUND_FINALIZER)) {
      this.waitingOwners.set(uid, id);
      this.queue.add(`foreground ${id}`);
    } else {
      this.waitingOwners.delete(uid);
    }
    if (obj.metadata.deletionTimestamp && hasFinalizer(obj, ORPHAN_FINALIZER)) this.queue.add(`orphan ${id}`);
  }

  private wakeWaitingOwner(ownerUid: string): void {
    const owner = this.waitingOwners.get(ownerUid);
    if (owner) this.queue.add(`blocking ${owner}`);
  }

  private async process(key: string): Promise<void> {
    const space = key.indexOf(' ');
    const kind = key.slice(0, space);
    const id = key.slice(space + 1);
    if (kind === 'dependent') await this.collectDependent(id);
    else if (kind === 'foreground') this.processWaitingOwner(id, true);
    else if (kind === 'blocking') this.processWaitingOwner(id, false);
    else if (kind === 'orphan') this.orphanDependents(id);
    await this.core.durable();
  }

  private lookupOwner(ref: OwnerReference, dependent: KubeObject): OwnerLookup {
    const slash = ref.apiVersion?.indexOf('/') ?? -1;
    const group = slash >= 0 ? ref.apiVersion.slice(0, slash) : '';
    const rt = this.core.registry.byKind(group, ref.kind);
    if (!rt) return { state: 'unresolvable' };
    // A cluster-scoped dependent cannot name a namespaced owner: kube never collects it.
    if (rt.namespaced && !dependent.metadata.namespace) return { state: 'unresolvable' };
    const owner = this.core.store.get(
      rt.storageKey,
      rt.namespaced ? dependent.metadata.namespace : undefined,
      ref.name,
    );
    if (!owner || owner.metadata.uid !== ref.uid) return { state: 'absent' };
    return { state: 'present', owner };
  }

  /** kube's attemptToDeleteItem: delete a dependent none of whose owners exist (or all wait for it). */
  private async collectDependent(id: string): Promise<void> {
    const { storageKey, namespace, name } = parseObjectId(id);
    const obj = this.core.store.get(storageKey, namespace, name);
    const refs = obj?.metadata.ownerReferences ?? [];
    if (!obj || refs.length === 0) return;
    // Already being deleted, and not waiting on its own dependents: nothing to decide.
    if (obj.metadata.deletionTimestamp && !hasFinalizer(obj, FOREGROUND_FINALIZER)) return;
    const rt = resourceTypeOf(this.core, storageKey);
    if (!rt) return;

    let solid = 0;
    const dangling = new Set<string>();
    const waiting = new Set<string>();
    for (const ref of refs) {
      const found = this.lookupOwner(ref, obj);
      if (found.state === 'unresolvable') {
        this.unresolvable.add(id);
        return;
      }
      if (found.state === 'absent') dangling.add(ref.uid);
      else if (found.owner.metadata.deletionTimestamp && hasFinalizer(found.owner, FOREGROUND_FINALIZER))
        waiting.add(ref.uid);
      else solid++;
    }
    this.unresolvable.delete(id);
    const ref = { namespace, name, uid: obj.metadata.uid };
    const ctx = controllerContext(SERVICE_ACCOUNT);

    if (solid > 0) {
      // Another owner keeps it alive: drop only the references to owners that are gone or going.
      if (dangling.size + waiting.size > 0) {
        rewrite(this.core, rt, ref, ctx, (draft) => {
          draft.metadata.ownerReferences = refs.filter((r) => !dangling.has(r.uid) && !waiting.has(r.uid));
          return true;
        });
      }
      return;
    }

    let policy: PropagationPolicy;
    if (waiting.size > 0 && obj.metadata.uid && this.index.hasHolders(obj.metadata.uid)) {
      // Its owner waits for it, so it must wait for its own dependents. If one of those is itself
      // waiting (a cycle), stop blocking the owners first so neither side waits forever.
      if (this.hasWaitingDependent(obj.metadata.uid)) {
        rewrite(this.core, rt, ref, ctx, (draft) => {
          draft.metadata.ownerReferences = refs.map((r) =>
            waiting.has(r.uid) && r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r,
          );
          return refs.some((r) => waiting.has(r.uid) && r.blockOwnerDeletion);
        });
      }
      policy = 'Foreground';
    } else if (hasFinalizer(obj, ORPHAN_FINALIZER)) {
      policy = 'Orphan';
    } else if (hasFinalizer(obj, FOREGROUND_FINALIZER)) {
      policy = 'Foreground';
    } else {
      policy = 'Background';
    }
    try {
      await this.core.deleter.delete(
        rt,
        namespace,
        name,
        { propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } },
        ctx,
      );
    } catch (err) {
      if (!isRaceError(err)) throw err;
    }
  }

  private hasWaitingDependent(uid: string): boolean {
    for (const depId of this.index.holdersOf(uid)) {
      const { storageKey, namespace, name } = parseObjectId(depId);
      const dep = this.core.store.get(storageKey, namespace, name);
      if (dep?.metadata.deletionTimestamp && hasFinalizer(dep, FOREGROUND_FINALIZER)) return true;
    }
    return false;
  }

  /**
   * kube's processDeletingDependentsItem for an owner in foreground deletion: queue its dependents
   * for collection (when the owner itself changed), and release the owner once no dependent blocks it.
   */
  private processWaitingOwner(id: string, collectDependents: boolean): void {
    const { storageKey, namespace, name } = parseObjectId(id);
    const owner = this.core.store.get(storageKey, namespace, name);
    const uid = owner?.metadata.uid;
    if (!owner || !uid || !owner.metadata.deletionTimestamp || !hasFinalizer(owner, FOREGROUND_FINALIZER)) return;
    let blocking = 0;
    for (const depId of this.index.holdersOf(uid)) {
      const dep = parseObjectId(depId);
      const obj = this.core.store.get(dep.storageKey, dep.namespace, dep.name);
      const ref = obj?.metadata.ownerReferences?.find((r) => r.uid === uid);
      if (!obj || !ref) continue;
      if (ref.blockOwnerDeletion) blocking++;
      if (collectDependents || ref.blockOwnerDeletion) this.queue.add(`dependent ${depId}`);
    }
    if (blocking > 0) return;
    const rt = resourceTypeOf(this.core, storageKey);
    if (!rt) return;
    rewrite(this.core, rt, { namespace, name, uid }, controllerContext(SERVICE_ACCOUNT), (draft) => {
      draft.metadata.finalizers = (draft.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_FINALIZER);
      return true;
    });
  }

  /** kube's attemptToOrphan: remove the owner from its dependents' ownerReferences, then its `orphan` finalizer. */
  private orphanDependents(id: string): void {
    const { storageKey, namespace, name } = parseObjectId(id);
    const owner = this.core.store.get(storageKey, namespace, name);
    const uid = owner?.metadata.uid;
    if (!owner || !uid || !owner.metadata.deletionTimestamp || !hasFinalizer(owner, ORPHAN_FINALIZER)) return;
    const ctx = controllerContext(SERVICE_ACCOUNT);
    for (const depId of this.index.holdersOf(uid)) {
      const dep = parseObjectId(depId);
      const rt = resourceTypeOf(this.core, dep.storageKey);
      if (!rt) continue;
      rewrite(this.core, rt, { namespace: dep.namespace, name: dep.name, uid: undefined }, ctx, (draft) => {
        const refs = draft.metadata.ownerReferences ?? [];
        const kept = refs.filter((r) => r.uid !== uid);
        draft.metadata.ownerReferences = kept;
        return kept.length !== refs.length;
      });
    }
    const rt = resourceTypeOf(this.core, storageKey);
    if (!rt) return;
    rewrite(this.core, rt, { namespace, name, uid }, ctx, (draft) => {
      draft.metadata.finalizers = (draft.metadata.finalizers ?? []).filter((f) => f !== ORPHAN_FINALIZER);
      return true;
    });
  }
}
