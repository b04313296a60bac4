// Runs node:test over an explicit list of test files (Node 20's --test has no glob support).
// Default: every test/**/*.test.ts and packages/*/test/**/*.test.ts. `node scripts/run-tests.mjs FILE…` runs just those files.
// `--unit` runs the unit tier only: every test file that is not a cluster test (scripts/test-tiers.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { isClusterTest } from './test-tiers.mjs';

if (!process.argv.includes('--unit'))
  spawnSync(process.execPath, ['scripts/extract-kubectl.mjs'], { stdio: 'inherit' });

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(relative(process.cwd(), p));
  }
  return out;
}

function allTests() {
  const packages = readdirSync('packages')
    .sort()
    .map((p) => join('packages', p, 'test'))
    .filter((d) => existsSync(d));
  return [...walk('test'), ...packages.flatMap(walk)];
}

const argv = process.argv.slice(2);
const unitOnly = argv.includes('--unit');
const named = argv.filter((a) => !a.startsWith('--'));
const files = named.length > 0 ? named : allTests().filter((f) => !unitOnly || !isClusterTest(f));
// unit tests are pure and short: one file per core; cluster tests stay at two files at once
const concurrency = unitOnly ? Math.max(2, availableParallelism()) : 2;
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files];
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, MODELPLANE_LOG_LEVEL: process.env.MODELPLANE_LOG_LEVEL ?? 'silent' },
});
process.exit(result.status ?? 1);
