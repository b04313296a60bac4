// `npm run bench -- <name> [args…]` runs bench/<name>.ts, or packages/*/bench/<name>.ts for a workspace
// package's own benchmark (scripts/bench-list.mjs finds them); the benchmark prints its result as its last line.
import { spawnSync } from 'node:child_process';
import { benchEntries } from './bench-list.mjs';

const [name, ...rest] = process.argv.slice(2);
const entries = benchEntries();
const entry = entries.find((e) => e.name === name);
if (!entry) {
  console.error(`usage: npm run bench -- <name>\navailable: ${entries.map((e) => e.name).join(', ')}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', entry.file, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
