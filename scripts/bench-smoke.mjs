// `npm run bench:smoke [NAME…]`: every benchmark (scripts/bench-list.mjs: bench/*.ts and packages/*/bench/*.ts) in smoke mode
// (MODELPLANE_BENCH_SMOKE=1: small counts), one after the other, each required to exit 0 and end its output
// with its result line (`<name>: …`). It checks that no benchmark rotted, not how fast anything is.
import { spawnSync } from 'node:child_process';
import { smokePlan } from './bench-list.mjs';

let plan;
try {
  plan = smokePlan(process.argv.slice(2));
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
const failed = [];
const started = Date.now();
for (const { name, file } of plan) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
    env: { ...process.env, MODELPLANE_BENCH_SMOKE: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
  const last = (r.stdout ?? '').trim().split('\n').at(-1) ?? '';
  const ok = r.status === 0 && last.startsWith(`${name}: `);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${name} (${secs} s): ${ok ? last : `exit ${r.status ?? r.signal}, last line "${last}"`}`,
  );
  if (!ok) {
    failed.push(name);
    process.stderr.write((r.stderr ?? '').split('\n').slice(-30).join('\n'));
  }
}
console.log(
  `bench smoke: ${failed.length === 0 ? 'all passed' : `failed: ${failed.join(', ')}`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
process.exit(failed.length === 0 ? 0 : 1);
