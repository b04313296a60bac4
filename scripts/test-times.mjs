// Measures what each test file costs, so docs/testing.md's table of the slowest files can be regenerated.
// Every file runs alone (`node --test FILE`, compiled as scripts/run-tests.mjs compiles it) under /usr/bin/time, which reports the CPU time
// (user + system) of the file's process and of every process it waited for (operator processes, kubectl).
// Files are ranked by CPU seconds: on a shared machine wall time follows the load, CPU time much less so.
// The load average is printed with the table because it still matters (timeouts, retries, GC).
// Like scripts/run-tests.mjs it first compiles the test files (scripts/bundle-tests.mjs) and builds the operator
// bundle the cluster tests' processes run (scripts/operator-bundle.mjs), both into temporary folders it removes;
// MODELPLANE_TEST_FROM_SOURCES=1 measures the files through tsx. Otherwise read-only: it writes nothing but its
// output (and, with --costs, scripts/test-costs.json); each file is bounded by --timeout.
// --costs records each file's CPU and wall seconds in scripts/test-costs.json (merged into what is
// there), the table scripts/test-schedule.mjs orders and pools `npm test`'s files by; measure it with
// --jobs 2 on a machine as quiet as you can get, since wall seconds follow the load. --from FILE reads the
// figures of an earlier --json run instead of measuring. --simulate measures nothing: it predicts from the table
// what the files take on an idle 2-core machine in name order two at a time and as scripts/run-tests.mjs
// schedules them (scripts/test-schedule.mjs, simulatePools).
//
//   node scripts/test-times.mjs [--unit|--cluster] [--top N] [--jobs N] [--timeout S] [--json] [--costs] [--from FILE] [--simulate] [FILE…]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { bundleTests } from './bundle-tests.mjs';
import { buildOperatorBundle } from './operator-bundle.mjs';
import { COSTS_FILE, costsOf, loadTable, npmTestPools, simulatePools } from './test-schedule.mjs';
import { allTestFiles, isClusterTest } from './test-tiers.mjs';

function option(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
}

function parseArgs(argv) {
  const valued = new Set(['--top', '--jobs', '--timeout', '--from']);
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
    costs: argv.includes('--costs'),
    simulate: argv.includes('--simulate'),
    unit: argv.includes('--unit'),
    from: argv.includes('--from') ? argv[argv.indexOf('--from') + 1] : undefined,
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

/** merges the files' figures into scripts/test-costs.json, with how and when they were measured */
function writeCosts({ results, loads }, jobs) {
  const { files, busyCpuShare: previousShare, measured: previously } = loadTable();
  // a file that failed is recorded too: how long it ran still places it
  for (const r of results)
    if (Number.isFinite(r.cpu) && Number.isFinite(r.wall) && r.wall > 0)
      files[r.file] = { cpu: Number(r.cpu.toFixed(1)), wall: Number(r.wall.toFixed(1)) };
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  // how busy a file that only computes looks at this load: the median CPU share of the measured unit files
  const shares = results
    .filter((r) => !isClusterTest(r.file) && r.status === 0 && r.cpu >= 0.5 && r.wall > 0)
    .map((r) => r.cpu / r.wall)
    .sort((a, b) => a - b);
  // a few files measured into a larger table keep the table's share: the load they met may have been another
  const most = results.length >= Object.keys(sorted).length / 2 && shares.length >= 5;
  const busyCpuShare = most ? Number(shares[Math.floor(shares.length / 2)].toFixed(3)) : previousShare;
  const load = `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
  const when = `${new Date().toISOString().slice(0, 10)} at load average ${load}`;
  const measured = most
    ? `node scripts/test-times.mjs --jobs ${jobs} --costs, ${when}`
    : `${previously ?? ''}; ${results.length} files added ${when}`;
  writeFileSync(COSTS_FILE, costsJson({ measured, busyCpuShare, files: sorted }));
}

/** what the files would take on an idle 2-core machine by scripts/test-costs.json, as run before and now */
function simulation(files, unitOnly) {
  const table = loadTable();
  const opts = { busyCpuShare: table.busyCpuShare, isCluster: isClusterTest };
  const inOrder = simulatePools([{ concurrency: 2, files }], table.files, opts);
  const planned = npmTestPools(files, { unitOnly, table, isCluster: isClusterTest });
  const cpu = costsOf(files, table.files, isClusterTest).reduce((s, c) => s + c.cpu, 0);
  const pools = planned.map((p) => `${p.files.length} files ${p.concurrency} at a time`).join(' beside ');
  return [
    `${files.length} files, ${cpu.toFixed(0)} CPU s by scripts/test-costs.json (busy share ${table.busyCpuShare}); predicted on an idle 2-core machine:`,
    `  name order, 2 at a time: ${inOrder.toFixed(0)} s`,
    `  longest first, ${pools}: ${simulatePools(planned, table.files, opts).toFixed(0)} s`,
  ].join('\n');
}

/** the table as JSON with one line per file, as biome formats it */
function costsJson({ measured, busyCpuShare, files }) {
  const lines = Object.entries(files).map(
    ([f, c]) => `    ${JSON.stringify(f)}: { "cpu": ${c.cpu}, "wall": ${c.wall} }`,
  );
  const head = `  "measured": ${JSON.stringify(measured)},\n  "busyCpuShare": ${busyCpuShare},`;
  return `{\n${head}\n  "files": {\n${lines.join(',\n')}\n  }\n}\n`;
}

const opts = parseArgs(process.argv.slice(2));
if (opts.simulate) {
  console.log(simulation(opts.files, opts.unit));
  process.exit(0);
}
const measured = opts.from ? JSON.parse(readFileSync(opts.from, 'utf8')) : await measureFiles(opts);
if (opts.costs) writeCosts(measured, opts.jobs);
if (opts.json) console.log(JSON.stringify(measured, null, 1));
else console.log(table(measured, opts.top, opts.jobs));
process.exit(measured.results.some((r) => r.status !== 0) ? 1 : 0);

async function measureFiles({ files, jobs, timeoutSeconds }) {
  const bundle = files.some(isClusterTest) ? buildOperatorBundle() : { env: {}, remove() {} };
  // as scripts/run-tests.mjs runs them: compiled ahead, or through tsx with MODELPLANE_TEST_FROM_SOURCES=1
  const fromSources = process.env.MODELPLANE_TEST_FROM_SOURCES === '1';
  const compiled = fromSources ? undefined : await bundleTests(files);
  const runs = files.map((f, i) => (compiled ? ['--test', compiled.compiled[i]] : ['--import', 'tsx', '--test', f]));
  try {
    return await measureAll(files, runs, jobs, timeoutSeconds, bundle.env);
  } finally {
    bundle.remove();
    compiled?.remove();
  }
}
