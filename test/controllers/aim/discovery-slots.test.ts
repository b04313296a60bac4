// The discovery-Job count the two template controllers share: reservations count until their Job is listed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiscoverySlots } from '../../../src/controllers/aim/template/discovery-slots.ts';
import { ManualClock } from '../../../src/engine/index.ts';

describe('DiscoverySlots', () => {
  const cases: Array<{
    name: string;
    reserve: string[];
    advanceMs?: number;
    listed: string[];
    active: number;
    want: number;
  }> = [
    { name: 'nothing reserved: the listing alone', reserve: [], listed: ['a/j1'], active: 1, want: 1 },
    { name: 'a planned Job not listed yet counts', reserve: ['a/j2'], listed: ['a/j1'], active: 1, want: 2 },
    { name: 'a planned Job once listed counts once', reserve: ['a/j1'], listed: ['a/j1'], active: 1, want: 1 },
    { name: 'listed and already finished: not counted', reserve: ['a/j1'], listed: ['a/j1'], active: 0, want: 0 },
    { name: 'same name, other namespace: still pending', reserve: ['b/j1'], listed: ['a/j1'], active: 1, want: 2 },
    {
      name: 'a reservation whose Job never came lapses',
      reserve: ['a/j9'],
      advanceMs: 30_001,
      listed: [],
      active: 0,
      want: 0,
    },
    { name: 'within its lifetime it holds', reserve: ['a/j9'], advanceMs: 29_000, listed: [], active: 0, want: 1 },
  ];
  for (const c of cases)
    it(c.name, () => {
      const clock = new ManualClock();
      const slots = new DiscoverySlots(clock);
      for (const r of c.reserve) {
        const [ns, name] = r.split('/');
        slots.reserve(ns!, name!);
      }
      if (c.advanceMs) clock.advance(c.advanceMs);
      assert.equal(slots.inUse(new Set(c.listed), c.active), c.want);
    });

  it('two controllers planning one after the other never exceed the limit between listings', () => {
    const slots = new DiscoverySlots(new ManualClock());
    const listed = new Set<string>();
    let started = 0;
    // both read the same stale listing (9 running); each plans only while the count is under 10
    for (const controller of ['ns', 'cluster'])
      if (slots.inUse(listed, 9) < 10) {
        slots.reserve(controller, 'discover-x');
        started++;
      }
    assert.equal(started, 1);
  });
});
