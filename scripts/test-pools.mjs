// Runs test files in pools, each with its own concurrency, and reports them as one run: one spec report, one
// summary (the files' tests/suites/pass/fail/… counts added up) and one exit code, non-zero when any test
// failed or was cancelled, or a file reported no test or no summary. Each file is a node:test run() of its
// own, so its report comes as it finishes, not after every file listed before it (one run() of many files
// holds a file's report back until the files before it are done: minutes, when the longest go first).
// scripts/run-tests.mjs starts it with the loader the files need (node passes its own flags on to every test
// process it starts):
//
//   node [--import tsx] scripts/test-pools.mjs --pool=2 FILE… --pool=3 FILE…
//
// The merge forwards one top-level test at a time (its start, subtests, output and result together), so the
// spec reporter never sees two interleaved.
import { setMaxListeners } from 'node:events';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/;
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/** `--pool=N FILE…` groups, in order */
export function parsePools(argv) {
  const pools = [];
  for (const arg of argv) {
    const m = /^--pool=(\d+)$/.exec(arg);
    if (m) pools.push({ concurrency: Number(m[1]), files: [] });
    else if (pools.length === 0) throw new Error(`test-pools: ${arg} comes before any --pool=N`);
    else pools.at(-1).files.push(arg);
  }
  for (const p of pools)
    if (!(p.concurrency >= 1)) throw new Error(`test-pools: --pool=${p.concurrency} needs a concurrency of 1 or more`);
  return pools.filter((p) => p.files.length > 0);
}

/** the root's summary line of one run, or undefined for any other event */
function summaryOf(event) {
  if (event.type !== 'test:diagnostic' || event.data.nesting !== 0 || event.data.file !== undefined) return undefined;
  const m = SUMMARY.exec(event.data.message);
  return m ? { key: m[1], value: Number(m[2]) } : undefined;
}

/** forwards one pool's events to `emit` a top-level test at a time; resolves its summary counts */
function forward(stream, emit) {
  const counts = {};
  let group = [];
  stream.on('data', (event) => {
    const summary = summaryOf(event);
    if (summary) {
      counts[summary.key] = summary.value;
      return;
    }
    if (['test:enqueue', 'test:dequeue', 'test:complete'].includes(event.type)) return;
    group.push(event);
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      emit(group);
      group = [];
    }
  });
  return new Promise((resolve, reject) => {
    stream.on('error', reject);
    stream.on('end', () => {
      if (group.length > 0) emit(group);
      resolve(counts);
    });
  });
}

/** runs one pool: `concurrency` workers, each taking the next file; resolves every file's summary counts */
async function runPool({ files, concurrency }, emit, signal) {
  const queue = [...files];
  const results = [];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined && !signal?.aborted; file = queue.shift())
      // no forceExit: with it, node drops tests that ran from the report and its counts (a fresh clone's run
      // reported 31 fewer tests, exit 0); a file that leaves a server or timer behind is fixed in the file
      results.push({ file, ...(await forward(run({ files: [file], concurrency: 1, signal }), emit)) });
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return results;
}

/** runs the pools at once; resolves the summed counts and whether the run succeeded */
export async function runPools(pools, reporter, signal) {
  const started = performance.now();
  const emit = (events) => {
    for (const e of events) reporter.write(e);
  };
  const results = (await Promise.all(pools.map((p) => runPool(p, emit, signal)))).flat();
  const total = Object.fromEntries(COUNTS.map((k) => [k, results.reduce((s, r) => s + (r[k] ?? 0), 0)]));
  for (const k of COUNTS) reporter.write(diagnostic(`${k} ${total[k]}`));
  reporter.write(diagnostic(`duration_ms ${(performance.now() - started).toFixed(5)}`));
  // a file always counts as at least one test (itself, when it reports none): no test or suite at all, or a
  // file not run (the run was aborted), is a failure; a skipped suite (a real-backend-only file run on the
  // embedded backend) reports 0 tests and 1 suite, and is not
  const files = pools.reduce((n, p) => n + p.files.length, 0);
  const incomplete = results
    .filter((r) => !(COUNTS.every((k) => Number.isFinite(r[k])) && r.tests + r.suites > 0))
    .map((r) => r.file);
  const complete = results.length === files && incomplete.length === 0;
  if (!complete)
    reporter.write(
      diagnostic(
        `counted as failed: ${[
          ...incomplete.map((f) => `${f} reported no tests or no summary`),
          ...(results.length < files ? [`${files - results.length} file(s) not run`] : []),
        ].join('; ')}`,
      ),
    );
  return { total, ok: complete && total.fail === 0 && total.cancelled === 0 };
}

function diagnostic(message) {
  return { type: 'test:diagnostic', data: { nesting: 0, message } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pools = parsePools(process.argv.slice(2));
  const abort = new AbortController();
  // every file's run() listens on the one signal for as long as the run lasts: hundreds of listeners, no leak
  setMaxListeners(0, abort.signal);
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => abort.abort());
  const reporter = new spec();
  reporter.pipe(process.stdout, { end: false });
  const reported = new Promise((resolve) => reporter.on('end', resolve));
  const { ok } = await runPools(pools, reporter, abort.signal);
  reporter.end();
  await reported;
  process.exitCode = ok ? 0 : 1;
}
