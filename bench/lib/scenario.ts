// One convergence benchmark, run `runs` times: (1) the measured run — the real controllers and the upstream
// stand-in on a fresh embedded API server, the user creating N objects with C creates in flight, the clock
// running from the first create until the Nth object is Ready in the operator's cache; then the operator's
// request count, and a resync of every controller with the requests it makes; (2) the baseline — a second
// fresh API server with the same setup, on which runBaseline performs the minimum writes for the same N
// objects (payloads read back from the measured run), C chains in flight. Figures are medians over runs,
// except the resync counts, which are the worst run's (any write at all fails the bar). An unreported
// warm-up run of `--warmup` objects (measured and baseline) comes first, so that no run pays for V8
// compiling the code while the other side of its ratio does not.
import { join } from 'node:path';
import type { AuditEntry, LogProvider } from '@modelplane/apiserver';
import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import { EventsV1 } from '@modelplane/runtime/events';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { runBaseline, type Step } from './baseline.ts';
import {
  type BenchArgs,
  type BenchBackend,
  type BenchServer,
  controllersOf,
  elapsed,
  type Instant,
  inPool,
  instant,
  isWrite,
  median,
  progress,
  readyTracker,
  reconcilesByController,
  resultLine,
  resyncAndCount,
  settle,
  startBenchServer,
  startProfile,
  tally,
} from './harness.ts';

export interface Operators {
  managers: Manager[];
  /** the users the operator's processes authenticate as: their requests are the operator's */
  users: Set<string>;
  /** whose cache tells when an object is Ready */
  observer: Manager;
  stop(): Promise<void>;
}

export interface Scenario<T extends KubeObject> {
  /** the result line's name and the key its object count goes under, e.g. aim / services */
  name: string;
  countKey: string;
  kind: KindRef<T>;
  isReady(obj: T): boolean;
  crds: CustomResourceDefinition[];
  namespaces: string[];
  /** objects that exist before the clock starts (configs, models, a gateway), on both servers */
  setup(server: BenchServer): Promise<void>;
  startOperators(server: BenchServer): Promise<Operators>;
  /** the object the user creates, number i */
  object(i: number): T;
  /** after convergence: each object's chain of minimum writes, from what the controllers wrote */
  chains(server: BenchServer, created: T[]): Promise<Step[][]>;
  /** requests during the resync that are no resync's doing (a provider's heartbeat) */
  notResync?(e: AuditEntry): boolean;
  /** container logs the stand-in's pods print (embedded server only) */
  podLogs?: LogProvider;
  /** how this run differs from the default setup, for the result line */
  variant?: Record<string, string>;
  /** a further measurement run after the measured runs, its figures added to the result line */
  after?(args: BenchArgs): Promise<Record<string, string | number>>;
}

/** samples every controller's pending work each second; stop() says, per controller that had any, the series */
function sampleQueues(mgrs: readonly Manager[]): { stop(): string } {
  const series = new Map<string, number[]>();
  const sample = () => {
    for (const m of mgrs)
      for (const c of controllersOf(m)) series.set(c.name, [...(series.get(c.name) ?? []), c.pendingWork]);
  };
  const timer = setInterval(sample, 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const busy = [...series].filter(([, xs]) => xs.some((x) => x > 0));
      return busy.length ? busy.map(([name, xs]) => `${name}=[${xs.join(' ')}]`).join(' ') : 'none';
    },
  };
}

