// A simulated OCI registry for `modelplane dev`: a handful of AIM-like model images with the labels a real
// AIM image carries (the recommended deployments among them), answering the ImageRegistry interface. The
// simulated kubelet reads the same catalogue to print what the images print: the dry-run profile JSON of a
// discovery Job, the size of a model source, the progress of a download.
import { type ImageRegistry, RegistryError } from '@modelplane/runtime/registry';

export interface SimModelImage {
  repository: string;
  tags: string[];
  canonicalName: string;
  /** bytes of the model weights */
  sizeBytes: number;
  recommended: Array<{ gpuModel: string; gpuCount: number; precision: string; metric: string; profileId?: string }>;
  /** pulling it needs credentials: inspection fails with an authentication error */
  private?: boolean;
}

export const SIM_REGISTRY_HOST = 'docker.io';
const GB = 1_000_000_000;

export const SIM_MODEL_IMAGES: readonly SimModelImage[] = Object.freeze([
  {
    repository: 'amdenterpriseai/aim-qwen-qwen3-32b',
    tags: ['0.8.4', '0.8.5'],
    canonicalName: 'Qwen/Qwen3-32B',
    sizeBytes: 65.5 * GB,
    recommended: [
      { gpuModel: 'MI300X', gpuCount: 1, precision: 'fp8', metric: 'latency' },
      { gpuModel: 'MI300X', gpuCount: 1, precision: 'fp8', metric: 'throughput' },
    ],
  },
  {
    repository: 'amdenterpriseai/aim-qwen-qwen3-8b',
    tags: ['0.8.5'],
    canonicalName: 'Qwen/Qwen3-8B',
    sizeBytes: 16.4 * GB,
    recommended: [{ gpuModel: 'MI300X', gpuCount: 1, precision: 'fp16', metric: 'latency' }],
  },
  {
    repository: 'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct',
    tags: ['0.8.3', '0.8.5', 'latest'],
    canonicalName: 'meta-llama/Llama-3.1-8B-Instruct',
    sizeBytes: 16.1 * GB,
    recommended: [
      { gpuModel: 'MI300X', gpuCount: 1, precision: 'fp8', metric: 'latency' },
      { gpuModel: 'MI355X', gpuCount: 1, precision: 'fp4', metric: 'latency' },
    ],
  },
  {
    repository: 'amdenterpriseai/aim-mistralai-mistral-7b-instruct-v0-3',
    tags: ['0.8.2'],
    canonicalName: 'mistralai/Mistral-7B-Instruct-v0.3',
    sizeBytes: 14.5 * GB,
    recommended: [
      { gpuModel: 'MI300X', gpuCount: 1, precision: 'fp16', metric: 'throughput', profileId: 'mi300x-fp16-throughput' },
    ],
  },
  {
    repository: 'amdenterpriseai/aim-private-model',
    tags: ['0.9.0'],
    canonicalName: 'example/private',
    sizeBytes: 2 * GB,
    recommended: [],
    private: true,
  },
]);

/** `[docker.io/]repo[:tag]` → the catalogue entry and tag */
export function findSimImage(image: string): { entry: SimModelImage; tag: string } | undefined {
  const noDigest = image.split('@')[0]!;
  const colon = noDigest.lastIndexOf(':');
  const hasTag = colon > noDigest.lastIndexOf('/');
  let repo = hasTag ? noDigest.slice(0, colon) : noDigest;
  const tag = hasTag ? noDigest.slice(colon + 1) : 'latest';
  for (const host of [`${SIM_REGISTRY_HOST}/`, 'registry-1.docker.io/', 'index.docker.io/'])
    if (repo.startsWith(host)) repo = repo.slice(host.length);
  const entry = SIM_MODEL_IMAGES.find((e) => e.repository === repo);
  return entry?.tags.includes(tag) ? { entry, tag } : undefined;
}

/** the model source (Hugging Face) behind an image, as the dry-run reports it */
export function simModelSource(image: string): { modelId: string; sourceUri: string; sizeBytes: number } | undefined {
  const found = findSimImage(image);
  if (!found) return undefined;
  return {
    modelId: found.entry.canonicalName,
    sourceUri: `hf://${found.entry.canonicalName}`,
    sizeBytes: Math.round(found.entry.sizeBytes),
  };
}

/** the size of an hf:// source the catalogue knows; others get a stable size from their name */
export function simSourceSize(sourceUri: string): number {
  const known = SIM_MODEL_IMAGES.find((e) => `hf://${e.canonicalName}` === sourceUri);
  if (known) return Math.round(known.sizeBytes);
  let h = 0;
  for (const ch of sourceUri) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return (2 + (h % 30)) * GB;
}

