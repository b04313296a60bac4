import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff, randomBetween, sleep } from '../src/controller/backoff.ts';
import {
  BucketRateLimiter,
  DEFAULT_MAX_RETRY_DELAY_MS,
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
} from '../src/controller/ratelimit.ts';

describe('ItemExponentialRateLimiter', () => {
  it('doubles from 5 ms per failure and caps at 1000 s (controller-runtime defaults)', () => {
    const l = new ItemExponentialRateLimiter();
    const cases: Array<[failures: number, expectedMs: number]> = [
      [1, 5],
      [2, 10],
      [3, 20],
      [10, 2560],
      [18, 655_360],
      [19, 1000_000],
      [200, 1000_000],
    ];
    let n = 0;
    for (const [failures, expected] of cases) {
      let d = 0;
      while (n < failures) {
        d = l.when('k');
        n++;
      }
      assert.equal(d, expected, `after ${failures} failures`);
    }
    assert.equal(l.numRequeues('k'), 200);
  });

  it('keeps keys independent and forget resets one', () => {
    const l = new ItemExponentialRateLimiter(5, 1000);
    l.when('a');
    l.when('a');
    assert.equal(l.when('b'), 5);
    assert.equal(l.when('a'), 20);
    l.forget('a');
    assert.equal(l.when('a'), 5);
  });

  it('rejects a max below the base', () => {
    assert.throws(() => new ItemExponentialRateLimiter(10, 5), /base=10 max=5/);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through at once, then spaces callers 1/qps apart, refilling with time', () => {
    let now = 0;
    const l = new BucketRateLimiter(10, 3, () => now);
    assert.deepEqual([l.when('a'), l.when('b'), l.when('c')], [0, 0, 0]);
    assert.equal(Math.round(l.when('d')), 100);
    assert.equal(Math.round(l.when('e')), 200);
    now = 1000;
    // 1 s at 10 qps refills 10 tokens, minus the 2 borrowed, capped at burst 3
    assert.deepEqual([l.when('f'), l.when('g'), l.when('h')], [0, 0, 0]);
    assert.equal(Math.round(l.when('i')), 100);
  });
});

describe('MaxOfRateLimiter', () => {
  it('returns the longest delay of its limiters and forgets in all', () => {
    let now = 0;
    const l = new MaxOfRateLimiter(new ItemExponentialRateLimiter(5, 1000), new BucketRateLimiter(1, 1, () => now));
    assert.equal(l.when('a'), 5);
    assert.equal(Math.round(l.when('a')), 1000);
    now = 5000;
    assert.equal(l.when('a'), 20);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it("every controller's failing key backs off from 5 ms to at most 30 s, not controller-runtime's 1000 s", () => {
    const l = defaultControllerRateLimiter();
    assert.equal(DEFAULT_MAX_RETRY_DELAY_MS, 30_000);
    assert.equal(l.when('k'), 5);
    let d = 0;
    // 40 failures of one key: the overall bucket (burst 100) is not what limits it
    for (let i = 0; i < 40; i++) d = l.when('k');
    assert.equal(d, 30_000);
    l.forget('k');
    assert.equal(l.when('k'), 5);
  });

  it('a burst of failures over many keys leaves none waiting longer than 30 s (the overall bucket is capped too)', () => {
    const l = defaultControllerRateLimiter();
    let longest = 0;
    for (let i = 0; i < 2000; i++) longest = Math.max(longest, l.when(`key-${i}`));
    assert.equal(longest, DEFAULT_MAX_RETRY_DELAY_MS, 'without the cap the 2000th key would wait 190 s');
  });
});

describe('Backoff', () => {
  it('grows exponentially without jitter and stops at the cap', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    assert.deepEqual(
      Array.from({ length: 6 }, () => b.next()),
      [100, 200, 400, 800, 1000, 1000],
    );
    b.reset();
    assert.equal(b.next(), 100);
  });

  it('adds up to `jitter` of the delay at random but never exceeds the cap', () => {
    const high = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0.999 });
    assert.equal(Math.round(high.next()), 150);
    for (let i = 0; i < 10; i++) assert.ok(high.next() <= 1000);
    const low = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0 });
    assert.equal(low.next(), 100);
  });

  it('rejects nonsensical bounds', () => {
    assert.throws(() => new Backoff({ initialMs: 0, maxMs: 10 }), /initialMs=0/);
  });

  it('sleep resolves early when aborted', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 10);
    await sleep(5000, ac.signal);
    assert.ok(Date.now() - t0 < 1000);
  });

  it('randomBetween covers both bounds', () => {
    assert.equal(
      randomBetween(300, 600, () => 0),
      300,
    );
    assert.equal(
      randomBetween(300, 600, () => 0.9999),
      600,
    );
  });
});
