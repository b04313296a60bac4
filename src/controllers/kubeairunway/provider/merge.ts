// spec.provider.overrides are deep-merged into the transformed upstream object, the same way for every
// provider (upstream copied this into each provider module): nested maps merge, anything else (strings,
// numbers, lists) replaces, and a null deletes the key. The object's identity and status are not the
// overrides' to touch: top-level apiVersion, kind, metadata and status are skipped (admission and the
// reconciler's validation already report them as errors; this keeps a bypassed check harmless).
import { RESERVED_TOP_LEVEL_KEYS } from '../validation/index.ts';

type Json = Record<string, unknown>;

function isMap(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** a null inside a newly added map has nothing to delete; dropped rather than sent to the server */
function withoutNulls(v: unknown): unknown {
  if (!isMap(v)) return structuredClone(v);
  const out: Json = {};
  for (const [k, child] of Object.entries(v)) if (child !== null) out[k] = withoutNulls(child);
  return out;
}

function mergeInto(target: Json, patch: Json): Json {
  const out: Json = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = mergeInto(out[key] as Json, value);
    else out[key] = withoutNulls(value);
  }
  return out;
}

/** a new object: `base` with `overrides` merged in (neither input is modified) */
export function mergeOverrides<T extends Json>(base: T, overrides: Json | undefined): T {
  if (!overrides) return base;
  const allowed: Json = {};
  for (const [key, value] of Object.entries(overrides)) if (!RESERVED_TOP_LEVEL_KEYS.has(key)) allowed[key] = value;
  return mergeInto(base, allowed) as T;
}
