// The informer cache under the test cluster's fault injection (the embedded server's own, or the fault
// proxy in front of kube-apiserver: docs/real-kubernetes.md): stalled watches, abrupt closes, 410 expiry,
// 503 bursts and an API-server restart. After each fault, while objects are created, changed and deleted,
// the cache must converge to a fresh list, and the events handed to handlers must add up to the same state
// (no event lost).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FaultInjection, startFaultInjection, type TestFaults, testBackend } from '@modelplane/apiserver/testing';
import { Cache } from '../src/cache/cache.ts';
import type { Informer } from '../src/cache/informer.ts';
import { KubeClient } from '../src/client/client.ts';
import { Logger } from '../src/log.ts';
import type { KubeObject } from '../src/meta/types.ts';
import { RuntimeMetrics } from '../src/metrics.ts';
import { ensureNamespace, startCluster, type TestCluster, type Widget, Widgets, widget } from './helpers/cluster.ts';
import { waitFor } from './helpers/stub-apiserver.ts';

/** fault injection on the cluster's backend: the embedded server itself, or a proxy before kube-apiserver */
const injectFaults = (cluster: TestCluster): Promise<FaultInjection> =>
  startFaultInjection(cluster.backend.real ?? cluster.srv);

const NS = 'faults';
const quiet = new Logger({}, 'silent');

/** what the handlers were told, replayed into a map: must equal the store */
class EventMirror {
  readonly state = new Map<string, string>();
  attach(inf: Informer<Widget>): void {
    inf.addHandler({
      add: (o) => this.state.set(o.metadata.name!, o.metadata.resourceVersion!),
      update: (_old, o) => this.state.set(o.metadata.name!, o.metadata.resourceVersion!),
      delete: (o) => this.state.delete(o.metadata.name!),
    });
  }
}

function snapshot(items: KubeObject[]): string {
  return items
    .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
    .sort()
    .join(',');
}

describe('informer cache under API server faults', () => {
  let cluster: TestCluster;
  let client: KubeClient;
  let cache: Cache;
  let inf: Informer<Widget>;
  let mirror: EventMirror;
  let metrics: RuntimeMetrics;
  let injection: FaultInjection;
  let faults: TestFaults;
  let round = 0;

  before(async () => {
    cluster = await startCluster();
    injection = await injectFaults(cluster);
    faults = injection.faults;
    await ensureNamespace(cluster.admin, NS);
    for (let i = 0; i < 5; i++) await cluster.admin.create(widget(`base-${i}`, NS, i));
    metrics = new RuntimeMetrics();
    // the operator's requests go where the faults act; the admin's (churn, fresh lists) never meet one
    client = await KubeClient.create(injection.route(cluster.operatorKubeconfig), { metrics, timeoutMs: 3000 });
    cache = new Cache({
      client,
      metrics,
      logger: quiet,
      tuning: { inactivityTimeoutMs: 1500, backoffInitialMs: 100, backoffMaxMs: 1000 },
    });
    cache.start();
    inf = await cache.informer(Widgets, { namespace: NS });
    await inf.synced;
    mirror = new EventMirror();
    mirror.attach(inf);
  });
  after(async () => {
    await cache?.stop();
    client?.close();
    await injection?.stop();
    await cluster?.close();
  });

  /** creates, updates and deletes a few objects (as the admin, whom no fault touches) */
  async function churn(): Promise<void> {
    round++;
    for (let i = 0; i < 3; i++) await cluster.admin.create(widget(`r${round}-${i}`, NS, i));
    const existing = (await cluster.admin.list(Widgets, { namespace: NS })).items;
    for (const w of existing.slice(0, 2))
      await cluster.admin.patch(Widgets, w.metadata.name!, NS, { spec: { note: `round ${round}` } }, 'merge');
    await cluster.admin.delete(Widgets, existing.at(-1)!.metadata.name!, NS);
  }

  async function assertConverged(what: string): Promise<void> {
    let fresh = '';
    await waitFor(
      async () => {
        fresh = snapshot((await cluster.admin.list(Widgets, { namespace: NS })).items);
        return snapshot(inf.store.list()) === fresh;
      },
      `cache to equal a fresh list after ${what}`,
      20_000,
    );
    const told = [...mirror.state.entries()]
      .map(([n, rv]) => `${n}@${rv}`)
      .sort()
      .join(',');
    assert.equal(told, fresh, `handlers were told a different story than the server after ${what}`);
  }

  async function counter(name: string, labels: Record<string, string>): Promise<number> {
    const data = await metrics.registry.getSingleMetric(name)!.get();
    return data.values
      .filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
      .reduce((s, v) => s + v.value, 0);
  }

  it('stalled watches (open, silent): the watchdog reconnects and nothing is lost', async () => {
    faults.stallWatches(true);
    await churn();
    await new Promise((r) => setTimeout(r, 2500));
    faults.stallWatches(false);
    await assertConverged('a stall');
    assert.ok((await counter('modelplane_watch_restarts_total', { reason: 'stalled' })) >= 1, 'the watchdog fired');
  });

  it('abruptly closed watches: resumed from the last resourceVersion', async () => {
    faults.closeWatches();
    await churn();
    await assertConverged('an abrupt close');
  });

  it('410 expiry: the resumed watch is refused and the informer relists, deletions included', async () => {
    const relists = await counter('modelplane_watch_relists_total', {});
    faults.stallWatches(true);
    await churn();
    await faults.expireWatches();
    faults.stallWatches(false);
    faults.closeWatches();
    await assertConverged('410 expiry');
    assert.ok((await counter('modelplane_watch_relists_total', {})) > relists, 'relisted');
  });

  it('a burst of 503s for the operator: retried with backoff until the server answers again', async () => {
    const id = faults.add({ users: [cluster.operatorUser], fraction: 1, error: 503 });
    faults.closeWatches();
    await churn();
    await new Promise((r) => setTimeout(r, 1500));
    faults.remove(id);
    await assertConverged('a 503 burst');
    assert.ok((await counter('rest_client_requests_total', { code: '503' })) >= 1, 'the 503s reached the client');
  });

  it('a partial 503 failure rate with watches closing repeatedly still converges', async () => {
    const id = faults.add({ users: [cluster.operatorUser], fraction: 0.5, error: 503 });
    for (let i = 0; i < 3; i++) {
      await churn();
      faults.closeWatches();
      await new Promise((r) => setTimeout(r, 300));
    }
    faults.remove(id);
    await assertConverged('intermittent 503s');
  });
});

