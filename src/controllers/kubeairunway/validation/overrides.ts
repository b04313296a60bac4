// spec.provider.overrides: the escape hatch deep-merged into a provider's upstream resource. Four checks:
//  - privileged pod fields (anywhere, at any depth, inside arrays too, whatever the case or the `-`/`_`
//    spelling of the key) are refused: a user allowed to create a ModelDeployment must not get a
//    privileged pod, or a service-account token, through the controller acting on their behalf;
//  - sizes (replica, GPU, CPU and memory counts, at any depth) may not exceed what spec itself may ask for;
//  - the keys that would change the upstream object's identity or status are refused at the top level;
//  - per provider, the overrides docs/kubeairunway.md documents are type-checked (wrong type → error) and any other key
//    is reported as a warning (docs/kubeairunway.md: "unknown keys trigger warnings; invalid types cause failure").
import { isQuantity } from '@modelplane/apimachinery/quantity';
import { findOversizedOverrides } from './override-limits.ts';
import type { ValidationIssue } from './types.ts';

export const OVERRIDES_PATH = 'spec.provider.overrides';

/** keys that grant host access, identity or privilege to a pod; refused wherever they appear */
export const PRIVILEGED_OVERRIDE_KEYS: ReadonlySet<string> = new Set([
  'securityContext',
  'privileged',
  'allowPrivilegeEscalation',
  'hostNetwork',
  'hostPID',
  'hostIPC',
  'hostPath',
  'hostPort',
  'serviceAccountName',
  'serviceAccount',
  'automountServiceAccountToken',
  'nodeName',
  'priorityClassName',
  'runtimeClassName',
  // a projected volume source that mounts a service-account token, around the automount ban
  'serviceAccountToken',
]);

/** the key as the denylist compares it: case and `-`/`_` do not matter (`HostNetwork`, `host_network`) */
function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[-_]/g, '');
}

const PRIVILEGED_NORMALIZED: ReadonlySet<string> = new Set([...PRIVILEGED_OVERRIDE_KEYS].map(normalizedKey));

export function isPrivilegedOverrideKey(key: string): boolean {
  return PRIVILEGED_NORMALIZED.has(normalizedKey(key));
}

/** top-level keys of the upstream object an override may not touch */
export const RESERVED_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata', 'status']);

export function privilegedFieldMessage(path: string, key: string): string {
  return `${path}: overriding "${key}" is not allowed for security reasons`;
}

/** The type language for documented overrides: small on purpose, it only has to describe docs/kubeairunway.md's tables. */
export type OverrideType =
  | 'string'
  | 'boolean'
  | 'nonNegativeInteger'
  | 'quantity'
  | 'stringMap'
  /** any JSON object: passed through to the upstream resource as is (still scanned for privileged keys) */
  | 'object'
  | { enum: readonly string[] }
  | { fields: Readonly<Record<string, OverrideType>> }
  | { arrayOf: OverrideType };

const resourcesOverride: OverrideType = { fields: { cpu: 'quantity', memory: 'quantity' } };

/** The overrides each provider documents. A provider missing here (a third-party one) gets no type checks. */
export const PROVIDER_OVERRIDES: Readonly<Record<string, OverrideType>> = {
  // "KAITO currently has no supported overrides": every key is unknown
  kaito: { fields: {} },
  dynamo: {
    fields: {
      routerMode: { enum: ['kv', 'round-robin', 'none'] },
      frontend: { fields: { replicas: 'nonNegativeInteger', resources: resourcesOverride } },
      epp: { fields: { replicas: 'nonNegativeInteger', image: 'string' } },
      // arbitrary DynamoGraphDeployment spec fields (e.g. services.VllmWorker.multinode.nodeCount)
      spec: 'object',
    },
  },
  kuberay: { fields: { head: { fields: { resources: resourcesOverride, rayStartParams: 'stringMap' } } } },
  aim: {
    fields: {
      runtimeConfigName: 'string',
      routing: 'object',
      storage: 'object',
      imagePullSecrets: { arrayOf: { fields: { name: 'string' } } },
    },
  },
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (isPlainObject(v)) return 'an object';
  return typeof v === 'string' ? `"${v}"` : String(v);
}

