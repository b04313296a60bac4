// Event filters applied before an event enqueues anything. They cut reconciles caused by changes a
// controller does not care about, above all its own status writes (each of which is an update event).

import { deepEqual } from '../meta/equality.ts';
import type { KubeObject } from '../meta/types.ts';
import { lostStatusFields, statusOthersSee } from './status-ownership.ts';

export type ObjectEvent<T extends KubeObject = KubeObject> =
  | { type: 'add'; obj: T }
  | { type: 'update'; old: T; obj: T }
  | { type: 'delete'; obj: T };

export type Predicate<T extends KubeObject = KubeObject> = (ev: ObjectEvent<T>) => boolean;

/**
 * Updates pass only when metadata.generation changed (spec edits; not status or metadata-only writes).
 * Kinds that have no generation at all (ConfigMaps, Secrets, …) always pass, because for them nothing
 * would ever pass otherwise.
 */
export function generationChanged<T extends KubeObject>(): Predicate<T> {
  return (ev) => {
    if (ev.type !== 'update') return true;
    const a = ev.old.metadata.generation;
    const b = ev.obj.metadata.generation;
    if (a === undefined && b === undefined) return true;
    return a !== b;
  };
}

export function labelsChanged<T extends KubeObject>(): Predicate<T> {
  return (ev) => ev.type !== 'update' || !deepEqual(ev.old.metadata.labels ?? {}, ev.obj.metadata.labels ?? {});
}

export function annotationsChanged<T extends KubeObject>(): Predicate<T> {
  return (ev) =>
    ev.type !== 'update' || !deepEqual(ev.old.metadata.annotations ?? {}, ev.obj.metadata.annotations ?? {});
}

/** drops updates that carry no new resourceVersion (relist replays) */
export function resourceVersionChanged<T extends KubeObject>(): Predicate<T> {
  return (ev) => ev.type !== 'update' || ev.old.metadata.resourceVersion !== ev.obj.metadata.resourceVersion;
}

/** drops updates where the object is being deleted and nothing else matters */
export function deletionStarted<T extends KubeObject>(): Predicate<T> {
  return (ev) => ev.type === 'update' && !ev.old.metadata.deletionTimestamp && !!ev.obj.metadata.deletionTimestamp;
}

function withoutStatus(obj: KubeObject): unknown {
  const { status: _s, metadata, ...rest } = obj;
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return { ...rest, metadata: meta };
}

/**
 * Passes an update when anything outside `.status` changed: generation and spec, labels, annotations,
 * finalizers, owner references, deletion. For a controller that reads no status of the object but its own.
 */
export function nonStatusChanged<T extends KubeObject>(): Predicate<T> {
  return (ev) => ev.type !== 'update' || !deepEqual(withoutStatus(ev.old), withoutStatus(ev.obj));
}

/**
 * Drops an update whose only change is to status fields `fieldManager` alone owns (its own status writes,
 * echoed back). Anything outside status, any status field somebody else owns or shares, and a field of
 * its own that went away (somebody removed it, or its own write dropped it) passes.
 * Decided from the two objects' values and managedFields field sets, never from managedFields timestamps,
 * which have one-second resolution: two writes by another manager in one second look alike there, and
 * the second must not be lost.
 */
export function ignoreOwnStatusWrites<T extends KubeObject>(fieldManager: string): Predicate<T> {
  return (ev) => {
    if (ev.type !== 'update') return true;
    if (!deepEqual(withoutStatus(ev.old), withoutStatus(ev.obj))) return true;
    if (lostStatusFields(ev.old, ev.obj, fieldManager)) return true;
    return !deepEqual(statusOthersSee(ev.old, fieldManager), statusOthersSee(ev.obj, fieldManager));
  };
}

function withoutFinalizers(obj: KubeObject): unknown {
  const { resourceVersion: _rv, managedFields: _mf, finalizers: _f, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

/**
 * Drops an update whose only change is the controller's own finalizer write: `finalizer` added, or removed
 * from an object being deleted (its cleanup done). The controller wrote it, acts on the patched object in
 * the same reconcile, and needs no second reconcile for its own patch. `finalizer` removed from a live
 * object passes: somebody else took it away, and the controller must put it back. Deletion
 * (deletionTimestamp) always shows as a change.
 */
export function ignoreFinalizerChange<T extends KubeObject>(finalizer: string): Predicate<T> {
  return (ev) => {
    if (ev.type !== 'update') return true;
    const before = ev.old.metadata.finalizers ?? [];
    const after = ev.obj.metadata.finalizers ?? [];
    if (deepEqual(before, after)) return true;
    const others = (fs: readonly string[]) => fs.filter((f) => f !== finalizer);
    if (!deepEqual(others(before), others(after))) return true;
    const removed = before.includes(finalizer) && !after.includes(finalizer);
    if (removed && !ev.obj.metadata.deletionTimestamp) return true;
    return !deepEqual(withoutFinalizers(ev.old), withoutFinalizers(ev.obj));
  };
}

export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return (ev) => ps.every((p) => p(ev));
}

export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return (ev) => ps.some((p) => p(ev));
}

export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return (ev) => !p(ev);
}