/** the events in the benchmark's namespace by reason, most frequent first: they are most of the writes */
async function eventReasons(server: BenchServer, namespace: string): Promise<string> {
  const counts = new Map<string, number>();
  for (const e of (await server.admin.list(EventsV1, { namespace })).items) {
    const key = `${e.reportingController ?? '?'}/${e.reason ?? '?'}`;
    counts.set(key, (counts.get(key) ?? 0) + (e.series?.count ?? 1));
  }
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}=${n}`)
      .join(' ') || 'none'
  );
}

interface RunFigures {
  converge: Instant;
  baseline: Instant;
  requestsPerObject: number;
  writesPerObject: number;
  baselineWritesPerObject: number;
  resyncWrites: number;
  resyncReads: number;
  resyncReconciles: number;
}

async function measured<T extends KubeObject>(
  s: Scenario<T>,
  args: BenchArgs,
  run: number,
  backend: BenchBackend,
): Promise<{ figures: Omit<RunFigures, 'baseline' | 'baselineWritesPerObject'>; chains: Step[][] }> {
  const server = await startBenchServer(s.crds, s.namespaces, backend, s.podLogs);
  try {
    await s.setup(server);
    const ops = await s.startOperators(server);
    try {
      const objects = Array.from({ length: args.count }, (_, i) => s.object(i));
      const tracker = await readyTracker(ops.observer, s.kind, args.count, s.isReady);
      const stopProfile = args.profileDir
        ? await startProfile(join(args.profileDir, `${s.name}-run${run}.cpuprofile`))
        : undefined;
      const queues = sampleQueues(ops.managers);
      const reconcilesBefore = await reconcilesByController(ops.managers);
      const mark = server.auditLength;
      const t0 = instant();
      await inPool(args.count, args.concurrency, async (i) => void (await server.admin.create(objects[i]!)));
      const createdMs = performance.now() - t0.ms;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(async () => {
          // name what is stuck: the objects not Ready, with the conditions that say why
          const stuck = (await server.admin.list(s.kind)).items.filter((o) => !s.isReady(o)).slice(0, 3);
          const why = stuck
            .map(
              (o) =>
                `${o.metadata.namespace}/${o.metadata.name}: ${JSON.stringify((o as { status?: unknown }).status)}`,
            )
            .join('\n');
          reject(
            new Error(
              `${s.name}: only ${tracker.ready()} of ${args.count} Ready after ${args.timeoutMs} ms; not Ready:\n${why}`,
            ),
          );
        }, args.timeoutMs);
      });
      const converge = elapsed(t0, await Promise.race([tracker.done, timeout]).finally(() => clearTimeout(timer)));
      tracker.unsubscribe();
      await stopProfile?.();
      progress(
        `  measured: ${args.count} created in ${createdMs.toFixed(0)} ms, all Ready after ${converge.ms.toFixed(0)} ms (${converge.cpuMs.toFixed(0)} ms CPU)`,
      );
      progress(`  work queues (keys waiting or in flight, sampled each second): ${queues.stop()}`);
      const reconciles = [...(await reconcilesByController(ops.managers))]
        .map(([c, n]) => [c, n - (reconcilesBefore.get(c) ?? 0)] as const)
        .filter(([, n]) => n > 0);
      progress(`  reconciles until Ready: ${reconciles.map(([c, n]) => `${c}=${n}`).join(' ')}`);
      // whatever the controllers still write after the last object turned Ready counts too
      await settle(server, ops.managers, ops.users, 1000, args.timeoutMs);
      const requests = server.requests(ops.users, mark);
      const writes = requests.filter(isWrite);
      progress(`  operator requests: ${requests.length} (${writes.length} writes): ${tally(requests)}`);
      progress(`  events by reason: ${await eventReasons(server, s.namespaces[0]!)}`);

      const resync = await resyncAndCount(server, ops.managers, ops.users, args.timeoutMs, s.notResync);
      progress(
        `  resync: ${resync.reconciles} reconciles, ${resync.writes.length} writes, ${resync.reads.length} reads${resync.writes.length + resync.reads.length ? `: ${tally([...resync.writes, ...resync.reads])}` : ''}`,
      );
      await ops.stop();
      const chains = await s.chains(server, objects);
      return {
        figures: {
          converge,
          requestsPerObject: requests.length / args.count,
          writesPerObject: writes.length / args.count,
          resyncWrites: resync.writes.length,
          resyncReads: resync.reads.length,
          resyncReconciles: resync.reconciles,
        },
        chains,
      };
    } catch (err) {
      await ops.stop().catch(() => undefined);
      throw err;
    }
  } finally {
    await server.close();
  }
}

async function baseline<T extends KubeObject>(
  s: Scenario<T>,
  args: BenchArgs,
  chains: Step[][],
  backend: BenchBackend,
): Promise<{ time: Instant; writesPerObject: number }> {
  const server = await startBenchServer(s.crds, s.namespaces, backend, s.podLogs);
  try {
    await s.setup(server);
    const { time, writes } = await runBaseline(server, chains, args.concurrency);
    progress(`  baseline: ${writes} writes in ${time.ms.toFixed(0)} ms (${time.cpuMs.toFixed(0)} ms CPU)`);
    return { time, writesPerObject: writes / args.count };
  } finally {
    await server.close();
  }
}

const fmt = (n: number, digits = 2) => n.toFixed(digits);

/** the scenario's runs on one backend (after an unreported warm-up) */
async function runsOn<T extends KubeObject>(
  s: Scenario<T>,
  args: BenchArgs,
  backend: BenchBackend,
): Promise<RunFigures[]> {
  if (args.warmup > 0) {
    // V8 compiles the controllers' and the server's code during whichever run comes first: the first
    // measured run paid for it while its baseline, run after it, found the server's code compiled already
    progress(`warm-up on ${backend}: ${args.warmup} ${s.countKey}, not reported`);
    const warm = { ...args, count: Math.min(args.warmup, args.count), profileDir: '' };
    const m = await measured(s, warm, 0, backend);
    await baseline(s, warm, m.chains, backend);
  }
  const runs: RunFigures[] = [];
  for (let r = 1; r <= args.runs; r++) {
    progress(`run ${r}/${args.runs} on ${backend}`);
    const m = await measured(s, args, r, backend);
    const b = await baseline(s, args, m.chains, backend);
    const run: RunFigures = { ...m.figures, baseline: b.time, baselineWritesPerObject: b.writesPerObject };
    progress(`  ratio ${fmt(run.converge.ms / run.baseline.ms)} (CPU ${fmt(run.converge.cpuMs / run.baseline.cpuMs)})`);
    runs.push(run);
  }
  return runs;
}

/** the medians of one backend's runs, as result-line fields (prefixed for the second backend) */
function figuresOf(runs: RunFigures[], prefix: string): Record<string, string | number> {
  const med = (f: (r: RunFigures) => number) => median(runs.map(f));
  const worst = (f: (r: RunFigures) => number) => Math.max(...runs.map(f));
  return {
    [`${prefix}converge-ms`]: fmt(
      med((r) => r.converge.ms),
      0,
    ),
    [`${prefix}baseline-ms`]: fmt(
      med((r) => r.baseline.ms),
      0,
    ),
    [`${prefix}cpu-ratio`]: fmt(med((r) => r.converge.cpuMs / r.baseline.cpuMs)),
    [`${prefix}requests/object`]: fmt(med((r) => r.requestsPerObject)),
    [`${prefix}writes/object`]: fmt(med((r) => r.writesPerObject)),
    [`${prefix}baseline-writes/object`]: fmt(med((r) => r.baselineWritesPerObject)),
    [`${prefix}resync-reconciles`]: Math.min(...runs.map((r) => r.resyncReconciles)),
    [`${prefix}resync-writes`]: worst((r) => r.resyncWrites),
    [`${prefix}resync-reads`]: worst((r) => r.resyncReads),
  };
}

const ratioOf = (runs: RunFigures[]) => median(runs.map((r) => r.converge.ms / r.baseline.ms));

/**
 * Runs the scenario `args.runs` times on each backend of `--backend` and prints the result line (the last
 * line on stdout): the first backend's ratio is the figure; with two backends the second's figures follow
 * prefixed `real-`, and `real/embedded` is how much longer convergence takes on the real control plane.
 */
export async function runScenario<T extends KubeObject>(s: Scenario<T>, args: BenchArgs): Promise<void> {
  progress(
    `${s.name} bench: ${args.count} ${s.countKey}, ${args.concurrency} in flight, ${args.runs} run(s) on ${args.backends.join(' and ')}`,
  );
  const results: Array<[BenchBackend, RunFigures[]]> = [];
  for (const backend of args.backends) results.push([backend, await runsOn(s, args, backend)]);
  const [first, second] = results;
  const [firstBackend, firstRuns] = first!;
  const fields: Record<string, string | number> = {
    [s.countKey]: args.count,
    runs: args.runs,
    ...(firstBackend === 'real' ? { backend: 'real' } : {}),
    ...figuresOf(firstRuns, ''),
  };
  if (second) {
    const [, secondRuns] = second;
    fields[`${second[0]}-ratio`] = fmt(ratioOf(secondRuns));
    Object.assign(fields, figuresOf(secondRuns, `${second[0]}-`));
    fields[`${second[0]}/${firstBackend}`] = fmt(
      median(secondRuns.map((r) => r.converge.ms)) / median(firstRuns.map((r) => r.converge.ms)),
    );
  }
  const after = s.after ? await s.after(args) : {};
  console.log(resultLine(s.name, fmt(ratioOf(firstRuns)), 'ratio', { ...fields, ...(s.variant ?? {}), ...after }));
}
