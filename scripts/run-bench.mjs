// `npm run bench -- <name> [args…]` runs bench/<name>.ts; the benchmark prints its result as its last line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';

const [name, ...rest] = process.argv.slice(2);
if (!name || !existsSync(`bench/${name}.ts`)) {
  const names = readdirSync('bench').filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
  console.error(`usage: npm run bench -- <name>\navailable: ${names.join(', ')}`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`, ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
