/**
 * Field-by-field merge of runtime configs. Unlike the Go anchor (mergo), any value that is present in the more
 * specific config overrides, including false, 0 and "" — otherwise a namespace could never switch off routing or
 * label propagation that the cluster turned on. Absent (undefined or null) means "inherit".
 */
import { mergeEnvByName } from '../env-merge/index.ts';
import type { RuntimeConfigSpec, ServiceRuntimeConfig } from './types.ts';

// Objects at these paths are single values: replaced whole, never merged key by key.
const ATOMIC_PATHS = new Set(['routing.gatewayRef']);

/**
 * Merges cluster < namespace < inline AIMService config. Every argument is optional; the result is a fresh object
 * (inputs are never mutated or aliased) with deprecated top-level storage fields folded into `storage`.
 */
export function mergeRuntimeConfig(
  cluster?: RuntimeConfigSpec,
  namespace?: RuntimeConfigSpec,
  inline?: ServiceRuntimeConfig,
): RuntimeConfigSpec {
  let merged: Record<string, unknown> = {};
  for (const layer of [cluster, namespace, inline]) {
    if (layer) merged = mergeObjects(merged, migrateDeprecatedFields(layer) as Record<string, unknown>, '');
  }
  return merged as RuntimeConfigSpec;
}

/** Copies deprecated `defaultStorageClassName` / `pvcHeadroomPercent` into `storage.*` when those are unset. */
export function migrateDeprecatedFields(spec: RuntimeConfigSpec): RuntimeConfigSpec {
  const { defaultStorageClassName, pvcHeadroomPercent, ...rest } = spec as RuntimeConfigSpec;
  const out: RuntimeConfigSpec = structuredClone(rest);
  if (isSet(defaultStorageClassName) && !isSet(out.storage?.defaultStorageClassName)) {
    out.storage = { ...out.storage, defaultStorageClassName };
  }
  if (isSet(pvcHeadroomPercent) && !isSet(out.storage?.pvcHeadroomPercent)) {
    out.storage = { ...out.storage, pvcHeadroomPercent };
  }
  return out;
}

function mergeObjects(base: Record<string, unknown>, override: Record<string, unknown>, path: string) {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (!isSet(value)) continue;
    const childPath = path === '' ? key : `${path}.${key}`;
    const current = out[key];
    if (childPath === 'env' && Array.isArray(value)) {
      out[key] = mergeEnvByName(Array.isArray(current) ? current : undefined, value);
    } else if (isPlainObject(value) && isPlainObject(current) && !ATOMIC_PATHS.has(childPath)) {
      out[key] = mergeObjects(current, value, childPath);
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
