// The config generator: a pure function from a LlamaStackDistribution spec, the distribution's base
// config and the endpoints resolved from references to config.yaml, the secret-backed environment and a
// content hash (docs/llamastack.md, "Merge rules"). Same input → byte-identical YAML and hash.
import {
  type LlamaStackDistributionSpec,
  PROVIDER_SECTIONS,
  type ProviderSection,
  SECTION_API,
} from '../../../apis/llamastack/index.ts';
import { ConfigGenerationError } from './errors.ts';
import { expandProvider, type ProviderEntry, type ResolvedEndpoints } from './providers.ts';
import { mergeResources } from './resources.ts';
import { SecretCollector, type SecretRefUse } from './secrets.ts';
import { SCHEMA_VERSIONS, serverConfigError } from './server-schema.ts';
import { mergeStorage } from './storage.ts';
import { deterministicYaml, sha256Hex } from './yaml.ts';

/** config.yaml versions this operator reads and writes: the current one (n) and the one before (n-1) */
export const SUPPORTED_CONFIG_VERSIONS: readonly number[] = [2, 1];
export const DEFAULT_PORT = 8321;
/** the API server's limit on a ConfigMap: the bytes of every key and value together (1 MiB) */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;
/** the key config.yaml is stored under in the generated ConfigMap */
export const CONFIG_KEY = 'config.yaml';

/** refuses a config the generated ConfigMap could not hold: the write would fail on every retry */
function checkConfigMapSize(yaml: string): void {
  const bytes = Buffer.byteLength(CONFIG_KEY) + Buffer.byteLength(yaml);
  if (bytes > CONFIGMAP_MAX_BYTES)
    throw new ConfigGenerationError(
      'ConfigTooLarge',
      `the generated config.yaml is ${bytes} bytes with its key, over the ${CONFIGMAP_MAX_BYTES}-byte limit of a ConfigMap: shorten spec.providers[*].settings or spec.resources, or put the config in spec.overrideConfig`,
      'spec',
    );
}

/** registered resources and top-level sections that belong to one API, dropped when it is disabled */
const API_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  inference: ['models'],
  safety: ['shields'],
  vector_io: ['vector_dbs', 'vector_stores'],
  tool_runtime: ['tool_groups'],
  datasetio: ['datasets'],
  scoring: ['scoring_fns'],
  eval: ['benchmarks'],
};
const API_TOP_LEVEL: Readonly<Record<string, readonly string[]>> = { vector_io: ['vector_stores'], safety: ['safety'] };

export interface GenerateInput {
  spec: LlamaStackDistributionSpec;
  /** distro_name: the distribution's name, or the image when the spec names one */
  distroName: string;
  base: Readonly<Record<string, unknown>>;
  /** provider id → endpoint, for providers that name a ModelDeployment or AIMService */
  endpoints?: ResolvedEndpoints;
}

export interface GeneratedConfig {
  yaml: string;
  /** sha256 of `yaml`, hex */
  hash: string;
  /** every Secret reference, as `${env.NAME}` in the YAML and NAME ← secretKeyRef in the container */
  secrets: SecretRefUse[];
  /** every provider of the generated config, by API, in config order (for status) */
  providers: Array<{ api: string; provider_id: string; provider_type: string }>;
  providerCount: number;
  resourceCount: number;
  configVersion: number;
  /** generated providers an external provider of the same id replaced, as `api/id` */
  replacedByExternal: string[];
}

export function configVersionOf(base: Readonly<Record<string, unknown>>, distroName: string): number {
  const v = base.version;
  if (v === undefined || v === null)
    throw new ConfigGenerationError(
      'ConfigGenerationFailed',
      `the base config of ${distroName} has no "version" field: it is not a Llama Stack config.yaml`,
    );
  const n = typeof v === 'number' ? v : Number(v);
  if (!SUPPORTED_CONFIG_VERSIONS.includes(n)) {
    throw new ConfigGenerationError(
      'UnsupportedConfigVersion',
      `Unsupported config.yaml version ${String(v)}. Supported versions: ${SUPPORTED_CONFIG_VERSIONS.join(', ')}`,
    );
  }
  return n;
}

function mergeProviders(
  base: unknown,
  spec: LlamaStackDistributionSpec,
  secrets: SecretCollector,
  endpoints: ResolvedEndpoints,
  disabled: Set<string>,
): Record<string, ProviderEntry[]> {
  const out: Record<string, ProviderEntry[]> = {
    ...((base && typeof base === 'object' ? base : {}) as Record<string, ProviderEntry[]>),
  };
  for (const section of PROVIDER_SECTIONS) {
    const list = spec.providers?.[section as ProviderSection];
    if (list) out[SECTION_API[section]] = list.map((p, i) => expandProvider(p, section, i, secrets, endpoints));
  }
  for (const api of disabled) delete out[api];
  return out;
}

function mergeApis(base: unknown, spec: LlamaStackDistributionSpec, disabled: Set<string>): string[] {
  const apis = Array.isArray(base) ? base.map(String) : [];
  for (const section of PROVIDER_SECTIONS)
    if (spec.providers?.[section] && !apis.includes(SECTION_API[section])) apis.push(SECTION_API[section]);
  return apis.filter((a) => !disabled.has(a));
}

