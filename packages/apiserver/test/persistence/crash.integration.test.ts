// The crash test: a child process writes 1,000 ConfigMaps (plus updates and deletes) from four
// concurrent clients into a data directory and is killed with SIGKILL at a random moment; the directory is
// then loaded again and every acknowledged write must be there with its resourceVersion, the in-flight
// writes either fully there or not at all, and the counter not below anything acknowledged. Several rounds
// run on the same directory, so recovery after recovery (torn tails, interrupted snapshots) is covered.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ObjectStore } from '../../src/storage/store.ts';
import { type Durability, openPersistence } from '../../src/storage/wal/persistence.ts';
import { CONFIGMAPS, configMap, tempDataDir } from './fixture.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const CREATES = 1000;
const WORKERS = 4;
const ROUNDS = 3;

interface Version {
  rv: string;
  payload: string;
}
interface Op {
  op: 'create' | 'update' | 'delete';
  name: string;
  payload: string;
}

interface ChildRun {
  acked: number;
  lastAckedRv: number;
  killed: boolean;
  inFlight: Map<string, Op>;
  stderr: string;
}

/** Runs one child, applying its acknowledged writes to `state`, and SIGKILLs it after `killAfterAcks` acks. */
function runChild(
  dir: string,
  round: number,
  durability: Durability,
  killAfterAcks: number,
  state: Map<string, Version>,
): Promise<ChildRun> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, dir, String(round), String(CREATES), String(WORKERS), durability, '150'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const run: ChildRun = { acked: 0, lastAckedRv: 0, killed: false, inFlight: new Map(), stderr: '' };
  const pending = new Map<string, Op>(); // worker → the write it has begun and not yet had acknowledged
  let buffered = '';
  const onLine = (line: string) => {
    const [kind, worker, op, name, last] = line.split(' ');
    if (kind === 'begin') pending.set(worker!, { op: op as Op['op'], name: name!, payload: last! });
    if (kind !== 'ack') return;
    const begun = pending.get(worker!);
    assert.equal(begun?.name, name, `ack for ${name} matches the write worker ${worker} began`);
    pending.delete(worker!);
    if (op === 'delete') state.delete(name!);
    else state.set(name!, { rv: last!, payload: begun!.payload });
    run.lastAckedRv = Math.max(run.lastAckedRv, Number(last));
    if (++run.acked === killAfterAcks) run.killed = child.kill('SIGKILL');
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!; // an incomplete line was cut by the kill: its write was never acknowledged
    for (const l of lines) onLine(l);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      for (const op of pending.values()) run.inFlight.set(op.name, op);
      if (signal === 'SIGKILL' || code === 0) resolve(run);
      else reject(new Error(`child exited with ${code ?? signal}: ${run.stderr}`));
    });
  });
}

function contents(store: ObjectStore): Map<string, Version> {
  const out = new Map<string, Version>();
  for (const o of store.list(CONFIGMAPS))
    out.set(o.metadata.name!, { rv: o.metadata.resourceVersion!, payload: (o.data as { payload: string }).payload });
  return out;
}

/** Differences between what was acknowledged and what was restored that an in-flight write cannot explain. */
function unexplained(acked: Map<string, Version>, restored: Map<string, Version>, inFlight: Map<string, Op>): string[] {
  const problems: string[] = [];
  for (const name of new Set([...acked.keys(), ...restored.keys()])) {
    const want = acked.get(name);
    const got = restored.get(name);
    if (want?.rv === got?.rv && want?.payload === got?.payload) continue;
    const op = inFlight.get(name);
    if (op?.op === 'delete' && got === undefined) continue;
    if (op && op.op !== 'delete' && got?.payload === op.payload) continue;
    problems.push(
      `${name}: acknowledged ${JSON.stringify(want ?? 'absent')}, restored ${JSON.stringify(got ?? 'absent')}${op ? `, in flight: ${op.op} ${op.payload}` : ''}`,
    );
  }
  return problems;
}

describe('persistence: SIGKILL at a random moment loses no acknowledged write', { timeout: 180_000 }, () => {
  for (const durability of ['batch', 'always'] as const) {
    it(`${ROUNDS} rounds of ${CREATES} creates from ${WORKERS} clients, killed and restarted (${durability})`, async () => {
      const dir = tempDataDir();
      let state = new Map<string, Version>();
      for (let round = 1; round <= ROUNDS; round++) {
        const killAfter = 100 + Math.floor(Math.random() * (CREATES - 200));
        const run = await runChild(dir, round, durability, killAfter, state);
        const context = `round ${round}, killed after ${killAfter} acks (${dir})`;
        assert.ok(run.killed, `the child was still writing when killed: ${context}`);

        const warnings: string[] = [];
        const p = openPersistence(dir, { durability, warn: (m) => warnings.push(m) });
        const store = new ObjectStore();
        p.load(store);
        const restored = contents(store);
        assert.deepEqual(unexplained(state, restored, run.inFlight), [], context);
        assert.ok(
          store.currentRv() >= run.lastAckedRv,
          `counter ${store.currentRv()} is not below the last acknowledged ${run.lastAckedRv}: ${context}`,
        );
        const highest = Math.max(0, ...[...restored.values()].map((v) => Number(v.rv)));
        const next = store.commit(CONFIGMAPS, 'ADDED', configMap(`after-round-${round}`, 'probe'));
        assert.ok(Number(next.metadata.resourceVersion) > Math.max(highest, run.lastAckedRv), context);
        store.commit(CONFIGMAPS, 'DELETED', next);
        await p.flush();
        await p.close();
        assert.deepEqual(
          warnings.filter((w) => !w.includes('cut off an incomplete last record')),
          [],
          context,
        );
        state = restored;
      }
    });
  }
});
