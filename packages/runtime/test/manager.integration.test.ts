import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '../src/log.ts';
import { Manager } from '../src/manager/manager.ts';
import { kindRef } from '../src/meta/types.ts';
import { StubApiServer, waitFor } from './helpers/stub-apiserver.ts';

const Widgets = kindRef('test.modelplane.io/v1', 'Widget');
const quiet = new Logger({}, 'silent');

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

describe('Manager', () => {
  let stub: StubApiServer;

  before(async () => {
    stub = await new StubApiServer().start();
  });
  after(async () => {
    await stub.close();
  });
  /** a manager campaigning for `leaseName` in namespace ns with short, test-sized lease timings */
  const electing = (identity: string, leaseName: string) =>
    Manager.create({
      kubeconfig: stub.kubeconfig(),
      logger: quiet,
      leaderElection: {
        enabled: true,
        identity,
        leaseName,
        leaseNamespace: 'ns',
        leaseDurationMs: 1500,
        renewDeadlineMs: 1000,
        retryPeriodMs: 100,
      },
    });

  it('serves /metrics, /healthz and /readyz; ready only once caches synced', async () => {
    stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: 'm1', namespace: 'ns' } });
    stub.holdLists = true;
    const mgr = await Manager.create({ kubeconfig: stub.kubeconfig(), httpPort: 0, logger: quiet });
    let reconciles = 0;
    mgr
      .controller('probe')
      .for(Widgets)
      .complete(async () => {
        reconciles++;
      });
    const starting = mgr.start();
    await waitFor(() => mgr.url !== undefined, 'server listening');
    const notReady = await get(`${mgr.url}/readyz`);
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /\[-\]informer-sync failed: caches not synced yet/);
    assert.equal((await get(`${mgr.url}/healthz`)).status, 200);
    stub.holdLists = false;
    await starting;
    await waitFor(async () => (await get(`${mgr.url}/readyz`)).status === 200, 'ready after sync', 10_000);
    await waitFor(() => reconciles === 1, 'reconciled');
    const metrics = await get(`${mgr.url}/metrics`);
    assert.equal(metrics.status, 200);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_time_seconds',
      'workqueue_depth',
      'workqueue_adds_total',
      'rest_client_requests_total',
      'process_cpu_seconds_total',
    ]) {
      assert.ok(metrics.body.includes(name), `missing ${name}`);
    }
    mgr.addHealthCheck('custom', () => {
      throw new Error('disk full');
    });
    const unhealthy = await get(`${mgr.url}/healthz`);
    assert.equal(unhealthy.status, 500);
    assert.match(unhealthy.body, /\[-\]custom failed: disk full/);
    assert.equal((await get(`${mgr.url}/nope`)).status, 404);
    await mgr.stop();
  });

  it('with leader election exactly one of two managers reconciles; stopping it hands over', async () => {
    for (let i = 0; i < 3; i++)
      stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: `le-${i}`, namespace: 'ns' } });
    const counts = new Map<string, number>();
    const make = async (id: string) => {
      const mgr = await Manager.create({
        kubeconfig: stub.kubeconfig(),
        logger: quiet,
        leaderElection: {
          enabled: true,
          identity: id,
          leaseNamespace: 'ns',
          leaseDurationMs: 1500,
          renewDeadlineMs: 1000,
          retryPeriodMs: 100,
        },
      });
      mgr
        .controller('le')
        .for(Widgets)
        .complete(async (req) => {
          if (req.name.startsWith('le-')) counts.set(id, (counts.get(id) ?? 0) + 1);
        });
      await mgr.start();
      return mgr;
    };
    const a = await make('a');
    const b = await make('b');
    await waitFor(() => a.isLeader || b.isLeader, 'a leader');
    await new Promise((r) => setTimeout(r, 400));
    assert.notEqual(a.isLeader, b.isLeader, 'exactly one leader');
    const [leader, follower, followerId] = a.isLeader ? [a, b, 'b'] : [b, a, 'a'];
    assert.equal(counts.get(followerId) ?? 0, 0, 'the follower reconciled nothing');
    assert.equal(
      [...counts.values()].reduce((x, y) => x + y, 0),
      3,
    );
    const lease = stub.getObject('coordination.k8s.io/v1', 'Lease', 'modelplane-leader', 'ns');
    assert.ok(lease, 'lease created');
    const t0 = Date.now();
    await leader.stop();
    await waitFor(() => follower.isLeader, 'handover', 5000);
    assert.ok(Date.now() - t0 < 2000, `released lease handed over in ${Date.now() - t0} ms`);
    await waitFor(() => (counts.get(followerId) ?? 0) === 3, 'new leader reconciles everything');
    await follower.stop();
  });

  it('a leader whose lease is taken over stops its controllers', async () => {
    stub.put({ apiVersion: 'test.modelplane.io/v1', kind: 'Widget', metadata: { name: 'lost-1', namespace: 'ns' } });
    const mgr = await electing('loser', 'lost');
    const c = mgr
      .controller('lost')
      .for(Widgets)
      .complete(async () => {});
    await mgr.start();
    await waitFor(() => mgr.isLeader && c.isRunning, 'leading with the controller running');
    const lease = stub.getObject('coordination.k8s.io/v1', 'Lease', 'lost', 'ns')!;
    // another candidate takes the lease (e.g. after a long GC pause of ours); it renews it too
    const thief = setInterval(
      () =>
        stub.put({ ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: new Date().toISOString() } }),
      50,
    );
    try {
      await waitFor(() => !mgr.isLeader && !c.isRunning, 'controllers stopped after losing the lease', 5000);
    } finally {
      clearInterval(thief);
    }
    await mgr.stop();
  });
  it('runnables: leader ones start after the controllers and stop before them; others run on a standby too', async () => {
    const log: string[] = [];
    const runnable = (name: string, leader: boolean) => ({
      name,
      start: async () => void log.push(`start ${name}`),
      stop: async () => void log.push(`stop ${name}`),
      needsLeaderElection: () => leader,
    });
    const holder = await electing('holder', 'runnables');
    await holder.start();
    await waitFor(() => holder.isLeader, 'the other manager leads');
    const mgr = await electing('standby', 'runnables');
    const c = mgr
      .controller('with-runnables')
      .for(Widgets)
      .complete(async () => {});
    const originalStart = c.start.bind(c);
    const originalStop = c.stop.bind(c);
    c.start = async () => {
      await originalStart();
      log.push('start controller');
    };
    c.stop = async () => {
      log.push('stop controller');
      await originalStop();
    };
    mgr.add(runnable('registration', true));
    mgr.add(runnable('server', false));
    assert.throws(() => mgr.add(runnable('server', false)), /already exists/);
    await mgr.start();
    assert.deepEqual(log, ['start server'], 'a standby runs only what needs no leader');
    await holder.stop();
    await waitFor(() => mgr.isLeader && log.includes('start registration'), 'leading after the handover');
    assert.deepEqual(log, ['start server', 'start controller', 'start registration']);
    await mgr.stop();
    assert.deepEqual(log.slice(3), ['stop registration', 'stop controller', 'stop server']);
    assert.throws(() => mgr.add(runnable('late', true)), /after start/);
  });
});
