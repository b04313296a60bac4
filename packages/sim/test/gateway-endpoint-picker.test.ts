// The dev Gateway's endpoint picker (docs/kubeairunway.md, "Endpoint picker"): vLLM's gauges parsed from
// /metrics, and a choice by queue depth and KV-cache use, with the Gateway's own in-flight requests
// counted between scrapes and unreadable pods scored last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointPicker, type PodLoad, parseLoad } from '../src/gateway/index.ts';

const METRICS = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m",engine="0"} 4
vllm:num_requests_waiting{model_name="m",engine="0"} 2.0
vllm:kv_cache_usage_perc{model_name="m",engine="0"} 0.5
`;

/** a picker over fixed loads, its first scrape done */
async function pickerOver(loads: Record<string, PodLoad | undefined>, random = () => 0) {
  const picker = new EndpointPicker({ readLoad: async (t) => loads[t], scrapeIntervalMs: 1_000_000, random });
  picker.pick(Object.keys(loads)).done();
  await new Promise((r) => setImmediate(r));
  return picker;
}

describe('parseLoad', () => {
  it('reads waiting + running and the KV-cache use', () => {
    assert.deepEqual(parseLoad(METRICS), { queue: 6, kvCache: 0.5 });
  });
  it('nothing to read, negative or NaN values: no load rather than a wrong one', () => {
    assert.equal(parseLoad('# nothing here\nother_metric 3\n'), undefined);
    assert.deepEqual(
      parseLoad('vllm:num_requests_waiting -3\nvllm:kv_cache_usage_perc NaN\nvllm:num_requests_running 1\n'),
      {
        queue: 1,
        kvCache: 0,
      },
    );
    assert.deepEqual(parseLoad('vllm:gpu_cache_usage_perc 7\n'), { queue: 0, kvCache: 1 }, 'clamped to 1');
  });
});

describe('EndpointPicker', () => {
  it('picks the pod with the shortest queue, then the least KV-cache use', async () => {
    const p = await pickerOver({
      a: { queue: 8, kvCache: 0.1 },
      b: { queue: 0, kvCache: 0.9 },
      c: { queue: 0, kvCache: 0.2 },
    });
    assert.equal(p.pick(['a', 'b', 'c']).target, 'c');
    p.close();
  });

  it('counts its own requests in flight between scrapes, so a burst spreads instead of piling onto one pod', async () => {
    const p = await pickerOver({
      a: { queue: 0, kvCache: 0 },
      b: { queue: 0, kvCache: 0 },
      c: { queue: 5, kvCache: 0 },
    });
    const burst = Array.from({ length: 4 }, () => p.pick(['a', 'b', 'c']));
    assert.deepEqual(
      burst.map((x) => x.target),
      ['a', 'b', 'a', 'b'],
      'the busy pod c is never chosen, a and b alternate',
    );
    for (const x of burst) x.done();
    for (const x of burst) x.done(); // twice: counted once
    assert.equal(p.pick(['a', 'b', 'c']).target, 'a');
    p.close();
  });

  it('scores a pod whose metrics cannot be read last, but still uses it when it is the only one', async () => {
    const p = await pickerOver({ a: undefined, b: { queue: 3, kvCache: 0.7 } });
    assert.equal(p.pick(['a', 'b']).target, 'b');
    assert.equal(p.pick(['a']).target, 'a');
    p.close();
  });

  it('breaks ties at random among the best', async () => {
    const loads = { a: { queue: 1, kvCache: 0.5 }, b: { queue: 1, kvCache: 0.5 } };
    assert.equal((await pickerOver(loads, () => 0)).pick(['a', 'b']).target, 'a');
    assert.equal((await pickerOver(loads, () => 0.99)).pick(['a', 'b']).target, 'b');
  });
});
