// JSONPath execution throughput: `npm run bench -- jsonpath`. Parses each template once, then renders it repeatedly
// against an InferenceService-sized object. The last line is the headline number (simple template).
import { executeJsonPath, parseJsonPath } from '../src/jsonpath/index.ts';

const object = {
  apiVersion: 'serving.modelplane.io/v1alpha1',
  kind: 'InferenceService',
  metadata: {
    name: 'llama-3-8b',
    namespace: 'models',
    labels: { app: 'llama', 'org.example/team': 'blue' },
    annotations: { 'modelplane.io/path-template': '/{.metadata.namespace}/{.metadata.name}' },
  },
  spec: { model: { uri: 'hf://meta-llama/Llama-3-8B', format: 'safetensors' }, replicas: 2 },
  status: {
    conditions: [
      { type: 'Accepted', status: 'True' },
      { type: 'Ready', status: 'True', reason: 'Serving' },
    ],
  },
};

// smoke mode (MODELPLANE_BENCH_SMOKE=1, `npm run bench:smoke`): a few iterations, to prove the bench still runs
const SMOKE = process.env.MODELPLANE_BENCH_SMOKE === '1';

function measure(source: string): number {
  const template = parseJsonPath(source);
  let sink = 0;
  // Warm up so the JIT has optimised the evaluator before timing.
  for (let i = 0; i < (SMOKE ? 100 : 50_000); i++) sink += executeJsonPath(template, object).length;
  const durationMs = SMOKE ? 10 : 1000;
  let executions = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    for (let i = 0; i < 1000; i++) sink += executeJsonPath(template, object).length;
    executions += 1000;
    elapsed = performance.now() - start;
  }
  if (sink === 0) throw new Error('benchmark produced no output');
  return Math.round((executions * 1000) / elapsed);
}

const filter = '{.status.conditions[?(@.type=="Ready")].status}';
console.log(`jsonpath: ${measure(filter)} executions/s (template=${filter})`);
const simple = '{.metadata.namespace}/{.metadata.name}';
console.log(`jsonpath: ${measure(simple)} executions/s (template=${simple})`);