/** Every privileged key anywhere under `value`, as an error naming its full path. */
export function findPrivilegedOverrides(
  value: unknown,
  path = OVERRIDES_PATH,
  out: ValidationIssue[] = [],
): ValidationIssue[] {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findPrivilegedOverrides(value[i], `${path}[${i}]`, out);
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childPath = `${path}.${key}`;
      if (isPrivilegedOverrideKey(key)) out.push({ field: childPath, message: privilegedFieldMessage(childPath, key) });
      else findPrivilegedOverrides(child, childPath, out);
    }
  }
  return out;
}

function typeError(path: string, expected: string, got: unknown): ValidationIssue {
  return { field: path, message: `${path}: must be ${expected}, got ${describe(got)}` };
}

function checkType(
  type: OverrideType,
  value: unknown,
  path: string,
  provider: string,
  errors: ValidationIssue[],
  warnings: string[],
): void {
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof value !== 'string') errors.push(typeError(path, 'a string', value));
        return;
      case 'boolean':
        if (typeof value !== 'boolean') errors.push(typeError(path, 'true or false', value));
        return;
      case 'nonNegativeInteger':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
          errors.push(typeError(path, 'an integer >= 0', value));
        return;
      case 'quantity':
        if (
          !(
            (typeof value === 'number' && Number.isFinite(value) && value >= 0) ||
            (typeof value === 'string' && !value.startsWith('-') && isQuantity(value))
          )
        ) {
          errors.push(typeError(path, 'a resource quantity such as "4" or "8Gi"', value));
        }
        return;
      case 'stringMap':
        if (!isPlainObject(value)) errors.push(typeError(path, 'a map of strings', value));
        else
          for (const [k, v] of Object.entries(value))
            if (typeof v !== 'string') errors.push(typeError(`${path}.${k}`, 'a string', v));
        return;
      case 'object':
        if (!isPlainObject(value)) errors.push(typeError(path, 'an object', value));
        return;
    }
  }
  if ('enum' in type) {
    if (typeof value !== 'string' || !type.enum.includes(value))
      errors.push(typeError(path, `one of ${type.enum.map((e) => `"${e}"`).join(', ')}`, value));
    return;
  }
  if ('arrayOf' in type) {
    if (!Array.isArray(value)) errors.push(typeError(path, 'a list', value));
    else
      for (let i = 0; i < value.length; i++)
        checkType(type.arrayOf, value[i], `${path}[${i}]`, provider, errors, warnings);
    return;
  }
  if (!isPlainObject(value)) {
    errors.push(typeError(path, 'an object', value));
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    if (isPrivilegedOverrideKey(key)) continue; // already refused by findPrivilegedOverrides
    const childType = type.fields[key];
    if (childType === undefined)
      warnings.push(`${path}.${key}: unknown override for provider ${provider}; it is ignored`);
    else checkType(childType, child, `${path}.${key}`, provider, errors, warnings);
  }
}

export interface OverrideValidation {
  errors: ValidationIssue[];
  warnings: string[];
}

/**
 * All override checks for one provider. `provider` undefined (not chosen yet) checks only what holds for
 * every provider; the chosen provider's controller runs it again with its name.
 */
export function validateProviderOverrides(provider: string | undefined, overrides: unknown): OverrideValidation {
  const errors: ValidationIssue[] = [];
  const warnings: string[] = [];
  if (overrides === undefined || overrides === null) return { errors, warnings };
  if (!isPlainObject(overrides)) {
    errors.push(typeError(OVERRIDES_PATH, 'an object', overrides));
    return { errors, warnings };
  }
  for (const key of Object.keys(overrides)) {
    if (RESERVED_TOP_LEVEL_KEYS.has(key)) {
      errors.push({
        field: `${OVERRIDES_PATH}.${key}`,
        message: `${OVERRIDES_PATH}.${key}: overriding "${key}" is not allowed (the controller owns the resource's identity and status)`,
      });
    }
  }
  findPrivilegedOverrides(overrides, OVERRIDES_PATH, errors);
  findOversizedOverrides(overrides, OVERRIDES_PATH, errors);
  const type = provider ? PROVIDER_OVERRIDES[provider] : undefined;
  if (type) {
    const typed = Object.fromEntries(Object.entries(overrides).filter(([k]) => !RESERVED_TOP_LEVEL_KEYS.has(k)));
    checkType(type, typed, OVERRIDES_PATH, provider!, errors, warnings);
  }
  return { errors, warnings };
}
