// The apiserver bench's resource (bench/apiserver.ts): a CustomResourceDefinition with a real structural
// schema and CEL rules, and objects of an exact JSON size that it validates.

export const GROUP = 'bench.modelplane.dev';
export const PLURAL = 'benchobjects';
const KIND = 'BenchObject';

export function crd(): unknown {
  const str = (max: number, extra: Record<string, unknown> = {}) => ({ type: 'string', maxLength: max, ...extra });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: PLURAL, singular: 'benchobject', kind: KIND, listKind: `${KIND}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['model', 'replicas'],
                  'x-kubernetes-validations': [
                    {
                      rule: 'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas',
                      message: 'replicas must be within [minReplicas, maxReplicas]',
                    },
                    {
                      rule: "self.engine != 'sglang' || self.env.size() <= 16",
                      message: 'sglang supports at most 16 env entries',
                    },
                  ],
                  properties: {
                    model: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: str(63, { pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }),
                        revision: str(64),
                        uri: str(256, { format: 'uri' }),
                      },
                    },
                    engine: { type: 'string', enum: ['vllm', 'sglang', 'tgi'], default: 'vllm' },
                    replicas: { type: 'integer', minimum: 0, maximum: 100 },
                    minReplicas: { type: 'integer', minimum: 0, default: 0 },
                    maxReplicas: { type: 'integer', minimum: 1, default: 10 },
                    resources: {
                      type: 'object',
                      properties: {
                        gpu: { type: 'integer', minimum: 0, maximum: 8 },
                        memory: {
                          'x-kubernetes-int-or-string': true,
                          anyOf: [{ type: 'integer' }, { type: 'string' }],
                        },
                      },
                    },
                    env: {
                      type: 'array',
                      maxItems: 64,
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { type: 'object', required: ['name'], properties: { name: str(128), value: str(1024) } },
                    },
                    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: str(64) },
                    description: str(4096),
                  },
                },
                status: {
                  type: 'object',
                  properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** a valid object whose JSON body is exactly `size` bytes (padded via spec.description) */
function buildObject(name: string, size: number): string {
  const obj = {
    apiVersion: `${GROUP}/v1`,
    kind: KIND,
    metadata: {
      name,
      labels: { app: 'bench', 'bench.modelplane.dev/shard': String(name.length % 7) },
      annotations: { 'bench.modelplane.dev/owner': 'apiserver-bench' },
    },
    spec: {
      model: { name: 'llama-3-8b-instruct', revision: 'main', uri: 'hf://meta-llama/Meta-Llama-3-8B-Instruct' },
      engine: 'vllm',
      replicas: 2,
      minReplicas: 1,
      maxReplicas: 4,
      resources: { gpu: 1, memory: '24Gi' },
      env: Array.from({ length: 8 }, (_, i) => ({ name: `VLLM_OPTION_${i}`, value: `value-${i}-${'x'.repeat(20)}` })),
      tags: ['llm', 'chat', 'bench'],
      description: '',
    },
  };
  const bare = JSON.stringify(obj).length;
  obj.spec.description = 'd'.repeat(Math.max(0, size - bare));
  return JSON.stringify(obj);
}

// The client builds each body from a cached template: JSON.stringify of a 2 KiB object per request cost the
// client ~20 % of its CPU, and the client shares the machine's two cores with the server it measures.
const templates = new Map<string, [string, string]>();
export function benchObject(name: string, size: number): string {
  const key = `${size}:${name.length}`;
  let t = templates.get(key);
  if (!t) {
    const placeholder = '#'.repeat(name.length);
    const body = buildObject(placeholder, size);
    const at = body.indexOf(placeholder);
    t = [body.slice(0, at), body.slice(at + placeholder.length)];
    templates.set(key, t);
  }
  return t[0] + name + t[1];
}