describe('informer cache across an API server restart', () => {
  it('converges to the restarted server state', async () => {
    // the embedded server keeps its objects across a restart in a data directory; etcd keeps kube-apiserver's
    const dataDir = mkdtempSync(join(tmpdir(), 'mp-kube-restart-'));
    const cluster = await startCluster(testBackend() === 'real' ? {} : { dataDir });
    const injection = await injectFaults(cluster);
    const metrics = new RuntimeMetrics();
    const client = await KubeClient.create(injection.route(cluster.operatorKubeconfig), { metrics, timeoutMs: 3000 });
    const cache = new Cache({
      client,
      metrics,
      logger: quiet,
      tuning: { inactivityTimeoutMs: 1500, backoffInitialMs: 100, backoffMaxMs: 1000 },
    });
    try {
      await ensureNamespace(cluster.admin, NS);
      for (let i = 0; i < 5; i++) await cluster.admin.create(widget(`before-${i}`, NS, i));
      cache.start();
      const inf = await cache.informer(Widgets, { namespace: NS });
      await inf.synced;
      const mirror = new EventMirror();
      mirror.attach(inf);
      await injection.restartApiServer();
      await cluster.admin.create(widget('after-restart', NS));
      await cluster.admin.delete(Widgets, 'before-0', NS);
      await cluster.admin.patch(Widgets, 'before-1', NS, { spec: { note: 'changed after restart' } }, 'merge');
      let fresh = '';
      await waitFor(
        async () => {
          fresh = snapshot((await cluster.admin.list(Widgets, { namespace: NS })).items);
          return snapshot(inf.store.list()) === fresh;
        },
        'cache equal to a fresh list after the restart',
        30_000,
      );
      const told = [...mirror.state.entries()]
        .map(([n, rv]) => `${n}@${rv}`)
        .sort()
        .join(',');
      assert.equal(told, fresh);
    } finally {
      await cache.stop();
      client.close();
      await injection.stop();
      await cluster.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
