import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigMaps } from '../src/client/kinds.ts';
import { ControllerBuilder } from '../src/controller/builder.ts';
import { type Reconciler, TerminalError } from '../src/controller/controller.ts';
import { generationChanged } from '../src/controller/predicates.ts';
import { ItemExponentialRateLimiter } from '../src/controller/ratelimit.ts';
import { kindRef } from '../src/meta/types.ts';
import { controllerBed, Widgets, widget } from './helpers/controller-bed.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

describe('Controller', () => {
  const t = controllerBed();

  const builder = (name: string) =>
    new ControllerBuilder(name, { cache: t.cache, client: t.client, metrics: t.metrics, logger: t.quiet });

  it('coalesces 20 rapid updates into a few reconciles, the last one sees the final state, never two at once for a key', async () => {
    t.stub.put(widget('w', 0));
    const seen: number[] = [];
    let active = 0;
    let overlap = 0;
    const c = builder('burst')
      .for(Widgets)
      .withOptions({ concurrency: 4 })
      .complete(async (req, ctx) => {
        if (++active > 1) overlap++;
        const w = await ctx.cache.get(Widgets, req.name, req.namespace);
        seen.push(w?.spec?.size ?? -1);
        await new Promise((r) => setTimeout(r, 30));
        active--;
      });
    await c.start();
    await waitFor(() => seen.length === 1, 'initial reconcile');
    for (let i = 1; i <= 20; i++) t.stub.put(widget('w', i));
    await waitFor(() => seen.at(-1) === 20 && c.pendingWork === 0, 'final state reconciled');
    await new Promise((r) => setTimeout(r, 100));
    await c.stop();
    assert.equal(overlap, 0);
    assert.ok(seen.length - 1 <= 4, `20 updates caused ${seen.length - 1} reconciles`);
    assert.equal(seen.at(-1), 20);
  });

  it('retries a reconcile that throws with growing delays, then succeeds; counts results in t.metrics', async () => {
    t.stub.put(widget('flaky'));
    const times: number[] = [];
    const c = builder('flaky')
      .for(Widgets)
      .withOptions({ rateLimiter: new ItemExponentialRateLimiter(40, 10_000) })
      .complete(async (_req, ctx) => {
        times.push(Date.now());
        assert.equal(ctx.retries, times.length - 1);
        if (times.length <= 3) throw new Error(`failure ${times.length}`);
      });
    await c.start();
    await waitFor(() => times.length === 4, 'fourth attempt', 5000);
    await new Promise((r) => setTimeout(r, 200));
    await c.stop();
    assert.equal(times.length, 4, 'no retries after success');
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // each retry waits at least its backoff (40, 80, 160 ms): the delays grow
    assert.ok(
      gaps[0]! >= 35 && gaps[1]! >= 75 && gaps[2]! >= 155,
      `retry delays ${gaps} must be at least 40, 80, 160 ms`,
    );
    const text = await t.metrics.text();
    assert.match(text, /controller_runtime_reconcile_total\{controller="flaky",result="error"\} 3/);
    assert.match(text, /controller_runtime_reconcile_total\{controller="flaky",result="success"\} 1/);
    assert.match(text, /controller_runtime_reconcile_errors_total\{controller="flaky"\} 3/);
    assert.match(text, /controller_runtime_reconcile_time_seconds_count\{controller="flaky"\} 4/);
    assert.match(text, /workqueue_retries_total\{name="flaky"\} 3/);
  });

  it('a TerminalError is not retried', async () => {
    t.stub.put(widget('bad'));
    let calls = 0;
    const c = builder('terminal')
      .for(Widgets)
      .withOptions({ rateLimiter: new ItemExponentialRateLimiter(5, 100) })
      .complete(async () => {
        calls++;
        throw new TerminalError('spec.size: must be positive');
      });
    await c.start();
    await waitFor(() => calls === 1, 'first call');
    await new Promise((r) => setTimeout(r, 150));
    await c.stop();
    assert.equal(calls, 1);
  });

  it('requeueAfter reconciles the key again after the delay', async () => {
    t.stub.put(widget('periodic'));
    const times: number[] = [];
    const c = builder('periodic')
      .for(Widgets)
      .complete(async () => {
        times.push(Date.now());
        return times.length < 3 ? { requeueAfter: 80 } : {};
      });
    await c.start();
    await waitFor(() => times.length === 3, 'three reconciles');
    await c.stop();
    assert.ok(times[1]! - times[0]! >= 75 && times[2]! - times[1]! >= 75);
  });

  it('owns(): a change to a child with a controller ownerReference enqueues its owner, other children do not', async () => {
    const w = t.stub.put(widget('parent'));
    const reconciled: string[] = [];
    const c = builder('owner')
      .for(Widgets)
      .owns(ConfigMaps)
      .complete(async (req) => {
        reconciled.push(`${req.namespace}/${req.name}`);
      });
    await c.start();
    await waitFor(() => reconciled.length === 1, 'initial');
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'child',
        namespace: 'ns',
        ownerReferences: [
          {
            apiVersion: 'test.modelplane.io/v1',
            kind: 'Widget',
            name: 'parent',
            uid: w.metadata.uid,
            controller: true,
          },
        ],
      },
    });
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'not-controlled',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', name: 'other', uid: 'x' }],
      },
    });
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'other-kind',
        namespace: 'ns',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'y', controller: true }],
      },
    });
    await waitFor(() => reconciled.length === 2, 'owner enqueued by child');
    t.stub.remove('v1', 'ConfigMap', 'child', 'ns');
    await waitFor(() => reconciled.length === 3, 'owner enqueued by child deletion');
    await new Promise((r) => setTimeout(r, 50));
    await c.stop();
    assert.deepEqual(reconciled, ['ns/parent', 'ns/parent', 'ns/parent']);
  });

  it('watches() with a map function enqueues the mapped keys, old and new', async () => {
    t.stub.put(widget('a'));
    t.stub.put(widget('b'));
    const reconciled: string[] = [];
    const c = builder('mapped')
      .for(Widgets)
      .watches(ConfigMaps, (cm) =>
        cm.metadata.labels?.widget ? [{ namespace: cm.metadata.namespace!, name: cm.metadata.labels.widget }] : [],
      )
      .complete(async (req) => {
        reconciled.push(req.name);
      });
    await c.start();
    await waitFor(() => reconciled.length === 2, 'initial');
    reconciled.length = 0;
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'ns', labels: { widget: 'a' } },
    });
    await waitFor(() => reconciled.includes('a'), 'a');
    t.stub.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'ns', labels: { widget: 'b' } },
    });
    await waitFor(
      () => reconciled.includes('b') && reconciled.filter((r) => r === 'a').length === 2,
      'old target a and new target b',
    );
    await c.stop();
  });

  it('predicates: generationChanged ignores status-only updates', async () => {
    const w = t.stub.put(widget('gen'));
    let calls = 0;
    const c = builder('gen')
      .for(Widgets, { predicates: [generationChanged()] })
      .complete(async () => {
        calls++;
      });
    await c.start();
    await waitFor(() => calls === 1, 'initial');
    t.stub.put({ ...w, status: { ready: true } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls, 1, 'status update filtered');
    t.stub.put({ ...w, spec: { size: 9 } });
    await waitFor(() => calls === 2, 'spec update passes');
    await c.stop();
  });

  it('resync() reconciles every cached object of the primary kind, bypassing predicates', async () => {
    for (const n of ['r1', 'r2', 'r3']) t.stub.put(widget(n));
    const reconciled: string[] = [];
    const c = builder('resync')
      .for(Widgets, { predicates: [() => false] })
      .complete(async (req) => {
        reconciled.push(req.name);
      });
    await c.start();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(reconciled.length, 0);
    assert.equal(await c.resync(), 3);
    await waitFor(() => reconciled.length === 3, 'resync reconciles');
    await c.stop();
  });

  it('periodic resync runs at the configured period', async () => {
    t.stub.put(widget('p1'));
    let calls = 0;
    const c = builder('periodic-resync')
      .for(Widgets)
      .withOptions({ resyncPeriodMs: 60 })
      .complete(async () => {
        calls++;
      });
    await c.start();
    await waitFor(() => calls >= 3, 'resyncs', 2000);
    await c.stop();
  });

  it('stop() lets an in-flight reconcile finish and starts no new one', async () => {
    t.stub.put(widget('slow'));
    t.stub.put(widget('queued'));
    let finished = 0;
    let started = 0;
    const slow: Reconciler = async () => {
      started++;
      await new Promise((r) => setTimeout(r, 150));
      finished++;
    };
    const c = builder('graceful').for(Widgets).complete(slow);
    await c.start();
    await waitFor(() => started === 1, 'first reconcile running');
    await c.stop();
    assert.equal(finished, 1, 'in-flight reconcile finished before stop() resolved');
    assert.equal(started, 1, 'the queued key was not started after stop');
  });

  it('a controller can be started again after stop (leadership regained)', async () => {
    t.stub.put(widget('again'));
    let calls = 0;
    const c = builder('restart')
      .for(Widgets)
      .complete(async () => {
        calls++;
      });
    await c.start();
    await waitFor(() => calls === 1, 'first run');
    await c.stop();
    await c.start();
    await waitFor(() => calls === 2, 'second run reconciles again');
    await c.stop();
  });

  it('start() fails clearly for an unknown kind and for caches that never sync, leaving nothing running', async () => {
    const unknown = builder('unknown')
      .for(kindRef('test.modelplane.io/v1', 'Gadget'))
      .complete(async () => {});
    await assert.rejects(unknown.start(), /no matches for kind "Gadget"/);
    assert.equal(unknown.isRunning, false);
    t.stub.holdLists = true;
    try {
      const stuck = builder('stuck')
        .for(Widgets)
        .withOptions({ cacheSyncTimeoutMs: 200 })
        .complete(async () => {});
      await assert.rejects(stuck.start(), /caches for Widget did not sync within 200 ms/);
      assert.equal(stuck.isRunning, false);
    } finally {
      t.stub.holdLists = false;
    }
  });

  it('the builder rejects a missing for() and bad names', () => {
    assert.throws(
      () =>
        builder('x')
          .owns(ConfigMaps)
          .complete(async () => {}),
      /call for\(kind\) before/,
    );
    assert.throws(() => builder('Bad_Name'), /DNS-1123/);
    assert.throws(() => builder('twice').for(Widgets).for(Widgets), /for\(\) already called/);
  });

  it('the reconcile t.client writes with the controller name as field manager', async () => {
    t.stub.put(widget('fm'));
    const c = builder('fm-ctrl')
      .for(Widgets)
      .complete(async (req, ctx) => {
        await ctx.client.apply({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${req.name}-cm`, namespace: req.namespace },
        });
      });
    await c.start();
    await waitFor(() => t.stub.requests.some((r) => r.method === 'PATCH' && r.path.endsWith('/fm-cm')), 'apply');
    await c.stop();
    assert.equal(
      t.stub.requests.find((r) => r.method === 'PATCH' && r.path.endsWith('/fm-cm'))!.query.get('fieldManager'),
      'fm-ctrl',
    );
  });
});
