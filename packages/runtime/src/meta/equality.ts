// Structural comparison of JSON values, used by predicates (did anything but status change?) and by the
// apply no-op check (is every field we would apply already there?).

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a as object);
  const bk = Object.keys(b as object);
  if (ak.length !== bk.length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(b as object, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * True when every field set in `want` has the same value in `have`. Objects may have extra keys in `have`
 * (defaults, other managers' fields); lists must have the same length and each element must be a subset
 * of its counterpart (the API server keeps list order for the lists a controller sets).
 */
export function isSubset(want: unknown, have: unknown): boolean {
  if (want === have) return true;
  if (typeof want !== 'object' || want === null) {
    // JSON numbers: 1 and 1.0 are the same value; nothing else is loosely equal
    return false;
  }
  if (typeof have !== 'object' || have === null) return false;
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || want.length !== have.length) return false;
    for (let i = 0; i < want.length; i++) if (!isSubset(want[i], have[i])) return false;
    return true;
  }
  if (Array.isArray(have)) return false;
  for (const [k, v] of Object.entries(want as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (!Object.hasOwn(have as object, k)) {
      // an empty map or list the server dropped is still "set" as far as the result goes
      if (isEmptyContainer(v)) continue;
      return false;
    }
    if (!isSubset(v, (have as Record<string, unknown>)[k])) return false;
  }
  return true;
}

function isEmptyContainer(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== null && Object.keys(v).length === 0;
}
