// What the built-in providers share: labels, env by reference, engine flags, status helpers, the refusal of
// fields an upstream kind cannot carry, and the shape of a built-in definition.

import type { KubeObject } from '@modelplane/runtime/meta';
import type { BuiltinProvider, ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import type { ProviderDefinition } from '../../provider/definition.ts';
import { DEFAULT_PROVIDER_SPECS } from '../../selection/default-providers.ts';
import { PROVIDER_DISPLAY_NAMES } from '../../validation/index.ts';

export {
  derivedEngineFlags,
  type EngineFlagOptions,
  type Flag,
  flagKey,
  renderEngineArgs,
  userFlagKeys,
} from './engine-args.ts';
export { HF_TOKEN_ENV, HF_TOKEN_SECRET_KEY, hfTokenEnv, hfTokenSecretName, modelEnv, userEnv } from './env.ts';
export { modelLabels, podAnnotations, podLabels, sanitizeLabelValue } from './labels.ts';
export { findCondition, nonNegativeInt, staleStatus } from './status.ts';
export { type OptionalField, rejectUnsupportedFields } from './unsupported.ts';

/** the version each built-in provider reports (`<name>-provider:<version>`): modelplane's own */
export const PROVIDER_VERSION = '0.1.0';

/**
 * A built-in provider: the definition plus `overridePatch`, the documented `spec.provider.overrides`
 * translated into a partial upstream object. The skeleton deep-merges it over transform(md) (objects merge
 * key by key, arrays and scalars replace, null deletes); it must not merge the raw overrides itself.
 */
export interface BuiltinProviderDefinition<U extends KubeObject = KubeObject> extends ProviderDefinition<U> {
  overridePatch(md: ModelDeployment): Record<string, unknown>;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `patch` merged over `base` with the rules the skeleton applies (a null is kept: it deletes when applied) */
export function mergePatch(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergePatch(current, value) : value;
  }
  return out;
}

/** a built-in provider from its name and the parts that differ: name, display name, version and config come from one place */
export function builtinProvider<U extends KubeObject>(
  name: BuiltinProvider,
  parts: Pick<
    BuiltinProviderDefinition<U>,
    'upstream' | 'upstreamResource' | 'transform' | 'mapStatus' | 'overridePatch'
  > &
    Partial<Pick<BuiltinProviderDefinition<U>, 'storage' | 'operatorSelector'>>,
): BuiltinProviderDefinition<U> {
  return {
    name,
    displayName: PROVIDER_DISPLAY_NAMES[name] ?? name,
    version: PROVIDER_VERSION,
    config: DEFAULT_PROVIDER_SPECS[name],
    ...parts,
  };
}
