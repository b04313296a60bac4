// Config generation latency for the largest Llama Stack example (examples/llamastack/full-v1alpha2.yaml on
// the starter base): the pure generator from spec to config.yaml text and hash, as the controller runs it
// on every reconcile that needs a config. Last line: `configgen: <p99> ms p99 (median=…, runs=…, …)`.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseAllDocuments } from 'yaml';
import { type LlamaStackDistribution, normalizeV1Alpha2Spec } from '../src/apis/llamastack/index.ts';
import { embeddedBaseConfig, generateConfig } from '../src/controllers/llamastack/config/index.ts';
import { smokeOr } from './lib/smoke.ts';

const EXAMPLE = new URL('../examples/llamastack/full-v1alpha2.yaml', import.meta.url);
const cr = parseAllDocuments(readFileSync(EXAMPLE, 'utf8'))
  .map((d) => d.toJS() as LlamaStackDistribution)
  .find((o) => o?.kind === 'LlamaStackDistribution');
if (!cr) throw new Error(`${EXAMPLE.pathname} has no LlamaStackDistribution`);
const base = embeddedBaseConfig(cr.spec.distribution.name!)!;

// each run starts from a fresh copy of the spec, as a reconcile reads a new object from the cache
const run = () =>
  generateConfig({
    spec: normalizeV1Alpha2Spec(structuredClone(cr.spec)),
    base,
    distroName: cr.spec.distribution.name!,
  });
const first = run();

for (let i = 0; i < smokeOr(300, 3); i++) run();
const RUNS = smokeOr(3000, 30);
const times: number[] = [];
// CPU time of the same runs: on a shared, loaded machine the wall-clock tail is the scheduler's, not ours
const cpu: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const c = process.cpuUsage();
  const t = performance.now();
  run();
  times.push(performance.now() - t);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
}
const quantile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const f = (x: number) => x.toFixed(3);
console.log(
  `configgen: ${f(quantile(times, 0.99))} ms p99 (median=${f(quantile(times, 0.5))}, cpu-p99=${f(quantile(cpu, 0.99))}, max=${f(Math.max(...times))}, runs=${RUNS}, providers=${first.providerCount}, resources=${first.resourceCount}, bytes=${first.yaml.length}, load1=${loadavg()[0]!.toFixed(1)})`,
);
