// spec.providers → config.yaml provider entries (docs/llamastack.md, "Providers"). The fields the real
// server reads: `endpoint` becomes `base_url`; `apiKey` becomes `api_token` for remote::vllm and `api_key`
// otherwise; each secretRefs key becomes a config key of that name. `settings` are copied as written,
// never scanned; a key set twice (settings and a secret or the endpoint) is an error, not a silent choice.
import { type ProviderConfig, type ProviderSection, SECTION_API } from '../../../apis/llamastack/index.ts';
import { ConfigGenerationError } from './errors.ts';
import { type SecretCollector, secretEnvName } from './secrets.ts';
import { providerConfigFields } from './server-schema.ts';

/**
 * The config key `endpoint` and `apiKey` go to: the one the server's provider has (from its exported
 * schema: `base_url` for vLLM, Ollama, OpenAI; `url` for Chroma, Qdrant, …), else the common name.
 */
function configKey(section: ProviderSection, type: string, candidates: readonly string[]): string {
  const fields = providerConfigFields(SECTION_API[section], type);
  return candidates.find((c) => fields?.includes(c)) ?? candidates[0]!;
}

export interface ProviderEntry {
  provider_id: string;
  provider_type: string;
  config: Record<string, unknown>;
}

/** `vllm` → `remote::vllm`; a type that already names its kind (`inline::faiss`) is kept */
export const providerType = (provider: string): string => (provider.includes('::') ? provider : `remote::${provider}`);
/** the id a provider gets: its `id`, or its `provider` when it has none */
export const providerId = (p: Pick<ProviderConfig, 'id' | 'provider'>): string => p.id ?? p.provider;

const API_KEY_FIELD: Readonly<Record<string, string>> = { 'remote::vllm': 'api_token' };

/** the endpoint a provider names through modelDeploymentRef/aimServiceRef, resolved by the controller */
export type ResolvedEndpoints = Readonly<Record<string, string>>;

export function refOf(p: ProviderConfig): { kind: 'ModelDeployment' | 'AIMService'; name: string } | undefined {
  if (p.modelDeploymentRef) return { kind: 'ModelDeployment', name: p.modelDeploymentRef.name };
  if (p.aimServiceRef) return { kind: 'AIMService', name: p.aimServiceRef.name };
  return undefined;
}

export function expandProvider(
  p: ProviderConfig,
  section: ProviderSection,
  index: number,
  secrets: SecretCollector,
  endpoints: ResolvedEndpoints,
): ProviderEntry {
  const id = providerId(p);
  const type = providerType(p.provider);
  const field = `spec.providers.${section}[${index}]`;
  const config: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  const put = (key: string, value: unknown, from: string) => {
    const first = owner.get(key);
    if (first)
      throw new ConfigGenerationError(
        'ConfigGenerationFailed',
        `${from} sets config key "${key}", which ${first} also sets: set it in one place only`,
        from,
      );
    owner.set(key, from);
    config[key] = value;
  };
  for (const [k, v] of Object.entries(p.settings ?? {})) put(k, v, `${field}.settings.${k}`);
  const ref = refOf(p);
  const endpoint = p.endpoint ?? (ref ? endpoints[id] : undefined);
  if (ref && endpoint === undefined) {
    const refField = `${field}.${ref.kind === 'ModelDeployment' ? 'modelDeploymentRef' : 'aimServiceRef'}`;
    throw new ConfigGenerationError(
      'ConfigGenerationFailed',
      `${refField}: ${ref.kind} ${ref.name} has no endpoint yet; the config is generated once it reports one`,
      refField,
    );
  }
  if (endpoint !== undefined)
    put(
      configKey(section, type, ['base_url', 'url']),
      endpoint,
      `${field}.${p.endpoint !== undefined ? 'endpoint' : ref?.kind === 'AIMService' ? 'aimServiceRef' : 'modelDeploymentRef'}`,
    );
  if (p.apiKey) {
    const from = `${field}.apiKey`;
    put(
      API_KEY_FIELD[type] ?? configKey(section, type, ['api_key', 'api_token']),
      secrets.add({ env: secretEnvName(id, 'apiKey'), secret: p.apiKey.name, key: p.apiKey.key, field: from }),
      from,
    );
  }
  for (const k of Object.keys(p.secretRefs ?? {}).sort()) {
    const ref = p.secretRefs![k]!;
    const from = `${field}.secretRefs.${k}`;
    put(k, secrets.add({ env: secretEnvName(id, k), secret: ref.name, key: ref.key, field: from }), from);
  }
  return { provider_id: id, provider_type: type, config };
}
