// The admission checks that need the API server (docs/llamastack.md, "Validation", layer 2): the
// distribution is known, referenced Secrets and ConfigMaps exist, provider entries carry no unknown
// fields, and models, tools and shields name providers the generated config will have. The same
// generator the controller runs decides the last one, with placeholder endpoints for references.

import type { ConfigMap } from '@modelplane/runtime/client';
import {
  type LlamaStackDistribution,
  normalizeV1Alpha2Spec,
  PROVIDER_SECTIONS,
  providerConfigSchema,
} from '../../apis/llamastack/index.ts';
import type { FieldError, ValidationOutcome } from '../../webhooks/index.ts';
import { mergeCaBundle } from './ca-bundle.ts';
import {
  CONFIG_KEY,
  ConfigGenerationError,
  DISTRIBUTIONS,
  embeddedBaseConfig,
  generateConfig,
  providerId,
  unknownDistributionMessage,
} from './config/index.ts';
import { referencedEndpoints } from './observe.ts';
import { overrideConfigProblem } from './plan.ts';
import { secretRefsOf } from './secret-refs.ts';

export interface ExistenceLookups {
  /** the Secret's data keys, or undefined when it does not exist */
  secretKeys(namespace: string, name: string): Promise<string[] | undefined>;
  configMapExists(namespace: string, name: string): Promise<boolean>;
  /** the ConfigMap (its data), or undefined when it does not exist; without it the CA bundle is only checked for existence */
  configMap?(namespace: string, name: string): Promise<ConfigMap | undefined>;
  /** distribution names the operator ConfigMap's image overrides add */
  overrideNames?: readonly string[];
}

const PROVIDER_FIELDS = new Set(Object.keys(providerConfigSchema.shape));

function unknownProviderFields(spec: LlamaStackDistribution['spec']): FieldError[] {
  const out: FieldError[] = [];
  for (const section of PROVIDER_SECTIONS) {
    (spec.providers?.[section] ?? []).forEach((p, i) => {
      for (const k of Object.keys(p)) {
        if (!PROVIDER_FIELDS.has(k))
          out.push({
            field: `spec.providers.${section}[${i}].${k}`,
            message: `spec.providers.${section}[${i}].${k}: unknown field; provider-specific options go under settings`,
          });
      }
    });
  }
  return out;
}

function generationErrors(cr: LlamaStackDistribution, spec: LlamaStackDistribution['spec']): FieldError[] {
  const base = spec.distribution.name ? embeddedBaseConfig(spec.distribution.name) : undefined;
  if (!base || spec.overrideConfig) return [];
  const endpoints = Object.fromEntries(
    referencedEndpoints({ ...cr, spec }).map((r) => [r.providerId, 'http://placeholder.invalid/v1']),
  );
  try {
    generateConfig({ spec, base, distroName: spec.distribution.name!, endpoints });
    return [];
  } catch (err) {
    if (!(err instanceof ConfigGenerationError)) throw err;
    return [{ field: err.field ?? 'spec', message: err.message }];
  }
}

export async function validateLlamaStack(
  cr: LlamaStackDistribution,
  lookups: ExistenceLookups,
): Promise<ValidationOutcome> {
  const ns = cr.metadata.namespace ?? '';
  const spec = normalizeV1Alpha2Spec(cr.spec);
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const name = spec.distribution?.name;
  const known = new Set([...Object.keys(DISTRIBUTIONS), ...(lookups.overrideNames ?? [])]);
  if (name && !known.has(name))
    errors.push({ field: 'spec.distribution.name', message: unknownDistributionMessage(name) });
  for (const r of secretRefsOf(spec)) {
    const keys = await lookups.secretKeys(ns, r.secret);
    if (!keys)
      errors.push({
        field: r.field,
        message: `Secret "${r.secret}" not found in namespace "${ns}". Referenced by: ${r.field}`,
      });
    else if (!keys.includes(r.key))
      errors.push({
        field: r.field,
        message: `Secret "${r.secret}" in namespace "${ns}" has no key "${r.key}". Referenced by: ${r.field}`,
      });
  }
  const ca = spec.networking?.tls?.caBundle;
  const override = spec.overrideConfig;
  if (override && lookups.configMap && (override.configMapNamespace ?? ns) === ns) {
    const text = (await lookups.configMap(ns, override.configMapName))?.data?.[CONFIG_KEY];
    const problem = text === undefined ? undefined : overrideConfigProblem(text);
    if (problem)
      errors.push({
        field: 'spec.overrideConfig',
        message: `spec.overrideConfig: "${CONFIG_KEY}" of ConfigMap ${ns}/${override.configMapName} ${problem}`,
      });
  }
  const configMaps: Array<[string, { configMapName: string; configMapNamespace?: string } | undefined]> = [
    ['spec.overrideConfig', spec.overrideConfig],
    ...(lookups.configMap ? [] : [['spec.networking.tls.caBundle', ca] as [string, typeof ca]]),
  ];
  if (ca && lookups.configMap) {
    // another namespace's ConfigMap is refused without being read
    const sameNamespace = (ca.configMapNamespace ?? ns) === ns;
    const merged = mergeCaBundle(ca, ns, sameNamespace ? await lookups.configMap(ns, ca.configMapName) : undefined);
    if (!merged.ok) errors.push({ field: merged.field, message: merged.message });
  }
  for (const [field, ref] of configMaps) {
    if (ref && !(await lookups.configMapExists(ref.configMapNamespace ?? ns, ref.configMapName))) {
      errors.push({
        field,
        message: `ConfigMap "${ref.configMapName}" not found in namespace "${ref.configMapNamespace ?? ns}". Referenced by: ${field}`,
      });
    }
  }
  errors.push(...unknownProviderFields(spec));
  if (errors.length === 0 && (!name || known.has(name))) errors.push(...generationErrors(cr, spec));
  const kv = spec.storage?.kv;
  if (kv && kv.type !== 'redis' && (kv.endpoint || kv.password))
    warnings.push('spec.storage.kv: endpoint and password are only used with type redis; they are ignored for sqlite');
  const ids = PROVIDER_SECTIONS.flatMap((s) => (spec.providers?.[s] ?? []).map(providerId));
  if (new Set(ids).size !== ids.length)
    errors.push({
      field: 'spec.providers',
      message: 'spec.providers: provider ids must be unique across all provider types',
    });
  return { errors, warnings };
}
