import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../src/client/errors.ts';
import { AggregatingRecorder, type EventSeries, type EventSink, type KubeEvent, microTime } from '../src/events.ts';
import { Logger } from '../src/log.ts';
import type { KubeObject } from '../src/meta/types.ts';

class MemorySink implements EventSink {
  readonly created: KubeEvent[] = [];
  readonly updates: Array<{ name: string; series: EventSeries }> = [];
  /** resolves writes only when released, to test coalescing */
  gate: Promise<void> | undefined;
  missing = new Set<string>();
  async create(ev: KubeEvent): Promise<void> {
    await this.gate;
    this.created.push(structuredClone(ev));
  }
  async updateSeries(_ns: string, name: string, series: EventSeries): Promise<void> {
    await this.gate;
    if (this.missing.has(name))
      throw new ApiError({ code: 404, reason: 'NotFound', message: `events "${name}" not found` });
    this.updates.push({ name, series: { ...series } });
  }
}

const widget: KubeObject = {
  apiVersion: 'test.modelplane.io/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
};
const quiet = new Logger({}, 'silent');

function recorder(sink: MemorySink, clock: { t: number }, windowMs?: number) {
  return new AggregatingRecorder({
    reportingController: 'modelplane.io/widget',
    reportingInstance: 'widget-test',
    sink,
    now: () => clock.t,
    logger: quiet,
    ...(windowMs ? { windowMs } : {}),
  });
}

describe('AggregatingRecorder', () => {
  it('creates an events.k8s.io/v1 Event with the required fields', async () => {
    const sink = new MemorySink();
    const r = recorder(sink, { t: Date.parse('2026-01-02T03:04:05.678Z') });
    r.event(widget, 'Warning', 'ConfigInvalid', 'spec.size must be positive');
    await r.drain();
    assert.equal(sink.created.length, 1);
    const ev = sink.created[0]!;
    assert.equal(ev.apiVersion, 'events.k8s.io/v1');
    assert.equal(ev.metadata.namespace, 'ns');
    assert.match(ev.metadata.name!, /^w\.[0-9a-f]{16}$/);
    assert.equal(ev.eventTime, '2026-01-02T03:04:05.678000Z');
    assert.equal(ev.reportingController, 'modelplane.io/widget');
    assert.equal(ev.reportingInstance, 'widget-test');
    assert.equal(ev.action, 'ConfigInvalid');
    assert.equal(ev.type, 'Warning');
    assert.equal(ev.note, 'spec.size must be positive');
    assert.deepEqual(ev.regarding, {
      apiVersion: 'test.modelplane.io/v1',
      kind: 'Widget',
      name: 'w',
      namespace: 'ns',
      uid: 'u1',
      resourceVersion: '5',
    });
    assert.equal(ev.series, undefined);
  });

  it('a repeat (same reason, object, message) bumps series.count and lastObservedTime instead of creating', async () => {
    const sink = new MemorySink();
    const clock = { t: 1_000_000 };
    const r = recorder(sink, clock);
    r.event(widget, 'Warning', 'Failed', 'boom');
    await r.drain();
    clock.t += 5000;
    r.event(widget, 'Warning', 'Failed', 'boom');
    await r.drain();
    clock.t += 5000;
    r.event(widget, 'Warning', 'Failed', 'boom');
    await r.drain();
    assert.equal(sink.created.length, 1);
    assert.deepEqual(
      sink.updates.map((u) => u.series.count),
      [2, 3],
    );
    assert.equal(sink.updates[1]!.series.lastObservedTime, microTime(1_010_000));
    assert.equal(sink.updates[0]!.name, sink.created[0]!.metadata.name);
  });

  it('different messages, reasons, types or objects are separate events', async () => {
    const sink = new MemorySink();
    const r = recorder(sink, { t: 0 });
    r.event(widget, 'Warning', 'Failed', 'a');
    r.event(widget, 'Warning', 'Failed', 'b');
    r.event(widget, 'Warning', 'Other', 'a');
    r.event(widget, 'Normal', 'Failed', 'a');
    r.event({ ...widget, metadata: { ...widget.metadata, name: 'w2', uid: 'u2' } }, 'Warning', 'Failed', 'a');
    await r.drain();
    assert.equal(sink.created.length, 5);
    assert.equal(sink.updates.length, 0);
  });

  it('repeats while a write is in flight coalesce into one series update with the latest count', async () => {
    const sink = new MemorySink();
    let release!: () => void;
    sink.gate = new Promise((res) => (release = res));
    const r = recorder(sink, { t: 0 });
    for (let i = 0; i < 10; i++) r.event(widget, 'Warning', 'Failed', 'boom');
    release();
    await r.drain();
    assert.equal(sink.created.length, 1);
    assert.equal(sink.updates.length, 1);
    assert.equal(sink.updates[0]!.series.count, 10);
  });

  it('after the aggregation window a repeat starts a new Event', async () => {
    const sink = new MemorySink();
    const clock = { t: 0 };
    const r = recorder(sink, clock, 60_000);
    r.event(widget, 'Normal', 'Synced', 'ok');
    await r.drain();
    clock.t += 61_000;
    r.event(widget, 'Normal', 'Synced', 'ok');
    await r.drain();
    assert.equal(sink.created.length, 2);
  });

  it('an expired Event is recreated carrying the series so far', async () => {
    const sink = new MemorySink();
    const r = recorder(sink, { t: 0 });
    r.event(widget, 'Warning', 'Failed', 'boom');
    await r.drain();
    sink.missing.add(sink.created[0]!.metadata.name!);
    r.event(widget, 'Warning', 'Failed', 'boom');
    await r.drain();
    assert.equal(sink.created.length, 2);
    assert.equal(sink.created[1]!.series?.count, 2);
    assert.notEqual(sink.created[1]!.metadata.name, sink.created[0]!.metadata.name);
  });

  it('never throws into the caller when the sink fails', async () => {
    const sink: EventSink = {
      create: async () => {
        throw new Error('api down');
      },
      updateSeries: async () => {},
    };
    const r = new AggregatingRecorder({ reportingController: 'modelplane.io/x', sink, logger: quiet });
    assert.doesNotThrow(() => r.event(widget, 'Normal', 'R', 'n'));
    await r.drain();
  });

  it('cluster-scoped objects get their events in the default namespace', async () => {
    const sink = new MemorySink();
    const r = recorder(sink, { t: 0 });
    r.event({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', uid: 'n1' } }, 'Normal', 'Seen', 'hello');
    await r.drain();
    assert.equal(sink.created[0]!.metadata.namespace, 'default');
    assert.equal(sink.created[0]!.regarding.namespace, undefined);
  });
});
