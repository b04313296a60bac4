// Stored objects never change: a write stores a new object, and lists, watch events, responses and
// the JSON cached for them (http/object-json.ts) share the stored one. Freezing enforces that: code
// that would change a stored object in place fails loudly instead of silently altering history.

/**
 * Freezes a JSON value and everything below it, children first, so a frozen object is always frozen
 * all the way down and subtrees already frozen (shared with earlier versions) are skipped.
 */
export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) deepFreeze(v[i]);
  } else {
    const o = v as Record<string, unknown>;
    for (const k in o) deepFreeze(o[k]);
  }
  return Object.freeze(v);
}
