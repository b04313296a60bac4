// The controller runtime against the test cluster (embedded or real API server): coalescing, retries,
// server-side apply of children and status, zero-cost resyncs, events, error classification and
// metadata-only caches.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { needsApply } from '../src/client/apply-noop.ts';
import { KubeClient } from '../src/client/client.ts';
import { isAlreadyExists, isApplyConflict, isConflict, isInvalid, isNotFound } from '../src/client/errors.ts';
import { type ConfigMap, ConfigMaps } from '../src/client/kinds.ts';
import { ignoreOwnStatusWrites } from '../src/controller/predicates.ts';
import { ItemExponentialRateLimiter } from '../src/controller/ratelimit.ts';
import { EventsV1, type KubeEvent } from '../src/events.ts';
import { Logger } from '../src/log.ts';
import { Manager } from '../src/manager/manager.ts';
import { controllerRef } from '../src/meta/types.ts';
import { ensureNamespace, startCluster, type TestCluster, Widgets, widget } from './helpers/cluster.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

const quiet = new Logger({}, 'silent');

describe('controller runtime on the test cluster', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startCluster();
  });
  after(async () => {
    await cluster?.close();
  });

  async function manager(): Promise<Manager> {
    return Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet });
  }

  it('20 rapid updates to one object cause a handful of reconciles; the last sees the final state; never concurrent', async () => {
    await ensureNamespace(cluster.admin, 'burst');
    await cluster.admin.create(widget('w', 'burst', 0));
    const mgr = await manager();
    const seen: number[] = [];
    let active = 0;
    let overlap = 0;
    mgr
      .controller('burst')
      .for(Widgets, { spec: { namespace: 'burst' } })
      .withOptions({ concurrency: 4 })
      .complete(async (req, ctx) => {
        if (++active > 1) overlap++;
        const w = await ctx.cache.get(Widgets, req.name, req.namespace, { namespace: 'burst' });
        seen.push(w?.spec?.size ?? -1);
        // a reconcile slower than a burst of writes, as real ones are: that is when coalescing matters
        await new Promise((r) => setTimeout(r, 300));
        active--;
      });
    await mgr.start();
    await waitFor(() => seen.length === 1, 'initial reconcile');
    for (let i = 1; i <= 20; i++) await cluster.admin.patch(Widgets, 'w', 'burst', { spec: { size: i } }, 'merge');
    await waitFor(() => seen.at(-1) === 20, 'final state reconciled', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    await mgr.stop();
    assert.equal(overlap, 0, 'one key reconciled concurrently');
    assert.equal(seen.at(-1), 20);
    assert.ok(seen.length - 1 <= 5, `20 updates caused ${seen.length - 1} reconciles`);
  });

  it('a reconcile that throws three times is retried with growing delays and then succeeds', async () => {
    await ensureNamespace(cluster.admin, 'flaky');
    await cluster.admin.create(widget('f', 'flaky'));
    const mgr = await manager();
    const times: number[] = [];
    mgr
      .controller('flaky')
      .for(Widgets, { spec: { namespace: 'flaky' } })
      .withOptions({ rateLimiter: new ItemExponentialRateLimiter(50, 60_000) })
      .complete(async () => {
        times.push(Date.now());
        if (times.length <= 3) throw new Error(`transient failure ${times.length}`);
      });
    await mgr.start();
    await waitFor(() => times.length === 4, 'success on the fourth attempt', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const metrics = await mgr.metrics.text();
    await mgr.stop();
    assert.equal(times.length, 4);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // each retry waits at least its backoff (50, 100, 200 ms): the delays grow
    assert.ok(
      gaps[0]! >= 45 && gaps[1]! >= 95 && gaps[2]! >= 195,
      `retry delays ${gaps} must be at least 50, 100, 200 ms`,
    );
    assert.match(metrics, /controller_runtime_reconcile_errors_total\{controller="flaky"\} 3/);
    assert.match(metrics, /controller_runtime_reconcile_total\{controller="flaky",result="success"\} 1/);
  });

  it('applies a child per object and its status; a resync with nothing changed makes no reads and no writes', async () => {
    await ensureNamespace(cluster.admin, 'child');
    for (let i = 0; i < 10; i++) await cluster.admin.create(widget(`w${i}`, 'child', i));
    const mgr = await manager();
    let reconciles = 0;
    const ctrl = mgr
      .controller('widget-child')
      .for(Widgets, { predicates: [ignoreOwnStatusWrites('widget-child')], spec: { namespace: 'child' } })
      .owns(ConfigMaps, { spec: { namespace: 'child' } })
      .complete(async (req, ctx) => {
        reconciles++;
        const w = await ctx.cache.get(Widgets, req.name, req.namespace, { namespace: 'child' });
        if (!w) return;
        const desired: ConfigMap = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${req.name}-cfg`, namespace: req.namespace, ownerReferences: [controllerRef(w)] },
          data: { size: String(w.spec?.size ?? 0) },
        };
        const live = await ctx.cache.get(ConfigMaps, desired.metadata.name!, req.namespace, { namespace: 'child' });
        if (needsApply(desired, live, 'widget-child')) await ctx.client.apply(desired);
        const status = {
          ...widget(req.name, req.namespace),
          status: { observedGeneration: w.metadata.generation, configMap: desired.metadata.name },
        };
        if (needsApply(status, w, 'widget-child', 'status')) await ctx.client.applyStatus(status);
      });
    await mgr.start();
    await waitFor(
      async () =>
        (await cluster.admin.list(ConfigMaps, { namespace: 'child' })).items.filter(
          (c) => c.metadata.ownerReferences?.length,
        ).length === 10,
      'children',
      10_000,
    );
    await waitFor(
      async () =>
        (await cluster.admin.list(Widgets, { namespace: 'child' })).items.every(
          (w) => w.status?.configMap === `${w.metadata.name}-cfg`,
        ),
      'status',
      10_000,
    );
    await waitFor(() => ctrl.pendingWork === 0, 'queue drained');
    const writes = cluster
      .auditEntries()
      .filter(
        (e) =>
          e.user === cluster.operatorUser &&
          e.namespace === 'child' &&
          ['create', 'update', 'patch', 'delete'].includes(e.verb),
      );
    assert.equal(
      writes.length,
      20,
      `one child apply and one status apply per widget, got ${writes.map((w) => `${w.verb} ${w.resource}/${w.name}`).join(', ')}`,
    );
    const cm = await cluster.admin.get(ConfigMaps, 'w3-cfg', 'child');
    assert.equal(cm.data?.size, '3');
    assert.equal(cm.metadata.managedFields?.find((m) => m.operation === 'Apply')?.manager, 'widget-child');

    await new Promise((r) => setTimeout(r, 200));
    const before = cluster.auditEntries().length;
    const before2 = reconciles;
    assert.equal(await ctrl.resync(), 10);
    await waitFor(() => reconciles >= before2 + 10 && ctrl.pendingWork === 0, 'resync processed');
    const during = cluster
      .auditEntries()
      .slice(before)
      .filter((e) => e.user === cluster.operatorUser && e.verb !== 'watch');
    assert.deepEqual(
      during.map((e) => `${e.verb} ${e.resource}`),
      [],
      'no reads or writes during a no-change resync',
    );

    await cluster.admin.patch(Widgets, 'w3', 'child', { spec: { size: 33 } }, 'merge');
    await waitFor(
      async () => (await cluster.admin.get(ConfigMaps, 'w3-cfg', 'child')).data?.size === '33',
      'child follows the spec',
    );
    await cluster.admin.delete(ConfigMaps, 'w4-cfg', 'child');
    await waitFor(
      async () => (await cluster.admin.getOrUndefined(ConfigMaps, 'w4-cfg', 'child')) !== undefined,
      'deleted child recreated',
    );
    await mgr.stop();
  });

  it('records events.k8s.io/v1 events and aggregates repeats into a series', async () => {
    await ensureNamespace(cluster.admin, 'events');
    const w = await cluster.admin.create(widget('e', 'events'));
    const mgr = await manager();
    const recorder = mgr.recorder('eventer');
    for (let i = 0; i < 5; i++) {
      recorder.event(w, 'Warning', 'SizeInvalid', 'spec.size: must be at most 10');
      await new Promise((r) => setTimeout(r, 20));
    }
    await recorder.drain();
    const events = (await cluster.admin.list(EventsV1, { namespace: 'events' })).items as KubeEvent[];
    assert.equal(events.length, 1);
    const ev = events[0]!;
    assert.equal(ev.reason, 'SizeInvalid');
    assert.equal(ev.regarding.uid, w.metadata.uid);
    assert.equal(ev.reportingController, 'modelplane.io/eventer');
    assert.equal(ev.series?.count, 5);
    await mgr.stop();
  });

  it('classifies real API errors and honours dryRun', async () => {
    await ensureNamespace(cluster.admin, 'errors');
    const client = await KubeClient.create(cluster.operatorKubeconfig, { fieldManager: 'errors-test' });
    try {
      assert.ok(isNotFound(await client.get(ConfigMaps, 'missing', 'errors').catch((e) => e)));
      const created = await client.create<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'errors' },
        data: { a: '1' },
      });
      // the same name again (as sent the first time: kube refuses to create an object carrying a resourceVersion)
      const again = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'errors' } };
      assert.ok(isAlreadyExists(await client.create(again).catch((e) => e)));
      await client.patch(ConfigMaps, 'c', 'errors', { data: { a: '2' } }, 'merge');
      assert.ok(
        isConflict(await client.update({ ...created, data: { a: '3' } }).catch((e) => e)),
        'stale resourceVersion',
      );
      await client.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'owned', namespace: 'errors' },
        data: { k: 'mine' },
      });
      const conflict = await client
        .withFieldManager('someone-else')
        .apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'owned', namespace: 'errors' },
            data: { k: 'theirs' },
          },
          { force: false },
        )
        .catch((e) => e);
      assert.ok(isApplyConflict(conflict), String(conflict));
      const invalid = await client.create(widget('bad', 'errors', -1)).catch((e) => e);
      assert.ok(isInvalid(invalid), String(invalid));
      assert.match(invalid.message, /spec\.size/);
      await client.create(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry', namespace: 'errors' } },
        { dryRun: true },
      );
      assert.equal(await client.getOrUndefined(ConfigMaps, 'dry', 'errors'), undefined);
    } finally {
      client.close();
    }
  });

  it('a metadata-only cache holds no data and stays current', async () => {
    await ensureNamespace(cluster.admin, 'meta');
    await cluster.admin.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'm', namespace: 'meta', labels: { a: 'b' } },
      data: { secret: 'x'.repeat(1000) },
    });
    const mgr = await manager();
    mgr.cache.start();
    const m = await mgr.cache.get(ConfigMaps, 'm', 'meta', { metadataOnly: true, namespace: 'meta' });
    assert.equal(m?.metadata.labels?.a, 'b');
    assert.equal((m as ConfigMap).data, undefined);
    assert.equal(m?.kind, 'ConfigMap');
    await cluster.admin.patch(ConfigMaps, 'm', 'meta', { metadata: { labels: { a: 'c' } } }, 'merge');
    await waitFor(
      async () =>
        (await mgr.cache.get(ConfigMaps, 'm', 'meta', { metadataOnly: true, namespace: 'meta' }))?.metadata.labels
          ?.a === 'c',
      'label change seen',
    );
    await mgr.stop();
  });
});
