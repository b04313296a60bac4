// The defaulting step for v1alpha2 (docs/llamastack.md, "One object or a list"): a provider section given
// as one object becomes a one-element list, so the stored object matches the structural schema and the
// CEL rules see every id. Settings are copied as they are and never looked into.
import { PROVIDER_SECTIONS } from './v1alpha2.ts';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** whether any provider section is still a single object */
export function needsNormalization(spec: unknown): boolean {
  if (!isObj(spec) || !isObj(spec.providers)) return false;
  const providers = spec.providers;
  return PROVIDER_SECTIONS.some((s) => isObj(providers[s]));
}

/** a copy of `spec` with every provider section as a list; other values are returned unchanged */
export function normalizeV1Alpha2Spec<T>(spec: T): T {
  if (!needsNormalization(spec)) return spec;
  const s = spec as Record<string, unknown>;
  const providers = { ...(s.providers as Record<string, unknown>) };
  for (const section of PROVIDER_SECTIONS) {
    const v = providers[section];
    if (isObj(v)) providers[section] = [v];
  }
  return { ...s, providers } as T;
}
