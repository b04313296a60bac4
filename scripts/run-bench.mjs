// `npm run bench -- <name> [args…]` runs bench/<name>.ts, or packages/*/bench/<name>.ts for a workspace
// package's own benchmark; the benchmark prints its result as its last line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const benchDirs = [
  'bench',
  ...readdirSync('packages')
    .sort()
    .map((p) => join('packages', p, 'bench')),
].filter((d) => existsSync(d));
const [name, ...rest] = process.argv.slice(2);
const file = name && benchDirs.map((d) => join(d, `${name}.ts`)).find((f) => existsSync(f));
if (!file) {
  const names = benchDirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3)),
  );
  console.error(`usage: npm run bench -- <name>\navailable: ${names.sort().join(', ')}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', file, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
