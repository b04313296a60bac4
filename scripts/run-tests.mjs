// Runs node:test over an explicit list of test files (Node 20's --test has no glob support).
// Default: every test/**/*.test.ts and packages/*/test/**/*.test.ts. `node scripts/run-tests.mjs FILE…` runs just those files.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

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

const files = process.argv.length > 2 ? process.argv.slice(2) : allTests();
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, MODELPLANE_LOG_LEVEL: process.env.MODELPLANE_LOG_LEVEL ?? 'silent' },
});
process.exit(result.status ?? 1);
