// scripts/test-schedule.mjs: the order and the pools `npm test` runs its files in (docs/testing.md, "Scheduling").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  costsOf,
  isWaiting,
  loadTable,
  npmTestPools,
  planPools,
  simulatePools,
  WAITING_CONCURRENCY,
  WAITING_CPU_SHARE,
} from '../../scripts/test-schedule.mjs';
import { allTestFiles, isClusterTest } from '../../scripts/test-tiers.mjs';

const COSTS = {
  'test/a.test.ts': { cpu: 1, wall: 1.2 },
  'test/b.integration.test.ts': { cpu: 20, wall: 40 },
  'test/e2e/slow.test.ts': { cpu: 10, wall: 200 },
  'test/e2e/medium.test.ts': { cpu: 5, wall: 60 },
  'test/c.integration.test.ts': { cpu: 8, wall: 9 },
};
const isCluster = (f: string) => /integration|e2e/.test(f);

describe('test schedule', () => {
  it('one pool: longest first, ties in name order', () => {
    const files = [
      'test/a.test.ts',
      'test/c.integration.test.ts',
      'test/e2e/slow.test.ts',
      'test/x.test.ts',
      'test/w.test.ts',
    ];
    const costs = { ...COSTS, 'test/x.test.ts': { cpu: 1, wall: 9 }, 'test/w.test.ts': { cpu: 1, wall: 9 } };
    assert.deepEqual(planPools(files, { costs, isCluster, concurrency: 4 }), [
      {
        concurrency: 4,
        files: [
          'test/e2e/slow.test.ts',
          'test/c.integration.test.ts',
          'test/w.test.ts',
          'test/x.test.ts',
          'test/a.test.ts',
        ],
      },
    ]);
  });

  it('the files that mostly wait get a pool of their own, each pool longest first', () => {
    const pools = planPools(Object.keys(COSTS), { costs: COSTS, isCluster, concurrency: 2, waitingConcurrency: 3 });
    assert.deepEqual(pools, [
      { concurrency: 2, files: ['test/b.integration.test.ts', 'test/c.integration.test.ts', 'test/a.test.ts'] },
      { concurrency: 3, files: ['test/e2e/slow.test.ts', 'test/e2e/medium.test.ts'] },
    ]);
  });

  it('no file is lost or run twice, whatever the costs (seeded)', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 50; round++) {
      const files = Array.from({ length: 1 + Math.floor(rnd() * 30) }, (_, i) => `file-${i}.test.ts`);
      const costs = Object.fromEntries(
        files
          .filter(() => rnd() < 0.8)
          .map((f) => [f, { cpu: rnd() < 0.1 ? Number.NaN : rnd() * 50, wall: rnd() < 0.1 ? 0 : rnd() * 300 }]),
      );
      const pools = planPools(files, { costs, isCluster, concurrency: 2, waitingConcurrency: round % 3 });
      assert.deepEqual(pools.flatMap((p) => p.files).sort(), [...files].sort(), `round ${round}`);
      assert.ok(pools.every((p) => p.files.length > 0 && p.concurrency >= 1));
      if (round % 3 === 0) assert.equal(pools.length, 1, 'no waiting pool without a waiting concurrency');
    }
  });

  it('a file missing from the table (or with a broken entry) costs its tier’s median and counts as CPU-bound', () => {
    const costs = { ...COSTS, 'test/broken.test.ts': { cpu: 1, wall: Number.NaN } };
    const [e2e, unit, broken] = costsOf(
      ['test/e2e/new.test.ts', 'test/new.test.ts', 'test/broken.test.ts'],
      costs,
      isCluster,
    );
    // cluster walls 9, 40, 60, 200 → median 60; unit walls 1.2 (and NaN, left out) → 1.2
    assert.deepEqual(e2e, { file: 'test/e2e/new.test.ts', cpu: 60, wall: 60 });
    assert.deepEqual(unit, { file: 'test/new.test.ts', cpu: 1.2, wall: 1.2 });
    assert.deepEqual(broken, { file: 'test/broken.test.ts', cpu: 1.2, wall: 1.2 });
    assert.equal(isWaiting(e2e!), false);
  });

  it('waiting means a CPU share of the wall time under WAITING_CPU_SHARE of a busy file’s, at the load measured', () => {
    assert.equal(isWaiting({ cpu: WAITING_CPU_SHARE * 100 - 0.1, wall: 100 }), true);
    assert.equal(isWaiting({ cpu: WAITING_CPU_SHARE * 100, wall: 100 }), false);
    // measured under load, a busy file got a fifth of a core: 10 CPU s in 100 s is as busy as it gets
    assert.equal(isWaiting({ cpu: 10, wall: 100 }, 0.2), false);
    assert.equal(isWaiting({ cpu: 9.9, wall: 100 }, 0.2), true);
  });

  it('the waiting pool follows busyCpuShare: a file waits at one load and not at another', () => {
    const costs = { 'test/e2e/x.test.ts': { cpu: 10, wall: 100 }, 'test/y.test.ts': { cpu: 1, wall: 1 } };
    const files = Object.keys(costs);
    const at = (busyCpuShare: number) =>
      planPools(files, { costs, busyCpuShare, isCluster, concurrency: 2, waitingConcurrency: 3 });
    assert.deepEqual(at(1), [
      { concurrency: 2, files: ['test/y.test.ts'] },
      { concurrency: 3, files: ['test/e2e/x.test.ts'] },
    ]);
    assert.deepEqual(at(0.2), [{ concurrency: 2, files: ['test/e2e/x.test.ts', 'test/y.test.ts'] }]);
  });

  it('a missing or unreadable table means name order, with a message for the unreadable one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-costs-'));
    try {
      const empty = { files: {}, busyCpuShare: 1, measured: undefined };
      assert.deepEqual(loadTable(join(dir, 'missing.json')), empty);
      writeFileSync(join(dir, 'bad.json'), '{');
      assert.deepEqual(loadTable(join(dir, 'bad.json')), empty);
      writeFileSync(
        join(dir, 'odd.json'),
        JSON.stringify({ measured: 'by hand', busyCpuShare: -1, files: { 'a.test.ts': { cpu: 1, wall: 2 } } }),
      );
      // a share out of range means an idle machine's
      assert.deepEqual(loadTable(join(dir, 'odd.json')), {
        files: { 'a.test.ts': { cpu: 1, wall: 2 } },
        busyCpuShare: 1,
        measured: 'by hand',
      });
      assert.deepEqual(planPools(['test/b.test.ts', 'test/a.test.ts'], { concurrency: 2 }), [
        { concurrency: 2, files: ['test/a.test.ts', 'test/b.test.ts'] },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm test: the unit tier one file per core in one pool; the rest two CPU-bound beside the waiting ones', () => {
    const table = { files: COSTS, busyCpuShare: 1 };
    const files = Object.keys(COSTS);
    assert.deepEqual(
      npmTestPools(['test/a.test.ts'], { unitOnly: true, table, isCluster, cores: 8 }).map((p) => p.concurrency),
      [8],
    );
    assert.deepEqual(
      npmTestPools(files, { table, isCluster }).map((p) => p.concurrency),
      [2, WAITING_CONCURRENCY],
    );
  });

  it('the simulation: CPU-bound files take their CPU over the cores, however many run at once', () => {
    const costs = Object.fromEntries(['a', 'b', 'c', 'd'].map((n) => [`test/${n}.test.ts`, { cpu: 10, wall: 10 }]));
    const files = Object.keys(costs);
    for (const concurrency of [2, 4])
      assert.ok(Math.abs(simulatePools([{ concurrency, files }], costs) - 20) < 1e-6, `${concurrency} at a time`);
    assert.ok(Math.abs(simulatePools([{ concurrency: 1, files }], costs) - 40) < 1e-6, 'one at a time');
  });

  it('the simulation: two waiting files first, two at a time, hold the cores idle; beside the busy ones they do not', () => {
    const costs = {
      'test/e2e/w1.test.ts': { cpu: 1, wall: 100 },
      'test/e2e/w2.test.ts': { cpu: 1, wall: 100 },
      'test/b1.test.ts': { cpu: 50, wall: 50 },
      'test/b2.test.ts': { cpu: 50, wall: 50 },
    };
    const files = Object.keys(costs);
    const inOrder = simulatePools([{ concurrency: 2, files }], costs);
    const pooled = simulatePools(planPools(files, { costs, concurrency: 2, waitingConcurrency: 3 }), costs);
    assert.ok(Math.abs(inOrder - 150) < 1e-6, `in order: ${inOrder}`);
    assert.ok(pooled >= 100 && pooled < 102, `pooled: ${pooled}`);
    // measured under load (a busy file got half a core), the waits were half as long; the CPU seconds stay
    const loaded = simulatePools([{ concurrency: 2, files }], costs, { busyCpuShare: 0.5 });
    assert.ok(Math.abs(loaded - 100) < 1e-6, `at busy share 0.5: ${loaded}`);
  });

  it('the committed table names only files that exist, each with finite positive figures', () => {
    const { files: table, busyCpuShare } = loadTable();
    assert.ok(busyCpuShare > 0 && busyCpuShare <= 1, `busyCpuShare ${busyCpuShare}`);
    const existing = new Set(allTestFiles());
    const stale = Object.keys(table).filter((f) => !existing.has(f));
    assert.deepEqual(stale, [], 'entries for files that no longer exist: run node scripts/test-times.mjs --costs');
    for (const [f, c] of Object.entries(table))
      assert.ok(Number.isFinite(c.cpu) && c.wall > 0, `${f}: ${JSON.stringify(c)}`);
    // most of the files npm test runs are measured, so the order is not mostly guessed
    const measured = allTestFiles().filter((f) => f in table);
    assert.ok(
      measured.length >= allTestFiles().length * 0.9,
      `${measured.length} of ${allTestFiles().length} measured`,
    );
    assert.ok(allTestFiles().some(isClusterTest));
  });
});
