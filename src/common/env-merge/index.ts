/**
 * Environment-variable merging for managed workloads. Layers are applied lowest precedence first; a later layer's
 * variable replaces an earlier one of the same name in place (so the order seen by the container stays stable),
 * and names not seen before are appended.
 */

/** The subset of core/v1 EnvVar the operator reasons about; valueFrom is carried through untouched. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

/** A problem with one env entry, as data so callers can put it in a condition message. */
export interface EnvVarError {
  /** Field path of the offending entry, e.g. `spec.env[2].name`. */
  field: string;
  message: string;
}

/** Download-job defaults the operator applies before any runtime config (docs/aim.md's "operator defaults"). */
export const OPERATOR_DEFAULT_DOWNLOAD_ENV: readonly EnvVar[] = Object.freeze([
  Object.freeze({ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET,HF_TRANSFER' }),
]);

/** Merges env layers by name, lowest precedence first. Entries are copied, never aliased. */
export function mergeEnvByName(...layers: ReadonlyArray<readonly EnvVar[] | undefined>): EnvVar[] {
  const merged: EnvVar[] = [];
  const indexByName = new Map<string, number>();
  for (const layer of layers) {
    if (!layer) continue;
    for (const entry of layer) {
      const copy = copyEnvVar(entry);
      const existing = indexByName.get(entry.name);
      if (existing === undefined) {
        indexByName.set(entry.name, merged.length);
        merged.push(copy);
      } else {
        merged[existing] = copy;
      }
    }
  }
  return merged;
}

/** The layers that feed a download Job, named after docs/aim.md's precedence list. */
export interface DownloadEnvLayers {
  operatorDefaults?: readonly EnvVar[];
  clusterRuntimeConfig?: readonly EnvVar[];
  namespaceRuntimeConfig?: readonly EnvVar[];
  /** The most specific object (AIMArtifact.spec.env); always wins. */
  object?: readonly EnvVar[];
}

/** operator defaults < AIMClusterRuntimeConfig < AIMRuntimeConfig < the object's own env. */
export function mergeEnvByPrecedence(layers: DownloadEnvLayers): EnvVar[] {
  return mergeEnvByName(
    layers.operatorDefaults ?? OPERATOR_DEFAULT_DOWNLOAD_ENV,
    layers.clusterRuntimeConfig,
    layers.namespaceRuntimeConfig,
    layers.object,
  );
}

// Kubernetes' classic env name rule (the one kube-apiserver enforces without RelaxedEnvironmentVariableValidation).
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Checks one env list: names valid and unique, value and valueFrom not both set. */
export function validateEnvVars(env: readonly EnvVar[] | undefined, fieldPath: string): EnvVarError[] {
  const errors: EnvVarError[] = [];
  if (!env) return errors;
  const seen = new Map<string, number>();
  env.forEach((entry, i) => {
    const field = `${fieldPath}[${i}]`;
    const name = entry.name;
    if (typeof name !== 'string' || name === '') {
      errors.push({ field: `${field}.name`, message: 'Required value: env var name must not be empty' });
      return;
    }
    if (!ENV_NAME.test(name)) {
      errors.push({
        field: `${field}.name`,
        message:
          `Invalid value: ${JSON.stringify(name)}: a valid environment variable name must consist of alphabetic ` +
          "characters, digits, '_', '-', or '.', and must not start with a digit",
      });
    }
    const first = seen.get(name);
    if (first !== undefined) {
      errors.push({
        field: `${field}.name`,
        message: `Duplicate value: ${JSON.stringify(name)} is already set by ${fieldPath}[${first}]`,
      });
    } else {
      seen.set(name, i);
    }
    if (entry.value !== undefined && entry.value !== '' && entry.valueFrom !== undefined) {
      errors.push({
        field: `${field}.valueFrom`,
        message: "Invalid value: may not be specified when 'value' is not empty",
      });
    }
  });
  return errors;
}

function copyEnvVar(entry: EnvVar): EnvVar {
  const copy: EnvVar = { name: entry.name };
  if (entry.value !== undefined) copy.value = entry.value;
  if (entry.valueFrom !== undefined) copy.valueFrom = structuredClone(entry.valueFrom);
  return copy;
}
