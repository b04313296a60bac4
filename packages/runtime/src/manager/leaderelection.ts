// Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm:
//  - a candidate takes the lease when it is absent, released (no holder) or expired, judged by how long
//    *this* process has seen the record unchanged (never by comparing clocks across machines);
//  - the leader renews every retryPeriod; if it cannot renew within renewDeadline it stops leading;
//  - on a clean stop the leader releases the lease so a successor need not wait for expiry.
// The lease store and clock are injected, so the state machine is tested without a server or real time.

import type { KubeClient } from '../client/client.ts';
import { isNotFound } from '../client/errors.ts';
import { sleep } from '../controller/backoff.ts';
import { microTime } from '../events.ts';
import { type Logger, rootLogger } from '../log.ts';
import { type KubeObject, kindRef } from '../meta/types.ts';
import { type RuntimeMetrics, sharedMetrics } from '../metrics.ts';

export interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface StoredLease {
  record: LeaseRecord;
  resourceVersion: string;
}

export interface LeaseStore {
  /** undefined when the lease does not exist */
  get(): Promise<StoredLease | undefined>;
  /** creates the lease; rejects if it already exists */
  create(record: LeaseRecord): Promise<StoredLease>;
  /** replaces the record if the resourceVersion is still current; rejects with a conflict otherwise */
  update(record: LeaseRecord, resourceVersion: string): Promise<StoredLease>;
}

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep };

export interface LeaderElectionOptions {
  /** unique per process, e.g. `${hostname}_${uuid}` */
  identity: string;
  store: LeaseStore;
  /** lease name for logs and the leader_election_master_status metric */
  name: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** give the lease up on stop() so the next leader starts at once (default true) */
  releaseOnCancel?: boolean;
  clock?: Clock;
  random?: () => number;
  logger?: Logger;
  metrics?: RuntimeMetrics;
}

export interface LeaderCallbacks {
  /** leadership acquired; the signal aborts when it is lost or the elector stops */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** leadership lost or given up; awaited before campaigning again */
  onStoppedLeading(): void | Promise<void>;
  onNewLeader?(identity: string): void;
}

