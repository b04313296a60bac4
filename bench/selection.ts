// Provider selection throughput: the four shipped InferenceProviderConfigs (ready, fresh heartbeats) and a
// rotating mix of fresh ModelDeployment specs (CPU, 1 GPU, 2 GPUs, sglang, disaggregated, AMD), so every
// selection converts its spec to CEL and evaluates the candidates' rules; only the compiled rules and the
// prepared provider configs are reused, as in the core controller. Last line:
// `selection: <N> selections/s (providers=4, rules=8, …)`.
import {
  BUILTIN_PROVIDERS,
  type InferenceProviderConfig,
  type ModelDeployment,
} from '../src/apis/kubeairunway/index.ts';
import { defaultProviderConfig, selectProvider } from '../src/controllers/kubeairunway/selection/index.ts';
import { smokeOr } from './lib/smoke.ts';

const now = Date.now();
const providers: InferenceProviderConfig[] = BUILTIN_PROVIDERS.map((name) => ({
  ...defaultProviderConfig(name),
  status: { ready: true, version: `${name}-provider:bench`, lastHeartbeat: new Date(now - 10_000).toISOString() },
}));
const rules = providers.reduce((n, p) => n + (p.spec.selectionRules?.length ?? 0), 0);

const SPECS: Array<[expected: string, spec: ModelDeployment['spec']]> = [
  [
    'kaito',
    {
      model: { id: 'm', source: 'huggingface' },
      engine: { type: 'llamacpp' },
      resources: { cpu: '8', memory: '16Gi' },
      image: 'runner:1',
    },
  ],
  [
    'dynamo',
    {
      model: { id: 'm' },
      engine: { type: 'vllm', enablePrefixCaching: true },
      serving: { mode: 'aggregated' },
      scaling: { replicas: 1 },
      resources: { gpu: { count: 1, type: 'nvidia.com/gpu' } },
    },
  ],
  [
    'kuberay',
    {
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'aggregated' },
      resources: { gpu: { count: 2, type: 'nvidia.com/gpu' }, memory: '64Gi' },
    },
  ],
  [
    'dynamo',
    { model: { id: 'm' }, engine: { type: 'sglang' }, resources: { gpu: { count: 1, type: 'nvidia.com/gpu' } } },
  ],
  [
    'dynamo',
    {
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { replicas: 2, gpu: { count: 4 } }, decode: { replicas: 4, gpu: { count: 2 } } },
    },
  ],
  ['aim', { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } }],
];

// a fresh object per selection, as each reconcile reads a new one from the cache
const makeMd = (i: number): Pick<ModelDeployment, 'spec' | 'status'> => ({
  spec: structuredClone(SPECS[i % SPECS.length]![1]),
});
const POOL = Array.from({ length: 6000 }, (_, i) => makeMd(i));

for (let i = 0; i < SPECS.length; i++) {
  const r = selectProvider(POOL[i]!, providers, { now });
  if (r.provider !== SPECS[i]![0] || r.skippedRules.length)
    throw new Error(`spec ${i}: selected ${r.provider} (${r.message}), expected ${SPECS[i]![0]}`);
}

function measure(millis: number): number {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < millis) {
    for (let i = 0; i < POOL.length; i++) selectProvider(POOL[i]!, providers, { now });
    n += POOL.length;
    elapsed = performance.now() - start;
  }
  return (n / elapsed) * 1000;
}

measure(smokeOr(500, 10));
const rate = measure(smokeOr(2000, 20));
const fmt = (x: number) => Math.round(x).toLocaleString('en-US').replace(/,/g, '');
console.log(
  `selection: ${fmt(rate)} selections/s (providers=${providers.length}, rules=${rules}, specs=${SPECS.length})`,
);
