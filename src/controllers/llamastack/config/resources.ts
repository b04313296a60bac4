// spec.resources → config.yaml `registered_resources` (docs/llamastack.md, "Merge rules"): additive over
// the base. A model without a provider goes to the first inference provider in list order; tools and
// shields go to the first tool_runtime / safety provider; a reference nothing can serve is an error.
// Base resources whose provider is no longer in the config are dropped (the server could not load them).
import type { LlamaStackDistributionSpec } from '../../../apis/llamastack/index.ts';
import { ConfigGenerationError } from './errors.ts';
import type { ProviderEntry } from './providers.ts';

type Obj = Record<string, unknown>;
type Resources = NonNullable<LlamaStackDistributionSpec['resources']>;

/** an id like `${env.VLLM_URL:+vllm}` only exists when its variable is set: never a default target */
const isConditional = (id: string) => id.includes('${');

function firstProvider(providers: Record<string, ProviderEntry[]>, api: string): string | undefined {
  return providers[api]?.find((p) => !isConditional(p.provider_id))?.provider_id;
}

function keepBase(list: unknown, idKey: string, replaced: Set<string>, known: Set<string>): Obj[] {
  if (!Array.isArray(list)) return [];
  return (list as Obj[]).filter((r) => {
    if (replaced.has(String(r[idKey]))) return false;
    const pid = r.provider_id;
    return typeof pid !== 'string' || isConditional(pid) || known.has(pid);
  });
}

function modelEntries(user: Resources, providers: Record<string, ProviderEntry[]>): Obj[] {
  const inference = new Set((providers.inference ?? []).map((p) => p.provider_id));
  return (user.models ?? []).map((m, i) => {
    const field = `spec.resources.models[${i}]`;
    const provider = m.provider ?? firstProvider(providers, 'inference');
    if (!provider)
      throw new ConfigGenerationError(
        'MissingProviderForResource',
        `${field} (${m.name}): there is no inference provider to serve it; add spec.providers.inference or set ${field}.provider`,
        field,
      );
    if (m.provider && !inference.has(m.provider)) {
      throw new ConfigGenerationError(
        'MissingProviderForResource',
        `${field}.provider: "${m.provider}" is not an inference provider of the generated config (known: ${[...inference].join(', ') || 'none'})`,
        `${field}.provider`,
      );
    }
    const metadata: Obj = {};
    if (m.contextLength !== undefined) metadata.context_length = m.contextLength;
    if (m.quantization !== undefined) metadata.quantization = m.quantization;
    return { model_id: m.name, provider_id: provider, model_type: m.modelType ?? 'llm', metadata };
  });
}

function attached(
  names: string[] | undefined,
  providers: Record<string, ProviderEntry[]>,
  api: string,
  what: 'tools' | 'shields',
  section: string,
): Obj[] {
  if (!names?.length) return [];
  const provider = firstProvider(providers, api);
  if (!provider)
    throw new ConfigGenerationError(
      'MissingProviderForResource',
      `spec.resources.${what}: ${names.join(', ')} need a ${api} provider; add spec.providers.${section} or use a distribution that has one`,
      `spec.resources.${what}`,
    );
  return names.map((n) =>
    what === 'tools' ? { toolgroup_id: n, provider_id: provider } : { shield_id: n, provider_id: provider },
  );
}

export function mergeResources(
  base: unknown,
  user: Resources | undefined,
  providers: Record<string, ProviderEntry[]>,
  dropped: readonly string[],
): Obj {
  const b: Obj = { ...((base && typeof base === 'object' ? base : {}) as Obj) };
  for (const key of dropped) delete b[key];
  const known = new Set(Object.values(providers).flatMap((list) => list.map((p) => p.provider_id)));
  const models = user ? modelEntries(user, providers) : [];
  const tools = attached(user?.tools, providers, 'tool_runtime', 'tools', 'toolRuntime');
  const shields = attached(user?.shields, providers, 'safety', 'shields', 'safety');
  const merge = (key: string, idKey: string, added: Obj[]) => {
    if (b[key] === undefined && added.length === 0) return;
    b[key] = [...keepBase(b[key], idKey, new Set(added.map((a) => String(a[idKey]))), known), ...added];
  };
  merge('models', 'model_id', models);
  merge('tool_groups', 'toolgroup_id', tools);
  merge('shields', 'shield_id', shields);
  return b;
}
