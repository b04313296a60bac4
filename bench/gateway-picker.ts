// The dev Gateway's endpoint picker against round robin under skewed load (docs/kubeairunway.md, "Endpoint
// picker"): four simulated vLLM pods of one InferencePool, two of them already busy with traffic from
// elsewhere (6 and 3 requests kept in flight on them directly), and a client sending chat requests at a
// fixed concurrency, each to the pod the chooser names: round robin, or the picker scoring the pods' own
// /metrics (queue depth and KV-cache use). Both runs see the same skew. Last line:
// `gateway-picker: <p99> ms p99 with the picker (round-robin p99=…, ratio=…, p50 …, requests=…)`.
import { EndpointPicker } from '@modelplane/sim/gateway';
import { startInferenceServer } from '@modelplane/sim/inference';
import { smokeOr } from './lib/smoke.ts';

const REQUESTS = smokeOr(400, 24);
const CONCURRENCY = 8;
const SKEW = [6, 3, 0, 0];
const MODEL = 'bench/model';
const capacity = { maxNumSeqs: 4, decodeTokensPerSecond: 200, stepMs: 10, numGpuBlocks: 128 };

const pods = await Promise.all(SKEW.map(() => startInferenceServer({ model: MODEL, capacity })));
const targets = pods.map((p) => p.url);

const chat = async (target: string): Promise<number> => {
  const started = performance.now();
  const res = await fetch(`${target}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 48 }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${target} answered ${res.status}`);
  return performance.now() - started;
};

/** keeps `n` requests in flight on `target` until `stop` */
function background(target: string, n: number, stop: { done: boolean }): Promise<void>[] {
  return Array.from({ length: n }, async () => {
    while (!stop.done) await chat(target);
  });
}

async function run(choose: () => { target: string; done: () => void }): Promise<number[]> {
  const stop = { done: false };
  const noise = SKEW.flatMap((n, i) => background(targets[i]!, n, stop));
  // let the skew build up (queues and KV use reach the pods' metrics)
  await new Promise((r) => setTimeout(r, 300));
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const picked = choose();
        try {
          latencies.push(await chat(picked.target));
        } finally {
          picked.done();
        }
      }
    }),
  );
  stop.done = true;
  await Promise.all(noise);
  return latencies.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

let rr = 0;
const roundRobin = await run(() => ({ target: targets[rr++ % targets.length]!, done: () => undefined }));
const picker = new EndpointPicker({ scrapeIntervalMs: 100 });
const picked = await run(() => picker.pick(targets));
picker.close();
await Promise.all(pods.map((p) => p.close()));

const p99 = pct(picked, 0.99);
const rr99 = pct(roundRobin, 0.99);
console.log(
  `gateway-picker: ${p99.toFixed(0)} ms p99 with the picker (round-robin p99=${rr99.toFixed(0)} ms, ratio=${(p99 / rr99).toFixed(2)}, p50 ${pct(picked, 0.5).toFixed(0)} vs ${pct(roundRobin, 0.5).toFixed(0)} ms, requests=${REQUESTS}, concurrency=${CONCURRENCY}, skew=${SKEW.join('/')})`,
);
