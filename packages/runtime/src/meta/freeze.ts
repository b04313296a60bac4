// Deep freezing for cached objects: every reader shares one copy, so a reconcile that mutates what it got
// from the cache would silently corrupt every other reader's view (and the diff the next event computes).

export type DeepReadonly<T> = T extends (infer U)[]
  ? ReadonlyArray<DeepReadonly<U>>
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** freezes `value` and everything reachable from it, in place; returns it */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // for…in rather than Object.values: no array per object frozen (every cached object passes through here)
  for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  return value;
}

/** a mutable deep copy of a (possibly frozen) JSON value, for callers that want to edit a cached object */
export function thaw<T>(value: T): T {
  return structuredClone(value) as T;
}
