// One controller set run as a real `modelplane run` / `modelplane provider` process that the reliability
// tests may SIGKILL at any moment and start again, as a crash-looping pod would be. The slot keeps the
// ServiceAccount user (the same for every incarnation, so faults and the audit log follow it) and the
// output of every incarnation, for the detail of a failed wait.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestFaults } from '@modelplane/apiserver/testing';
import type { ControllerSet } from '../../../src/controllers/registry.ts';
import { type OperatorProcess, type ProcessOptions, startOperatorProcess } from '../../helpers/operator-process.ts';
import type { ReliabilityCluster } from './reliability-cluster.ts';

export class OperatorSlot {
  private proc: OperatorProcess | undefined;
  private readonly logs: string[] = [];
  kills = 0;

  constructor(
    private readonly cluster: ReliabilityCluster,
    readonly set: ControllerSet,
    private readonly opts: ProcessOptions = {},
  ) {}

  get user(): string {
    return `system:serviceaccount:modelplane-system:modelplane-${this.set.name}`;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.child.exitCode === null && this.proc.child.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.set.name}: a process is already running`);
    this.proc = await startOperatorProcess(this.cluster.credentials, this.cluster.admin, this.set, this.opts);
  }

  /** SIGKILL: no graceful shutdown, in-flight requests and the workqueue are simply gone */
  async kill(): Promise<void> {
    if (!this.proc) return;
    const p = this.proc;
    this.proc = undefined;
    this.kills++;
    await p.stop('SIGKILL');
    this.logs.push(p.output());
  }

  async stop(): Promise<void> {
    if (!this.proc) return;
    const p = this.proc;
    this.proc = undefined;
    await p.stop();
    this.logs.push(p.output());
  }

  /** the last `max` log lines of every incarnation that mention one of `needles` (e.g. `ns/name`) */
  linesAbout(needles: readonly string[], max = 12): string {
    const all = [...this.logs, this.proc?.output() ?? ''].join('\n').split('\n');
    return all
      .filter((l) => needles.some((n) => l.includes(n)))
      .slice(-max)
      .join('\n');
  }

  /** the last `chars` of the output of every incarnation so far, the live one last */
  output(chars = 4000): string {
    const all = [...this.logs, this.proc?.output() ?? ''].join('\n--- restarted ---\n');
    return all.slice(-chars);
  }
}

export { prng } from '@modelplane/apiserver/testing';

/** docs/architecture.md from RELIABILITY_SEED, else a fresh one; the test prints it so a failure can be replayed */
export function testSeed(): number {
  const fromEnv = Number(process.env.RELIABILITY_SEED);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
}

export function between(rng: () => number, min: number, max: number): number {
  return Math.round(min + rng() * (max - min));
}

/**
 * Runs `ops` in order while killing the slots `kills` times at random moments: each round starts the next
 * share of the operations, SIGKILLs the chosen slots after a random delay (so the kill lands while they
 * reconcile what the round just wrote), waits for the round's writes, and starts new processes. Whatever
 * is left runs after the last restart.
 */
export async function runWithKills(opts: {
  ops: Array<() => Promise<void>>;
  kills: number;
  rng: () => number;
  /** which slots die in a round (default: all) */
  victims: (rng: () => number) => OperatorSlot[];
  /** random delay before each kill, ms */
  delayMs: [number, number];
}): Promise<void> {
  const ops = [...opts.ops];
  for (let round = 0; round < opts.kills; round++) {
    const share = ops.splice(0, Math.ceil(ops.length / (opts.kills - round + 1)));
    const writing = (async () => {
      for (const op of share) await op();
    })();
    // awaited below, after the kill: a failure must not count as unhandled meanwhile
    writing.catch(() => {});
    await new Promise((r) => setTimeout(r, between(opts.rng, ...opts.delayMs)));
    const victims = opts.victims(opts.rng);
    await Promise.all(victims.map((s) => s.kill()));
    await writing;
    await Promise.all(victims.map((s) => s.start()));
  }
  for (const op of ops) await op();
}

/**
 * The watch-fault sequence both reliability suites run while `ops` change objects: watches dropped; stalled
 * (ending, like a black-holed connection, with a reset in the same tick so no event slips out); stalled again
 * over changes and then expired, so resuming gets 410 Gone and must relist; and a few more drops during the
 * last quarter. Returns when every op ran and the drops are over, with the moment the history expired.
 */
export async function runUnderWatchFaults(
  f: TestFaults,
  rng: () => number,
  ops: Array<() => Promise<void>>,
  run: (ops: Array<() => Promise<void>>) => Promise<void>,
): Promise<{ expiredAt: string }> {
  const quarter = Math.ceil(ops.length / 4);
  f.closeWatches();
  await run(ops.splice(0, quarter));

  f.stallWatches(true);
  await run(ops.splice(0, quarter));
  await sleep(between(rng, 300, 1_000));
  f.stallWatches(false);
  f.closeWatches();

  f.stallWatches(true);
  await run(ops.splice(0, quarter));
  const expiredAt = new Date().toISOString();
  f.stallWatches(false);
  await f.expireWatches();

  const closing = (async () => {
    for (let i = 0; i < 3; i++) {
      await sleep(between(rng, 100, 600));
      f.closeWatches();
    }
  })();
  await run(ops);
  await closing;
  return { expiredAt };
}

/** restarts the API server in place `times` times at random moments while `writing` runs, each time checking a new server answers */
export async function restartApiServerDuring(
  cluster: ReliabilityCluster,
  rng: () => number,
  writing: Promise<void>,
  times = 2,
): Promise<void> {
  writing.catch(() => {});
  for (let i = 0; i < times; i++) {
    await sleep(between(rng, 300, 1_500));
    await cluster.restartApiServer();
  }
  await writing;
}