/** the labels an image of the catalogue carries (its config blob's config.Labels) */
export function simImageLabels(entry: SimModelImage, tag: string): Record<string, string> {
  return {
    'org.opencontainers.image.title': `AIM ${entry.canonicalName}`,
    'org.opencontainers.image.vendor': 'AMD',
    'org.opencontainers.image.version': tag,
    'org.opencontainers.image.licenses': 'Apache-2.0',
    'com.amd.aim.model.canonicalName': entry.canonicalName,
    'com.amd.aim.model.source': `https://huggingface.co/${entry.canonicalName}`,
    'com.amd.aim.title': entry.canonicalName.split('/')[1] ?? entry.canonicalName,
    'com.amd.aim.model.tags': 'text-generation,chat',
    'com.amd.aim.model.versions': entry.tags.join(','),
    'com.amd.aim.hfToken.required': 'false',
    'com.amd.aim.model.recommendedDeployments': JSON.stringify(entry.recommended),
  };
}

/** the label a Llama Stack distribution image carries its base config.yaml in (base64) */
export const LLAMA_STACK_CONFIG_LABEL = 'io.llamastack.config.base64';

/** a small base config.yaml (one vLLM provider, sqlite storage) for the labelled example image */
const CUSTOM_BASE_CONFIG = `version: 2
distro_name: custom-vllm
apis: [inference]
providers:
  inference:
  - provider_id: vllm
    provider_type: remote::vllm
    config:
      base_url: \${env.VLLM_URL:=http://localhost:8000/v1}
storage:
  backends:
    kv_default: {type: kv_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=/.llama}/kvstore.db"}
    sql_default: {type: sql_sqlite, db_path: "\${env.SQLITE_STORE_DIR:=/.llama}/sql_store.db"}
  stores:
    metadata: {namespace: registry, backend: kv_default}
    inference: {table_name: inference_store, backend: sql_default}
    conversations: {table_name: openai_conversations, backend: sql_default}
    prompts: {namespace: prompts, backend: kv_default}
registered_resources: {models: [], shields: [], vector_dbs: [], tool_groups: []}
server: {port: 8321}
`;

const llamaStackLabels = (title: string): Record<string, string> => ({
  'org.opencontainers.image.title': title,
  'org.opencontainers.image.version': '0.7.3',
});

/**
 * The Llama Stack images `modelplane dev` resolves: the published distributions (which carry no base-config
 * label, like the real ones) and an example custom image whose label holds its base config.
 */
export const SIM_LLAMA_STACK_IMAGES: ReadonlyArray<{
  repository: string;
  tags: Record<string, Record<string, string>>;
}> = Object.freeze([
  ...['starter', 'remote-vllm', 'meta-reference-gpu', 'postgres-demo'].map((d) => ({
    repository: `llamastack/distribution-${d}`,
    tags: { '0.7.3': llamaStackLabels(`Llama Stack ${d}`) },
  })),
  {
    repository: 'modelplane/llama-stack-custom',
    tags: {
      '0.7.3': {
        ...llamaStackLabels('Llama Stack with its base config in a label'),
        [LLAMA_STACK_CONFIG_LABEL]: Buffer.from(CUSTOM_BASE_CONFIG).toString('base64'),
      },
    },
  },
]);

/** the simulated registry: docker.io with the catalogue above */
export class SimRegistry implements ImageRegistry {
  async imageLabels(image: string): Promise<Record<string, string>> {
    const found = findSimImage(image);
    if (!found)
      throw new RegistryError(
        'NotFound',
        `image ${image} not found in registry ${SIM_REGISTRY_HOST} (manifest unknown)`,
      );
    if (found.entry.private)
      throw new RegistryError(
        'Auth',
        `pulling ${image}: unauthorized: authentication required (add a pull secret with access)`,
      );
    return simImageLabels(found.entry, found.tag);
  }

  async listRepositories(registry: string): Promise<string[]> {
    this.checkHost(registry);
    return SIM_MODEL_IMAGES.map((e) => e.repository);
  }

  async listTags(registry: string, repository: string): Promise<string[]> {
    this.checkHost(registry);
    const entry = SIM_MODEL_IMAGES.find((e) => e.repository === repository);
    if (!entry) throw new RegistryError('NotFound', `repository ${repository} not found in ${registry}`);
    return [...entry.tags];
  }

  private checkHost(registry: string): void {
    if (registry !== SIM_REGISTRY_HOST && registry !== 'registry-1.docker.io')
      throw new RegistryError(
        'Unavailable',
        `registry ${registry} is not reachable from the simulated cluster (only ${SIM_REGISTRY_HOST} is)`,
      );
  }
}
