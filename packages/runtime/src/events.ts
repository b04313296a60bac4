// Events (events.k8s.io/v1) with aggregation of repeats: an event with the same type, reason, action,
// object and note as a recent one is not written again; the existing Event's `series` is bumped instead
// (count and lastObservedTime), which is how kube-apiserver-era clients keep a crash-looping controller
// from flooding etcd. Recording never throws and never blocks a reconcile: writes happen in the
// background and failures are logged.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KubeClient } from './client/client.ts';
import { isNotFound } from './client/errors.ts';
import { type Logger, rootLogger } from './log.ts';
import { type KubeObject, kindRef } from './meta/types.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventSeries {
  count: number;
  lastObservedTime: string;
}

export interface KubeEvent extends KubeObject {
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note?: string;
  type: EventType;
  regarding: {
    apiVersion: string;
    kind: string;
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  series?: EventSeries;
}

export const EventsV1 = kindRef<KubeEvent>('events.k8s.io/v1', 'Event');

/** where events go; the API server in production, an array in unit tests */
export interface EventSink {
  create(ev: KubeEvent): Promise<void>;
  /** bumps the series of an existing event; rejects with a NotFound ApiError when it is gone */
  updateSeries(namespace: string, name: string, series: EventSeries): Promise<void>;
}

export interface EventRecorder {
  event(regarding: KubeObject, type: EventType, reason: string, note: string, action?: string): void;
}

export interface RecorderOptions {
  /** e.g. `modelplane.io/aimservice` */
  reportingController: string;
  reportingInstance?: string;
  sink: EventSink;
  /** repeats within this window join the series (default 10 min) */
  windowMs?: number;
  /** how many distinct series are remembered (default 4096) */
  maxSeries?: number;
  now?: () => number;
  logger?: Logger;
}

interface SeriesState {
  namespace: string;
  name: string;
  count: number;
  lastObserved: number;
  /** a create or update is in flight */
  writing: boolean;
  /** occurrences not yet written */
  dirty: boolean;
  created: boolean;
  template: KubeEvent;
}

/** MicroTime: RFC 3339 with microseconds, as the API server expects for eventTime */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class AggregatingRecorder implements EventRecorder {
  private readonly series = new Map<string, SeriesState>();
  private readonly windowMs: number;
  private readonly maxSeries: number;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly instance: string;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly opts: RecorderOptions) {
    this.windowMs = opts.windowMs ?? 10 * 60_000;
    this.maxSeries = opts.maxSeries ?? 4096;
    this.now = opts.now ?? Date.now;
    this.instance = opts.reportingInstance ?? `${opts.reportingController.split('/').pop()}-${hostname()}`;
    this.log = (opts.logger ?? rootLogger()).child({
      component: 'events',
      reportingController: opts.reportingController,
    });
  }

  event(regarding: KubeObject, type: EventType, reason: string, note: string, action: string = reason): void {
    const meta = regarding.metadata;
    const key = [
      type,
      reason,
      action,
      regarding.apiVersion,
      regarding.kind,
      meta.namespace ?? '',
      meta.name ?? '',
      meta.uid ?? '',
      note,
    ].join('\u0000');
    const now = this.now();
    const existing = this.series.get(key);
    if (existing && now - existing.lastObserved <= this.windowMs) {
      existing.count++;
      existing.lastObserved = now;
      existing.dirty = true;
      // refresh LRU position
      this.series.delete(key);
      this.series.set(key, existing);
      this.flush(key, existing);
      return;
    }
    const namespace = meta.namespace || 'default';
    const name = `${meta.name ?? 'unknown'}.${randomBytes(8).toString('hex')}`;
    const template: KubeEvent = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: this.opts.reportingController,
      reportingInstance: this.instance,
      action,
      reason,
      note: note.length > 1024 ? `${note.slice(0, 1021)}...` : note,
      type,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: meta.name ?? '',
        ...(meta.namespace ? { namespace: meta.namespace } : {}),
        ...(meta.uid ? { uid: meta.uid } : {}),
        ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
      },
    };
    const state: SeriesState = {
      namespace,
      name,
      count: 1,
      lastObserved: now,
      writing: false,
      dirty: true,
      created: false,
      template,
    };
    this.series.delete(key);
    this.series.set(key, state);
    while (this.series.size > this.maxSeries) this.series.delete(this.series.keys().next().value!);
    this.flush(key, state);
  }

  /** resolves when every write started so far has finished (tests, graceful shutdown) */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** writes the state of one series; at most one write per series is in flight, later repeats coalesce */
  private flush(key: string, s: SeriesState): void {
    if (s.writing || !s.dirty) return;
    s.writing = true;
    s.dirty = false;
    const p = this.write(key, s)
      .catch((err) =>
        this.log.warn('could not record event', {
          reason: s.template.reason,
          regarding: `${s.template.regarding.kind}/${s.template.regarding.name}`,
          error: err,
        }),
      )
      .finally(() => {
        s.writing = false;
        this.pending.delete(p);
        if (s.dirty) this.flush(key, s);
      });
    this.pending.add(p);
  }

  private async write(_key: string, s: SeriesState): Promise<void> {
    if (!s.created) {
      const ev: KubeEvent = { ...s.template };
      if (s.count > 1) ev.series = { count: s.count, lastObservedTime: microTime(s.lastObserved) };
      await this.opts.sink.create(ev);
      s.created = true;
      return;
    }
    const series = { count: s.count, lastObservedTime: microTime(s.lastObserved) };
    try {
      await this.opts.sink.updateSeries(s.namespace, s.name, series);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // the Event expired (TTL) or was deleted: start a fresh one carrying the series so far
      s.name = `${s.template.regarding.name}.${randomBytes(8).toString('hex')}`;
      s.template = { ...s.template, metadata: { name: s.name, namespace: s.namespace } };
      await this.opts.sink.create({ ...s.template, series });
    }
  }
}

/** an EventSink writing to the API server through `client` */
export function apiEventSink(client: KubeClient): EventSink {
  return {
    async create(ev) {
      await client.create(ev);
    },
    async updateSeries(namespace, name, series) {
      await client.patch(EventsV1, name, namespace, { series }, 'merge');
    },
  };
}

/** a recorder that drops everything (for code paths without an API server) */
export const discardRecorder: EventRecorder = { event() {} };
