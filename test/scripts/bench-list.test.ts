// Benchmarks cannot rot unnoticed: every benchmark in the repo is one `npm run bench -- <name>` runs and one
// `npm run bench:smoke` (run by .ci/run) runs in smoke mode. The repo is searched here on its own, for any
// folder named bench, so a benchmark put where scripts/bench-list.mjs does not look fails this test.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { benchEntries, smokePlan } from '../../scripts/bench-list.mjs';

/** every `.ts` file directly in a folder named bench, anywhere in the repo but dependencies and dot-folders */
function benchFilesInRepo(dir = '.'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.') || !statSync(p).isDirectory()) return [];
    const here =
      name === 'bench'
        ? readdirSync(p)
            .filter((f) => f.endsWith('.ts') && statSync(join(p, f)).isFile())
            .map((f) => relative('.', join(p, f)))
        : [];
    return [...here, ...benchFilesInRepo(p)];
  });
}

describe('benchmarks', () => {
  it('bench:smoke runs every benchmark in the repo, and npm run bench knows each by its name', () => {
    const inRepo = benchFilesInRepo().sort();
    assert.ok(inRepo.length >= 12, `found only ${inRepo.join(', ')}`);
    assert.deepEqual(
      smokePlan()
        .map((e) => e.file)
        .sort(),
      inRepo,
    );
    assert.deepEqual(
      benchEntries()
        .map((e) => e.file)
        .sort(),
      inRepo,
    );
    const names = benchEntries().map((e) => e.name);
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
      'two benchmarks share a name: npm run bench -- <name> can reach only one',
    );
  });

  it('the smoke script runs the plan it is given and nothing else, and CI runs it', () => {
    const smoke = readFileSync('scripts/bench-smoke.mjs', 'utf8');
    assert.match(smoke, /smokePlan\(process\.argv\.slice\(2\)\)/);
    assert.doesNotMatch(smoke, /readdirSync|\.filter\(/, 'bench-smoke.mjs must not list or skip benchmarks itself');
    const runBench = readFileSync('scripts/run-bench.mjs', 'utf8');
    assert.match(runBench, /benchEntries\(\)/);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts['bench:smoke'], 'node scripts/bench-smoke.mjs');
    assert.equal(pkg.scripts.bench, 'node scripts/run-bench.mjs');
    const ci = readFileSync('.ci/run', 'utf8')
      .split('\n')
      .filter((l) => !l.trimStart().startsWith('#'));
    assert.ok(
      ci.some((l) => l.trim() === 'npm run bench:smoke'),
      '.ci/run must run npm run bench:smoke (every benchmark)',
    );
  });

  it('names a benchmark only for a .ts file directly in a bench folder; an unknown name is an error', () => {
    const root = mkdtempSync(join(tmpdir(), 'bench-list-'));
    try {
      for (const f of [
        'bench/a.ts',
        'bench/lib/helper.ts',
        'bench/notes.md',
        'packages/p/bench/b.ts',
        'packages/q/src/c.ts',
      ]) {
        mkdirSync(join(root, f, '..'), { recursive: true });
        writeFileSync(join(root, f), '');
      }
      assert.deepEqual(benchEntries(root), [
        { name: 'a', file: 'bench/a.ts' },
        { name: 'b', file: 'packages/p/bench/b.ts' },
      ]);
      assert.deepEqual(
        smokePlan(['b'], root).map((e) => e.name),
        ['b'],
      );
      assert.throws(() => smokePlan(['b', 'nope'], root), /no benchmark named nope \(there are: a, b\)/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
