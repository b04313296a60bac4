// The gateway's hold for a model at zero: a request waits (counted in the queue metric) until an endpoint is
// Ready, and is released with an empty answer when the hold times out or the client goes away; the queue
// never stays counted.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeldRequests, QUEUE_METRIC } from '../src/gateway/hold.ts';

const queued = async (h: HeldRequests) =>
  Number(
    (await h.registry.metrics()).match(
      new RegExp(`^${QUEUE_METRIC}\\{namespace="llm",target_model_name="m"\\} (\\S+)$`, 'm'),
    )?.[1] ?? 0,
  );

describe('HeldRequests', () => {
  it('holds until an endpoint is ready, counting the request meanwhile', async () => {
    const h = new HeldRequests(10_000);
    let ready: string[] = [];
    const p = h.hold({ namespace: 'llm', model: 'm' }, async () => ready, new AbortController().signal);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await queued(h), 1);
    ready = ['http://127.244.0.9:8000'];
    assert.deepEqual(await p, ['http://127.244.0.9:8000']);
    assert.equal(await queued(h), 0);
  });
  it('a hold that times out answers nothing and leaves the queue empty', async () => {
    const h = new HeldRequests(300);
    assert.deepEqual(await h.hold({ namespace: 'llm', model: 'm' }, async () => [], new AbortController().signal), []);
    assert.equal(await queued(h), 0);
  });
  it('a client that goes away leaves the queue at once', async () => {
    const h = new HeldRequests(60_000);
    const gone = new AbortController();
    const p = h.hold({ namespace: 'llm', model: 'm' }, async () => [], gone.signal);
    await new Promise((r) => setTimeout(r, 30));
    gone.abort();
    assert.deepEqual(await p, []);
    assert.equal(await queued(h), 0);
  });
  it('serves the queue on /metrics for Prometheus', async () => {
    const h = new HeldRequests(60_000);
    const gone = new AbortController();
    const p = h.hold({ namespace: 'llm', model: 'm' }, async () => [], gone.signal);
    try {
      const url = await h.serveMetrics();
      const text = await (await fetch(`${url}/metrics`)).text();
      assert.match(text, /inference_extension_flow_control_queue_size\{namespace="llm",target_model_name="m"\} 1/);
      assert.equal((await fetch(`${url}/other`)).status, 404);
    } finally {
      gone.abort();
      await p;
      await h.close();
    }
  });
});
