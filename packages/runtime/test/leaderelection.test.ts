import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/client/errors.ts';
import { Logger } from '../src/log.ts';
import {
  type Clock,
  LeaderElector,
  type LeaseRecord,
  type LeaseStore,
  type StoredLease,
} from '../src/manager/leaderelection.ts';
import { RuntimeMetrics } from '../src/metrics.ts';

/** a clock whose sleeps only end when the test advances time */
class FakeClock implements Clock {
  t = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const timer = { at: this.t + ms, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((x) => x !== timer);
          resolve();
        },
        { once: true },
      );
    });
  }
  /** moves time forward, waking sleepers in order and letting their async work settle in between */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.resolve();
    }
    this.t = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

class MemoryLeaseStore {
  lease: StoredLease | undefined;
  private rv = 0;
  writes = 0;
  get(): StoredLease | undefined {
    return this.lease && structuredClone(this.lease);
  }
  create(record: LeaseRecord): StoredLease {
    if (this.lease) throw new ApiError({ code: 409, reason: 'AlreadyExists', message: 'leases "l" already exists' });
    this.writes++;
    this.lease = { record: { ...record }, resourceVersion: String(++this.rv) };
    return structuredClone(this.lease);
  }
  update(record: LeaseRecord, rv: string): StoredLease {
    if (!this.lease || this.lease.resourceVersion !== rv)
      throw new ApiError({ code: 409, reason: 'Conflict', message: 'the object has been modified' });
    this.writes++;
    this.lease = { record: { ...record }, resourceVersion: String(++this.rv) };
    return structuredClone(this.lease);
  }
  /** one candidate's view; `down` makes every call fail as if that process lost the network */
  view(): LeaseStore & { down: boolean } {
    const v = {
      down: false,
      get: async () => this.guard(v.down, () => this.get()),
      create: async (r: LeaseRecord) => this.guard(v.down, () => this.create(r)),
      update: async (r: LeaseRecord, rv: string) => this.guard(v.down, () => this.update(r, rv)),
    };
    return v;
  }
  private guard<T>(down: boolean, fn: () => T): T {
    if (down)
      throw new ApiError({
        code: 0,
        reason: 'NetworkError',
        message: 'connect ECONNREFUSED',
        network: 'connection-refused',
      });
    return fn();
  }
}

interface Candidate {
  elector: LeaderElector;
  store: LeaseStore & { down: boolean };
  log: string[];
  run: Promise<void>;
}

function candidate(
  id: string,
  store: MemoryLeaseStore,
  clock: FakeClock,
  opts: { releaseOnCancel?: boolean } = {},
): Candidate {
  const view = store.view();
  const log: string[] = [];
  const elector = new LeaderElector({
    identity: id,
    name: 'test-lease',
    store: view,
    clock,
    random: () => 0,
    logger: new Logger({}, 'silent'),
    metrics: new RuntimeMetrics(),
    ...(opts.releaseOnCancel !== undefined ? { releaseOnCancel: opts.releaseOnCancel } : {}),
  });
  const run = elector.run({
    onStartedLeading: () => void log.push(`start@${clock.now()}`),
    onStoppedLeading: () => void log.push(`stop@${clock.now()}`),
  });
  return { elector, store: view, log, run };
}

describe('LeaderElector (15 s lease, 10 s renew deadline, 2 s retry)', () => {
  it('exactly one of two candidates leads, and keeps leading while it renews', async () => {
    const clock = new FakeClock();
    const store = new MemoryLeaseStore();
    const a = candidate('a', store, clock);
    await clock.advance(0);
    const b = candidate('b', store, clock);
    await clock.advance(60_000);
    assert.equal(a.elector.isLeader, true);
    assert.equal(b.elector.isLeader, false);
    assert.deepEqual(a.log, ['start@0']);
    assert.deepEqual(b.log, []);
    assert.equal(store.lease?.record.holderIdentity, 'a');
    assert.equal(store.lease?.record.leaseDurationSeconds, 15);
    assert.ok(store.writes >= 25 && store.writes <= 35, `renewed every 2 s: ${store.writes} writes in 60 s`);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('a leader that cannot renew stops after the renew deadline; the other takes over once the lease expires', async () => {
    const clock = new FakeClock();
    const store = new MemoryLeaseStore();
    const a = candidate('a', store, clock, { releaseOnCancel: false });
    await clock.advance(0);
    const b = candidate('b', store, clock);
    await clock.advance(10_000);
    const lastRenew = clock.now();
    a.store.down = true;
    await clock.advance(30_000);
    const stopped = Number(a.log.find((l) => l.startsWith('stop@'))!.slice(5));
    const started = Number(b.log.find((l) => l.startsWith('start@'))!.slice(6));
    assert.ok(stopped - lastRenew <= 12_000, `old leader stopped ${stopped - lastRenew} ms after its last renew`);
    assert.ok(
      started - lastRenew >= 15_000,
      `new leader started ${started - lastRenew} ms after the last renew, before expiry`,
    );
    assert.ok(started - lastRenew <= 18_000, `new leader took ${started - lastRenew} ms`);
    assert.ok(stopped < started, 'the old leader stops before the new one starts');
    assert.equal(store.lease?.record.holderIdentity, 'b');
    assert.equal(store.lease?.record.leaseTransitions, 1);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('stop() releases the lease so the standby leads within one retry period', async () => {
    const clock = new FakeClock();
    const store = new MemoryLeaseStore();
    const a = candidate('a', store, clock);
    await clock.advance(0);
    const b = candidate('b', store, clock);
    await clock.advance(5_000);
    const stopping = a.elector.stop();
    await clock.advance(0);
    await stopping;
    assert.equal(store.lease?.record.holderIdentity, '');
    const t0 = clock.now();
    await clock.advance(3_000);
    const started = Number(b.log[0]!.slice(6));
    assert.ok(started - t0 <= 2_500, `standby took ${started - t0} ms`);
    assert.deepEqual(a.log, ['start@0', `stop@${t0}`]);
    await b.elector.stop();
  });

  it('a leader that sees another holder in the lease stops at once', async () => {
    const clock = new FakeClock();
    const store = new MemoryLeaseStore();
    const a = candidate('a', store, clock);
    await clock.advance(1_000);
    store.lease = { record: { ...store.lease!.record, holderIdentity: 'intruder' }, resourceVersion: '999' };
    await clock.advance(2_100);
    assert.equal(a.elector.isLeader, false);
    assert.equal(a.log.length, 2);
    await a.elector.stop();
  });

  it('rejects durations that cannot work', () => {
    assert.throws(
      () =>
        new LeaderElector({
          identity: 'x',
          name: 'l',
          store: new MemoryLeaseStore().view(),
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
          retryPeriodMs: 2_000,
        }),
      /leaseDuration > renewDeadline > retryPeriod/,
    );
  });
});
