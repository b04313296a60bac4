// CEL evaluation throughput: a pre-compiled 4-clause rule of the shape CRD validations and provider selection
// rules use, evaluated against a pre-converted object. Prints `cel: <N> evals/s (...)` as its last line.

import { compileCel, toCel } from '../src/cel/index.ts';

const RULE =
  "self.spec.engine.type in ['vllm', 'sglang'] && has(self.spec.resources) && " +
  "self.spec.resources.gpu.count > 0 && self.spec.labels['org.example/team'] == 'ml'";
const MACRO_RULE = "self.spec.containers.all(c, c.name.startsWith('srv') && c.port > 1024)";

const obj = {
  spec: {
    engine: { type: 'vllm' },
    resources: { gpu: { count: 2 } },
    labels: { 'org.example/team': 'ml' },
    containers: [
      { name: 'srv-a', port: 8000 },
      { name: 'srv-b', port: 8001 },
      { name: 'srv-c', port: 8002 },
    ],
  },
};

// smoke mode (MODELPLANE_BENCH_SMOKE=1, `npm run bench:smoke`): a few iterations, to prove the bench still runs
const SMOKE = process.env.MODELPLANE_BENCH_SMOKE === '1';
const BATCH = SMOKE ? 10 : 10_000;

function measure(run: () => unknown, fullMillis: number): number {
  const millis = SMOKE ? 5 : fullMillis;
  for (let i = 0; i < 2 * BATCH; i++) run();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < millis) {
    for (let i = 0; i < BATCH; i++) run();
    n += BATCH;
    elapsed = performance.now() - start;
  }
  return (n / elapsed) * 1000;
}

const self = toCel(obj);
const rule = compileCel(RULE);
const macro = compileCel(MACRO_RULE);
if (rule.evaluate({ self }) !== true || macro.evaluate({ self }) !== true)
  throw new Error('benchmark rules must evaluate to true');

const macroRate = measure(() => macro.evaluate({ self }), 1000);
const convertRate = measure(() => rule.evaluate({ self: toCel(obj) }), 1000);
const compileRate = measure(() => compileCel(RULE), 500);
const rate = measure(() => rule.evaluate({ self }), 2000);

const fmt = (x: number) => Math.round(x).toLocaleString('en-US').replace(/,/g, '');
console.log(
  `cel: ${fmt(rate)} evals/s (rule=4-clause, all-macro=${fmt(macroRate)}/s, with-toCel=${fmt(convertRate)}/s, cached-compile=${fmt(compileRate)}/s)`,
);
