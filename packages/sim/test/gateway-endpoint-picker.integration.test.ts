// The dev Gateway's endpoint picker (docs/kubeairunway.md, "Endpoint picker"): vLLM's gauges parsed from
// /metrics, and a choice by queue depth and KV-cache use, with the Gateway's own in-flight requests
// counted between scrapes and unreadable pods scored last; hostile or garbage /metrics, pods without
// metrics and a saturated pool never crash it and always get an answer (the documented fallbacks).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { EndpointPicker, MAX_METRICS_BYTES, type PodLoad, parseLoad } from '../src/gateway/index.ts';

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

describe('EndpointPicker fallbacks', () => {
  it('garbage, hostile and partial exposition text: no load, never a made-up idle one', () => {
    for (const text of [
      '',
      '\u0000\u0001\u0002',
      '<html>502 Bad Gateway</html>',
      'vllm:num_requests_waiting{model_name="m" 3',
      'vllm:num_requests_waiting +Inf\nvllm:kv_cache_usage_perc 1e999',
      `vllm:num_requests_running{${'a="b",'.repeat(50_000)}} 1x`,
    ])
      assert.equal(parseLoad(text), undefined, JSON.stringify(text.slice(0, 60)));
    // one bad series poisons its gauge (a pod cannot look idle with a -1e9 beside its real queue)
    assert.deepEqual(
      parseLoad(
        'vllm:num_requests_waiting{e="0"} 5\nvllm:num_requests_waiting{e="1"} -1e9\nvllm:num_requests_running 2\n',
      ),
      { queue: 2, kvCache: 0 },
    );
    // data-parallel engines: each gauge summed over its series
    assert.deepEqual(
      parseLoad(
        'vllm:num_requests_running{engine="0"} 2\nvllm:num_requests_running{engine="1"} 3\nvllm:kv_cache_usage_perc 0.25\n',
      ),
      { queue: 5, kvCache: 0.25 },
    );
  });

  it('no pod has metrics: the fewest requests in flight wins (least-request), never a crash', async () => {
    const p = await pickerOver({ a: undefined, b: undefined, c: undefined });
    const picks = Array.from({ length: 6 }, () => p.pick(['a', 'b', 'c']));
    assert.deepEqual(
      picks.map((x) => x.target),
      ['a', 'b', 'c', 'a', 'b', 'c'],
    );
    picks[1]!.done();
    assert.equal(p.pick(['a', 'b', 'c']).target, 'b', 'the one with a request done');
    p.close();
  });

  it('a pod without metrics ranks after every pod with them, however loaded', async () => {
    const p = await pickerOver({ dark: undefined, full: { queue: 500, kvCache: 1 }, busy: { queue: 400, kvCache: 1 } });
    assert.equal(p.pick(['dark', 'full', 'busy']).target, 'busy');
    assert.equal(p.pick(['dark', 'full']).target, 'full');
    p.close();
  });

  it('every pod saturated: the least loaded still gets the request, and a burst spreads (nothing is shed)', async () => {
    const p = await pickerOver({
      a: { queue: 64, kvCache: 1 },
      b: { queue: 60, kvCache: 1 },
      c: { queue: 64, kvCache: 0.99 },
    });
    const burst = Array.from({ length: 9 }, () => p.pick(['a', 'b', 'c']).target);
    assert.equal(burst[0], 'b');
    assert.deepEqual(new Set(burst), new Set(['a', 'b', 'c']), `spread over all three: ${burst}`);
    p.close();
  });

  it('a load reader that throws or rejects is an unreadable pod, not an unhandled rejection', async () => {
    const p = new EndpointPicker({
      readLoad: async (t) => {
        if (t === 'a') throw new Error('boom');
        return { queue: 1, kvCache: 0 };
      },
      scrapeIntervalMs: 1_000_000,
    });
    p.pick(['a', 'b']).done();
    await new Promise((r) => setImmediate(r));
    assert.equal(p.pick(['a', 'b']).target, 'b');
    assert.throws(() => p.pick([]), /no endpoint to pick from/);
    p.close();
  });

  it('reads a real /metrics, and treats an oversized, failing or non-metrics answer as unreadable', async () => {
    const bodies: Record<string, (res: http.ServerResponse) => void> = {
      '/ok/metrics': (res) => res.end('vllm:num_requests_running 0\nvllm:kv_cache_usage_perc 0\n'),
      '/huge/metrics': (res) => {
        res.write(`vllm:num_requests_running 0\n${'#'.repeat(MAX_METRICS_BYTES)}\n`);
        res.end();
      },
      '/error/metrics': (res) => res.writeHead(500).end('vllm:num_requests_running 0'),
    };
    const server = http.createServer((req, res) => (bodies[req.url ?? ''] ?? ((r) => r.writeHead(404).end()))(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const p = new EndpointPicker({ scrapeIntervalMs: 20 });
    try {
      const targets = ['huge', 'error', 'ok', 'missing'].map((t) => `${base}/${t}`);
      p.pick(targets).done();
      // only the well-behaved pod is ever picked once the scrapes are in
      for (let i = 0; i < 200; i++) {
        await new Promise((r) => setTimeout(r, 10));
        const picks = Array.from({ length: 4 }, () => p.pick(targets));
        for (const x of picks) x.done();
        if (picks.every((x) => x.target === `${base}/ok`)) return;
      }
      assert.fail('the pod with readable metrics was not preferred');
    } finally {
      p.close();
      server.close();
      server.closeAllConnections();
    }
  });
});
