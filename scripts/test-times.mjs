// Measures what each test file costs, so docs/testing.md's table of the slowest files can be regenerated.
// Every file runs alone (`node --test FILE`, compiled as scripts/run-tests.mjs compiles it) under /usr/bin/time, which reports the CPU time
// (user + system) of the file's process and of every process it waited for (operator processes, kubectl).
// Files are ranked by CPU seconds: on a shared machine wall time follows the load, CPU time much less so.
// The load average is printed with the table because it still matters (timeouts, retries, GC).
// Like scripts/run-tests.mjs it first compiles the test files (scripts/bundle-tests.mjs) and builds the operator
// bundle the cluster tests' processes run (scripts/operator-bundle.mjs), both into temporary folders it removes;
// MODELPLANE_TEST_FROM_SOURCES=1 measures the files through tsx. Otherwise read-only: it writes nothing but its
// output; each file is bounded by --timeout.
//
//   node scripts/test-times.mjs [--unit|--cluster] [--top N] [--jobs N] [--timeout S] [--json] [FILE…]
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { bundleTests } from './bundle-tests.mjs';
import { buildOperatorBundle } from './operator-bundle.mjs';
import { allTestFiles, isClusterTest } from './test-tiers.mjs';

function option(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}

function parseArgs(argv) {
  const valued = new Set(['--top', '--jobs', '--timeout']);
  const named = argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1]));
  let files = named.length > 0 ? named : allTestFiles();
  if (argv.includes('--unit')) files = files.filter((f) => !isClusterTest(f));
  if (argv.includes('--cluster')) files = files.filter((f) => isClusterTest(f));
  return {
    files,
    top: option(argv, '--top', Number.POSITIVE_INFINITY),
    jobs: Math.max(1, option(argv, '--jobs', 2)),
    timeoutSeconds: option(argv, '--timeout', 600),
    json: argv.includes('--json'),
  };
}

/** runs one file under /usr/bin/time; resolves its CPU and wall seconds, test count and exit status */
function measure(file, run, timeoutSeconds, env) {
  return new Promise((resolve) => {
    const args = ['-f', '@@time %U %S %e', process.execPath, '--test-reporter=tap', ...run];
    const child = spawn('/usr/bin/time', args, {
      env: { ...process.env, MODELPLANE_LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-4000);
    });
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const t = /@@time (\S+) (\S+) (\S+)/.exec(err);
      const count = (re) => Number(re.exec(out)?.[1] ?? Number.NaN);
      resolve({
        file,
        cpu: t ? Number(t[1]) + Number(t[2]) : Number.NaN,
        wall: t ? Number(t[3]) : Number.NaN,
        tests: count(/^# tests (\d+)/m),
        fail: count(/^# fail (\d+)/m),
        status: code,
      });
    });
  });
}

async function measureAll(files, runs, jobs, timeoutSeconds, env) {
  const results = [];
  const queue = files.map((file, i) => ({ file, run: runs[i] }));
  const loads = [];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { file, run } = next;
      loads.push(loadavg()[0]);
      const r = await measure(file, run, timeoutSeconds, env);
      results.push(r);
      const failed = r.status !== 0 ? `  (exit ${r.status}, ${r.fail} failed)` : '';
      process.stderr.write(
        `${r.cpu.toFixed(1).padStart(7)} cpu ${r.wall.toFixed(1).padStart(7)} wall  ${file}${failed}\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  loads.push(loadavg()[0]);
  return { results, loads };
}

function table({ results, loads }, top, jobs) {
  const sorted = [...results].sort((a, b) => b.cpu - a.cpu);
  const sum = (rs, k) => rs.reduce((s, r) => s + (Number.isFinite(r[k]) ? r[k] : 0), 0);
  const meanLoad = loads.reduce((s, l) => s + l, 0) / loads.length;
  const lines = [
    `${results.length} files, ${jobs} at a time; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (mean ${meanLoad.toFixed(1)})`,
    `total CPU ${sum(results, 'cpu').toFixed(0)} s, sum of wall ${sum(results, 'wall').toFixed(0)} s`,
    '',
    '| # | file | CPU s | wall s | tests |',
    '|---|---|---|---|---|',
  ];
  sorted.slice(0, top).forEach((r, i) => {
    const failed = r.status !== 0 ? ` (exit ${r.status}, ${r.fail} failed)` : '';
    lines.push(`| ${i + 1} | \`${r.file}\`${failed} | ${r.cpu.toFixed(1)} | ${r.wall.toFixed(1)} | ${r.tests} |`);
  });
  return lines.join('\n');
}

const opts = parseArgs(process.argv.slice(2));
const bundle = opts.files.some(isClusterTest) ? buildOperatorBundle() : { env: {}, remove() {} };
// as scripts/run-tests.mjs runs them: compiled ahead, or through tsx with MODELPLANE_TEST_FROM_SOURCES=1
const fromSources = process.env.MODELPLANE_TEST_FROM_SOURCES === '1';
const compiled = fromSources ? undefined : await bundleTests(opts.files);
const runs = opts.files.map((f, i) => (compiled ? ['--test', compiled.compiled[i]] : ['--import', 'tsx', '--test', f]));
const measured = await measureAll(opts.files, runs, opts.jobs, opts.timeoutSeconds, bundle.env);
bundle.remove();
compiled?.remove();
if (opts.json) console.log(JSON.stringify(measured, null, 1));
else console.log(table(measured, opts.top, opts.jobs));
process.exit(measured.results.some((r) => r.status !== 0) ? 1 : 0);
