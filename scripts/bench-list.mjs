// The benchmarks, found one way for every script that names them: each `.ts` file directly in bench/ or in a
// workspace package's bench/ (packages/*/bench/; helpers live in their lib/ folders). `npm run bench -- <name>`
// (scripts/run-bench.mjs) runs one by name, `npm run bench:smoke` (scripts/bench-smoke.mjs) runs them all;
// test/scripts/bench-list.test.ts checks that no benchmark anywhere in the repo is left out of either.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** the folders benchmarks live in, relative to `root` */
export function benchDirs(root = '.') {
  const packages = existsSync(join(root, 'packages')) ? readdirSync(join(root, 'packages')).sort() : [];
  return ['bench', ...packages.map((p) => join('packages', p, 'bench'))].filter((d) => existsSync(join(root, d)));
}

/** every benchmark: its name (the file name without `.ts`) and its file relative to `root`, by name */
export function benchEntries(root = '.') {
  return benchDirs(root)
    .flatMap((d) =>
      readdirSync(join(root, d))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => ({ name: f.slice(0, -3), file: join(d, f) })),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What `npm run bench:smoke NAME…` runs: every benchmark, or only the named ones; a name that is no
 * benchmark is an error (a typo must not pass as "nothing failed").
 */
export function smokePlan(only = [], root = '.') {
  const entries = benchEntries(root);
  const unknown = only.filter((n) => !entries.some((e) => e.name === n));
  if (unknown.length > 0)
    throw new Error(
      `bench:smoke: no benchmark named ${unknown.join(', ')} (there are: ${entries.map((e) => e.name).join(', ')})`,
    );
  return only.length === 0 ? entries : entries.filter((e) => only.includes(e.name));
}
