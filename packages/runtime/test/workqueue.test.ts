import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ItemExponentialRateLimiter } from '../src/controller/ratelimit.ts';
import { WorkQueue } from '../src/controller/workqueue.ts';
import { RuntimeMetrics } from '../src/metrics.ts';

function queue(name = 'q', limiter = new ItemExponentialRateLimiter(5, 1000)) {
  const metrics = new RuntimeMetrics();
  return { q: new WorkQueue({ name, rateLimiter: limiter, metrics }), metrics };
}

async function metricValue(
  metrics: RuntimeMetrics,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const m = metrics.registry.getSingleMetric(name);
  if (!m) return undefined;
  const data = await m.get();
  const v = data.values.find(
    (x) =>
      Object.entries(labels).every(([k, val]) => x.labels[k] === val) &&
      !(x as { metricName?: string }).metricName?.endsWith('_bucket'),
  );
  return v?.value;
}

describe('WorkQueue', () => {
  it('holds a key once however often it is added before a worker takes it', async () => {
    const { q } = queue();
    for (let i = 0; i < 20; i++) q.add('ns/a');
    q.add('ns/b');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'ns/a');
    assert.equal(await q.get(), 'ns/b');
    assert.equal(q.len(), 0);
  });

  it('never hands a key being processed to a second worker, and re-queues it once on done()', async () => {
    const { q } = queue();
    q.add('k');
    const first = await q.get();
    assert.equal(first, 'k');
    q.add('k');
    q.add('k');
    assert.equal(q.len(), 0, 'a key in processing must not be queued');
    let second: string | undefined;
    const waiting = q.get().then((k) => (second = k));
    await new Promise((r) => setImmediate(r));
    assert.equal(second, undefined, 'second worker must still be waiting');
    q.done('k');
    await waiting;
    assert.equal(second, 'k');
    q.done('k');
    assert.equal(q.len(), 0, 'exactly one re-queue for many adds during processing');
  });

  it('done() without an add during processing leaves the queue empty', async () => {
    const { q } = queue();
    q.add('k');
    await q.get();
    q.done('k');
    assert.equal(q.len(), 0);
  });

  it('addAfter delivers later, and of two delays for one key the earlier wins', async () => {
    const { q } = queue();
    const t0 = Date.now();
    q.addAfter('k', 200);
    q.addAfter('k', 30);
    q.addAfter('k', 500);
    // a sentinel due between the earliest (30 ms) and the next (200 ms) delay of k: k must come first, and
    // only once (order, not elapsed time, so a loaded machine cannot fail it)
    q.addAfter('sentinel', 120);
    assert.equal(q.pendingDelayed(), 2);
    assert.equal(await q.get(), 'k');
    assert.ok(Date.now() - t0 >= 25, 'k was delivered before its delay');
    q.done('k');
    assert.equal(await q.get(), 'sentinel');
    q.done('sentinel');
    assert.equal(q.pendingDelayed(), 0, "k's later delays were folded into the first");
    assert.equal(q.len(), 0);
  });

  it('addRateLimited backs off per key exponentially and forget() resets it', async () => {
    const limiter = new ItemExponentialRateLimiter(5, 1000);
    const { q } = queue('rl', limiter);
    const delays = [0, 1, 2, 3].map(() => limiter.when('x'));
    assert.deepEqual(delays, [5, 10, 20, 40]);
    limiter.forget('x');
    q.addRateLimited('x');
    assert.equal(q.numRequeues('x'), 1);
    assert.equal(await q.get(), 'x');
    q.forget('x');
    assert.equal(q.numRequeues('x'), 0);
  });

  it('shutdown wakes waiting workers with undefined and drops delayed keys', async () => {
    const { q } = queue();
    const waiting = q.get();
    q.addAfter('later', 10_000);
    q.shutdown();
    assert.equal(await waiting, undefined);
    assert.equal(q.pendingDelayed(), 0);
    q.add('x');
    assert.equal(q.len(), 0, 'no adds after shutdown');
  });

  it('shutdownAndDrain waits for keys in processing to be done', async () => {
    const { q } = queue();
    q.add('busy');
    await q.get();
    let drained = false;
    const p = q.shutdownAndDrain().then(() => (drained = true));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(drained, false);
    q.done('busy');
    await p;
    assert.equal(drained, true);
  });

  it('reports workqueue_* metrics under the queue name', async () => {
    const { q, metrics } = queue('widgets');
    q.add('a');
    q.add('a');
    q.add('b');
    assert.equal(await metricValue(metrics, 'workqueue_adds_total', { name: 'widgets' }), 2);
    assert.equal(await metricValue(metrics, 'workqueue_depth', { name: 'widgets' }), 2);
    const k = (await q.get())!;
    await new Promise((r) => setTimeout(r, 15));
    const unfinished = await metricValue(metrics, 'workqueue_unfinished_work_seconds', { name: 'widgets' });
    assert.ok(unfinished !== undefined && unfinished >= 0.01, `unfinished work ${unfinished}`);
    const longest = await metricValue(metrics, 'workqueue_longest_running_processor_seconds', { name: 'widgets' });
    assert.ok(longest !== undefined && longest >= 0.01);
    q.done(k);
    q.addRateLimited('c');
    assert.equal(await metricValue(metrics, 'workqueue_retries_total', { name: 'widgets' }), 1);
    const text = await metrics.text();
    assert.match(text, /workqueue_queue_duration_seconds_count\{name="widgets"\} 1/);
    assert.match(text, /workqueue_work_duration_seconds_count\{name="widgets"\} 1/);
  });

  it('with N concurrent workers no key is ever processed twice at once', async () => {
    const { q } = queue();
    const active = new Set<string>();
    let overlaps = 0;
    let processed = 0;
    const worker = async () => {
      for (;;) {
        const k = await q.get();
        if (k === undefined) return;
        if (active.has(k)) overlaps++;
        active.add(k);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        active.delete(k);
        processed++;
        q.done(k);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    for (let i = 0; i < 300; i++) {
      q.add(`k${i % 5}`);
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    while (q.len() + q.inFlight() > 0) await new Promise((r) => setTimeout(r, 5));
    await q.shutdownAndDrain();
    await Promise.all(workers);
    assert.equal(overlaps, 0);
    assert.ok(processed >= 5 && processed < 300, `processed ${processed}`);
  });
});