const countLists = (o: unknown) =>
  o && typeof o === 'object' ? Object.values(o).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0) : 0;

/** what the targeted server (Llama Stack 0.7.3) refuses to start with, refused here with the reason */
function checkServerSupports(spec: LlamaStackDistributionSpec): void {
  const { kv } = spec.storage ?? {};
  if (kv?.type === 'redis')
    throw new ConfigGenerationError(
      'ConfigGenerationFailed',
      "spec.storage.kv: Llama Stack 0.7.3's redis backend fails every request after start (its connection is opened on the start-up event loop, closed before the server serves: RuntimeError: Event loop is closed), and it has no password field: keep kv on sqlite (the default), or give the whole config in spec.overrideConfig",
      'spec.storage.kv.type',
    );
  if (spec.providers?.telemetry !== undefined)
    throw new ConfigGenerationError(
      'ConfigGenerationFailed',
      'spec.providers.telemetry: Llama Stack 0.7.3 has no telemetry API, and a config that names one makes the server exit at start: remove spec.providers.telemetry; the server exports traces and metrics with OpenTelemetry (set OTEL_EXPORTER_OTLP_ENDPOINT in spec.workload.overrides.env)',
      'spec.providers.telemetry',
    );
}

/**
 * spec.externalProviders, merged after generation (spec 001 of the published operator): each is appended
 * to its API's providers (and the API turned on), replacing a generated provider of the same id; returns
 * the ids it replaced, which the status reports.
 */
function mergeExternalProviders(
  out: Record<string, unknown>,
  external: LlamaStackDistributionSpec['externalProviders'],
): string[] {
  const replaced: string[] = [];
  const providers = out.providers as Record<string, ProviderEntry[]>;
  const apis = out.apis as string[];
  for (const [api, list] of Object.entries(external ?? {})) {
    for (const p of list ?? []) {
      const entry: ProviderEntry = {
        provider_id: p.providerId,
        provider_type: p.providerType,
        ...(p.module ? { module: p.module } : {}),
        config: { ...(p.config ?? {}) },
      };
      const existing = (providers[api] ?? []).filter((e) => e.provider_id !== p.providerId);
      if (existing.length !== (providers[api] ?? []).length) replaced.push(`${api}/${p.providerId}`);
      providers[api] = [...existing, entry];
      if (!apis.includes(api)) apis.push(api);
    }
  }
  return replaced;
}

export function generateConfig(input: GenerateInput): GeneratedConfig {
  const { spec, base, distroName } = input;
  checkServerSupports(spec);
  const configVersion = configVersionOf(base, distroName);
  const secrets = new SecretCollector();
  const disabled = new Set(spec.disabled ?? []);
  const providers = mergeProviders(base.providers, spec, secrets, input.endpoints ?? {}, disabled);
  const out: Record<string, unknown> = { ...base };
  // version 1 configs name the distribution `image_name`
  out[configVersion === 1 ? 'image_name' : 'distro_name'] = distroName;
  out.apis = mergeApis(base.apis, spec, disabled);
  out.providers = providers;
  const replaced = mergeExternalProviders(out, spec.externalProviders);
  for (const api of disabled) for (const key of API_TOP_LEVEL[api] ?? []) delete out[key];
  const dropped = [...disabled].flatMap((api) => API_RESOURCES[api] ?? []);
  out.registered_resources = mergeResources(base.registered_resources, spec.resources, providers, dropped);
  const storage = mergeStorage(base.storage, spec.storage, secrets);
  if (storage !== undefined) out.storage = storage;
  const server = (base.server && typeof base.server === 'object' ? base.server : {}) as Record<string, unknown>;
  out.server = { ...server, port: spec.networking?.port ?? server.port ?? DEFAULT_PORT };
  const schemaError = serverConfigError(out);
  if (schemaError)
    throw new ConfigGenerationError(
      'ConfigSchemaInvalid',
      `the generated config.yaml is not one Llama Stack ${SCHEMA_VERSIONS[0]} accepts: ${schemaError} (check the spec field that sets it, usually a provider's settings)`,
    );
  const yaml = deterministicYaml(out);
  checkConfigMapSize(yaml);
  return {
    yaml,
    hash: sha256Hex(yaml),
    secrets: secrets.list(),
    providers: Object.entries(providers).flatMap(([api, list]) =>
      (Array.isArray(list) ? list : []).map((p) => ({
        api,
        provider_id: String(p.provider_id),
        provider_type: String(p.provider_type),
      })),
    ),
    providerCount: countLists(providers),
    resourceCount: countLists(out.registered_resources),
    configVersion,
    replacedByExternal: replaced,
  };
}

/** whether the spec declares anything to generate from (otherwise an image runs its own config) */
export function hasDeclarativeConfig(spec: LlamaStackDistributionSpec): boolean {
  return (
    spec.providers !== undefined ||
    spec.resources !== undefined ||
    spec.storage !== undefined ||
    spec.disabled !== undefined
  );
}