export class LeaderElector {
  readonly identity: string;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: Logger;
  private readonly metrics: RuntimeMetrics;
  private observed: LeaseRecord | undefined;
  private observedRV = '';
  private observedAt = 0;
  private lastLeader = '';
  private leading = false;
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly opts: LeaderElectionOptions) {
    this.identity = opts.identity;
    this.leaseMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryMs = opts.retryPeriodMs ?? 2_000;
    if (!(this.leaseMs > this.renewDeadlineMs && this.renewDeadlineMs > this.retryMs && this.retryMs > 0)) {
      throw new Error(
        `leader election "${opts.name}": need leaseDuration > renewDeadline > retryPeriod > 0, got ${this.leaseMs}/${this.renewDeadlineMs}/${this.retryMs} ms`,
      );
    }
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.log = (opts.logger ?? rootLogger()).child({
      component: 'leader-election',
      lease: opts.name,
      identity: opts.identity,
    });
    this.metrics = opts.metrics ?? sharedMetrics();
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** campaigns, leads, and campaigns again after losing, until stop() */
  run(callbacks: LeaderCallbacks): Promise<void> {
    this.running ??= this.loop(callbacks);
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    await this.running;
  }

  private async loop(cb: LeaderCallbacks): Promise<void> {
    const stop = this.stopController.signal;
    this.metrics.leaderStatus.set({ name: this.opts.name }, 0);
    while (!stop.aborted) {
      if (!(await this.acquire(cb))) break;
      this.leading = true;
      this.metrics.leaderStatus.set({ name: this.opts.name }, 1);
      this.log.info('became leader');
      const leadership = new AbortController();
      const onStop = () => leadership.abort();
      stop.addEventListener('abort', onStop, { once: true });
      try {
        await cb.onStartedLeading(leadership.signal);
      } catch (err) {
        this.log.error('onStartedLeading failed', { error: err });
      }
      await this.renewUntilLost();
      stop.removeEventListener('abort', onStop);
      leadership.abort();
      this.leading = false;
      this.metrics.leaderStatus.set({ name: this.opts.name }, 0);
      this.log.info(stop.aborted ? 'stopping leadership' : 'lost leadership');
      try {
        await cb.onStoppedLeading();
      } catch (err) {
        this.log.error('onStoppedLeading failed', { error: err });
      }
      if (stop.aborted && (this.opts.releaseOnCancel ?? true)) await this.release();
    }
  }

  /** retries until the lease is ours (true) or the elector stops (false) */
  private async acquire(cb: LeaderCallbacks): Promise<boolean> {
    const stop = this.stopController.signal;
    while (!stop.aborted) {
      const ok = await this.tryAcquireOrRenew();
      const holder = this.observed?.holderIdentity ?? '';
      if (holder && holder !== this.lastLeader) {
        this.lastLeader = holder;
        cb.onNewLeader?.(holder);
      }
      if (ok) return true;
      await this.clock.sleep(this.retryMs * (1 + 0.2 * this.random()), stop);
    }
    return false;
  }

  private async renewUntilLost(): Promise<void> {
    const stop = this.stopController.signal;
    let lastRenew = this.clock.now();
    while (!stop.aborted) {
      await this.clock.sleep(this.retryMs, stop);
      if (stop.aborted) return;
      const ok = await this.tryAcquireOrRenew();
      const now = this.clock.now();
      if (ok) {
        lastRenew = now;
        continue;
      }
      const holder = this.observed?.holderIdentity;
      if (holder && holder !== this.identity) {
        this.log.warn('lease taken by another candidate', { holder });
        return;
      }
      if (now - lastRenew >= this.renewDeadlineMs) {
        this.log.warn('could not renew the lease within the renew deadline', { renewDeadlineMs: this.renewDeadlineMs });
        return;
      }
    }
  }

  /** one attempt; any error counts as "not acquired" */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const desired: LeaseRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.leaseMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    try {
      const current = await this.withTimeout(this.opts.store.get());
      if (!current) {
        const created = await this.withTimeout(this.opts.store.create(desired));
        this.observe(created, now);
        return true;
      }
      if (current.resourceVersion !== this.observedRV) this.observe(current, now);
      const rec = current.record;
      const holder = rec.holderIdentity ?? '';
      const expiresAt = this.observedAt + (rec.leaseDurationSeconds ?? 0) * 1000;
      if (holder && holder !== this.identity && expiresAt > now) return false;
      if (holder === this.identity) {
        desired.acquireTime = rec.acquireTime ?? desired.acquireTime;
        desired.leaseTransitions = rec.leaseTransitions ?? 0;
      } else {
        desired.leaseTransitions = (rec.leaseTransitions ?? 0) + 1;
      }
      const updated = await this.withTimeout(this.opts.store.update(desired, current.resourceVersion));
      this.observe(updated, now);
      return true;
    } catch (err) {
      this.log.debug('lease attempt failed', { error: err });
      return false;
    }
  }

  private observe(lease: StoredLease, at: number): void {
    this.observed = lease.record;
    this.observedRV = lease.resourceVersion;
    this.observedAt = at;
  }

  /** a hung request must not hold the elector past its deadlines */
  private withTimeout<T>(p: Promise<T>): Promise<T> {
    const ms = this.renewDeadlineMs;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`lease request took longer than ${ms} ms`)), ms);
      timer.unref();
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private async release(): Promise<void> {
    try {
      const current = await this.withTimeout(this.opts.store.get());
      if (!current || current.record.holderIdentity !== this.identity) return;
      const now = microTime(this.clock.now());
      await this.withTimeout(
        this.opts.store.update(
          { ...current.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
          current.resourceVersion,
        ),
      );
      this.log.info('released the lease');
    } catch (err) {
      this.log.warn('could not release the lease', { error: err });
    }
  }
}

interface LeaseObject extends KubeObject {
  spec?: LeaseRecord;
}

export const Leases = kindRef<LeaseObject>('coordination.k8s.io/v1', 'Lease');

/** a LeaseStore on a coordination.k8s.io/v1 Lease through the API server */
export function apiLeaseStore(client: KubeClient, namespace: string, name: string): LeaseStore {
  const toStored = (l: LeaseObject): StoredLease => ({
    record: l.spec ?? {},
    resourceVersion: l.metadata.resourceVersion ?? '',
  });
  return {
    async get() {
      try {
        return toStored(await client.get(Leases, name, namespace));
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async create(record) {
      return toStored(
        await client.create<LeaseObject>({
          apiVersion: Leases.apiVersion,
          kind: Leases.kind,
          metadata: { name, namespace },
          spec: record,
        }),
      );
    },
    async update(record, resourceVersion) {
      return toStored(
        await client.update<LeaseObject>({
          apiVersion: Leases.apiVersion,
          kind: Leases.kind,
          metadata: { name, namespace, resourceVersion },
          spec: record,
        }),
      );
    },
  };
}
