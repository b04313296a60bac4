// Which test file runs when (docs/testing.md, "Scheduling"). node:test starts files in the order it is given
// them, so scripts/run-tests.mjs hands them over longest first: the files that take minutes start at once
// instead of last, when nothing is left to run beside them. Files that spend most of their time waiting
// (operator processes restarting, clusters converging) run in a pool of their own beside the CPU-bound files,
// so two of them waiting no longer leave both cores idle. A file waits when its CPU share of its wall time is
// under WAITING_CPU_SHARE of a unit test file's (busy: no socket, no process) measured in the same run: that
// compares files measured at whatever load the machine had. The figures come from scripts/test-costs.json,
// written by `node scripts/test-times.mjs --costs`.
import { existsSync, readFileSync } from 'node:fs';

export const COSTS_FILE = new URL('./test-costs.json', import.meta.url);

/** how many files that mostly wait `npm test` runs at once, beside the two CPU-bound ones */
export const WAITING_CONCURRENCY = 3;

/** a file whose CPU share of its wall time is under this share of a unit file's mostly waits */
export const WAITING_CPU_SHARE = 0.5;

/**
 * scripts/test-costs.json: `files` ({ file: { cpu, wall } }) and `busyCpuShare`, the median CPU share of the
 * wall time of the unit files measured with them (1 on an idle machine, less under load). Empty (name order,
 * one pool) when the table is missing or unreadable.
 */
export function loadTable(path = COSTS_FILE) {
  const empty = { files: {}, busyCpuShare: 1, measured: undefined };
  if (!existsSync(path)) return empty;
  try {
    const table = JSON.parse(readFileSync(path, 'utf8'));
    const share = Number(table.busyCpuShare);
    return { files: table.files ?? {}, busyCpuShare: share > 0 && share <= 4 ? share : 1, measured: table.measured };
  } catch (err) {
    console.error(`test-schedule: ${path}: ${err.message}; running the files in name order`);
    return empty;
  }
}

function median(values, fallback) {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length > 0 ? sorted[Math.floor(sorted.length / 2)] : fallback;
}

/**
 * The cost of every file: its measured one, else (a file added since the table was written) the median of
 * the measured files of its tier, counted as CPU-bound so a new file never takes a waiting file's place.
 */
export function costsOf(files, costs, isCluster) {
  const known = (cluster) =>
    Object.entries(costs)
      .filter(([f]) => isCluster(f) === cluster)
      .map(([, c]) => c.wall);
  const fallback = { true: median(known(true), 10), false: median(known(false), 1) };
  return files.map((file) => {
    const c = costs[file];
    const ok = c && Number.isFinite(c.wall) && Number.isFinite(c.cpu) && c.wall > 0;
    return ok ? { file, ...c } : { file, wall: fallback[isCluster(file)], cpu: fallback[isCluster(file)] };
  });
}

/** whether a file mostly waits: its CPU share of its wall time is under WAITING_CPU_SHARE of a busy file's */
export function isWaiting(cost, busyCpuShare = 1) {
  return cost.cpu < WAITING_CPU_SHARE * busyCpuShare * cost.wall;
}

/**
 * The pools to run `files` in: longest first in each (ties in name order); the waiting files in a pool of
 * `waitingConcurrency` when that is above 0, the others in one of `concurrency`. Pools without files are left out.
 */
export function planPools(files, opts) {
  const { costs = {}, busyCpuShare = 1, isCluster = () => false, concurrency = 2, waitingConcurrency = 0 } = opts;
  const ranked = costsOf(files, costs, isCluster).sort((a, b) => b.wall - a.wall || a.file.localeCompare(b.file));
  const waiting = waitingConcurrency > 0 ? ranked.filter((c) => isWaiting(c, busyCpuShare)) : [];
  const busy = ranked.filter((c) => !waiting.includes(c));
  return [
    { concurrency, files: busy.map((c) => c.file) },
    { concurrency: waitingConcurrency, files: waiting.map((c) => c.file) },
  ].filter((p) => p.files.length > 0);
}

/**
 * The pools `npm test` (scripts/run-tests.mjs) runs `files` in: the unit tier one file per core, longest first;
 * otherwise two CPU-bound files at a time beside WAITING_CONCURRENCY files that mostly wait.
 */
export function npmTestPools(
  files,
  { unitOnly = false, table = loadTable(), isCluster = () => false, cores = 2 } = {},
) {
  return planPools(files, {
    costs: table.files,
    busyCpuShare: table.busyCpuShare,
    isCluster,
    concurrency: unitOnly ? Math.max(2, cores) : 2,
    waitingConcurrency: unitOnly ? 0 : WAITING_CONCURRENCY,
  });
}

/**
 * Predicts how long `pools` take on an idle machine of `cores` cores from the files' costs: each file needs
 * its CPU seconds and lasts at least its quiet wall time, its measured wall time times `busyCpuShare` (under
 * the load it was measured at, a busy file took 1/busyCpuShare as long); while the running files want more
 * than `cores` cores, all of them slow down alike. A model, not a measurement: memory, disk and what the tests
 * themselves wait for under contention are left out. docs/testing.md, "Scheduling", compares it with runs.
 */
export function simulatePools(pools, costs, { busyCpuShare = 1, cores = 2, isCluster = () => false } = {}) {
  const known = new Map(
    costsOf(
      pools.flatMap((p) => p.files),
      costs,
      isCluster,
    ).map((c) => [c.file, c]),
  );
  const queues = pools.map((p) => ({ waiting: [...p.files], concurrency: p.concurrency, running: [] }));
  const start = (q) => {
    while (q.running.length < q.concurrency && q.waiting.length > 0) {
      const c = known.get(q.waiting.shift());
      const quiet = Math.max(c.cpu / cores, c.wall * busyCpuShare, 0.01);
      q.running.push({ left: quiet, demand: Math.min(cores, c.cpu / quiet) });
    }
  };
  let now = 0;
  for (queues.forEach(start); queues.some((q) => q.running.length > 0); queues.forEach(start)) {
    const running = queues.flatMap((q) => q.running);
    const demand = running.reduce((s, r) => s + r.demand, 0);
    const rate = demand > cores ? cores / demand : 1;
    const step = Math.min(...running.map((r) => r.left / rate));
    now += step;
    for (const r of running) r.left -= step * rate;
    for (const q of queues) q.running = q.running.filter((r) => r.left > 1e-9);
  }
  return now;
}
