// The crash test through the real server: `modelplane dev --only apiserver --data-dir DIR` runs
// in a child process while this process writes 2 KiB ConfigMaps (plus updates and deletes) over several
// keep-alive HTTPS connections, and the child is SIGKILLed after a random number of acknowledged writes.
// A write counts as acknowledged only once its 2xx response body has fully arrived and parsed. The server
// is then restarted on the same directory (new port; CA and admin token come from the directory) and every
// acknowledged write must be there with exactly its resourceVersion and payload, every acknowledged delete
// absent, and a new write must get a higher resourceVersion. The write a connection had in flight at the
// kill may have landed or not, but not half. Several rounds run on the same directory.
//
// The kill point and the choice of operations come from a seeded PRNG; the seed is printed, and
// MODELPLANE_CRASH_SEED=<seed> repeats its choices (the interleaving of the connections still varies).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { prng } from '@modelplane/apiserver/testing';
import { parse as parseYaml } from 'yaml';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CREATES = 1000;
const CONNECTIONS = 4;
const ROUNDS = 3;
const LABEL = 'crash-test';
const COLLECTION = '/api/v1/namespaces/default/configmaps';

interface Server {
  child: ChildProcess;
  url: URL;
  ca: string;
  token: string;
  exited: Promise<void>;
  stderr(): string;
}

/** Starts `modelplane dev --only apiserver` on DIR and resolves once it has written its kubeconfig. */
function startServer(dir: string): Promise<Server> {
  const kubeconfig = join(dir, 'kubeconfig');
  const child = spawn(
    process.execPath,
    ['bin/modelplane.js', 'dev', '--only', 'apiserver', '--port', '0', '--data-dir', dir, '--kubeconfig', kubeconfig],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MODELPLANE_LOG_LEVEL: 'warn' },
    },
  );
  let stderr = '';
  let stdout = '';
  let ready = false;
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the API server on ${dir} did not become ready within 30s: ${stderr}`));
    }, 30_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the API server on ${dir} exited with ${code ?? signal} before it was ready: ${stderr}`));
    });
    // dev.ts prints this line only after the kubeconfig file has been written completely
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      if (ready || !stdout.includes('API server at ')) return;
      ready = true;
      clearTimeout(timer);
      const kc = parseYaml(readFileSync(kubeconfig, 'utf8')) as {
        clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
        users: { user: { token: string } }[];
      };
      const cluster = kc.clusters[0]!.cluster;
      resolve({
        child,
        url: new URL(cluster.server),
        ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
        token: kc.users[0]!.user.token,
        exited,
        stderr: () => stderr,
      });
    });
  });
}

interface Reply {
  status: number;
  body: any;
}

/** One request; resolves only when the whole response body arrived and parses, which is what "acknowledged" means here. */
function call(server: Server, agent: Agent, method: string, path: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: server.url.hostname,
        port: server.url.port,
        path,
        method,
        agent,
        headers: {
          authorization: `Bearer ${server.token}`,
          accept: 'application/json',
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`${method} ${path}: response aborted`)));
        res.on('end', () => {
          if (!res.complete) return reject(new Error(`${method} ${path}: response incomplete`));
          try {
            resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function configMap(name: string, payload: string, resourceVersion?: string) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { app: LABEL }, ...(resourceVersion ? { resourceVersion } : {}) },
    data: { payload, filler: 'x'.repeat(2048 - 200) },
  };
}

interface Version {
  rv: string;
  payload: string;
}
interface Op {
  op: 'create' | 'update' | 'delete';
  name: string;
  payload: string;
}

/** What one round of writing against one server acknowledged, applied to `state` as the acks arrive. */
interface Round {
  acked: number;
  maxAckedRv: number;
  killed: boolean;
  inFlight: Map<string, Op>;
}

async function writeUntilKilled(
  server: Server,
  state: Map<string, Version>,
  round: number,
  killAfter: number,
  rand: () => number,
): Promise<Round> {
  const run: Round = { acked: 0, maxAckedRv: 0, killed: false, inFlight: new Map() };
  // each connection owns its objects, so no two writes to one object are ever in flight together
  const owned: string[][] = Array.from({ length: CONNECTIONS }, () => []);
  let next = 0;
  for (const name of state.keys()) owned[next++ % CONNECTIONS]!.push(name);
  let payloadSeq = 0;

  const connection = async (c: number): Promise<void> => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    const mine = owned[c]!;
    try {
      for (let created = 0; created < CREATES / CONNECTIONS && !run.killed; ) {
        const roll = rand();
        const op: Op = { op: 'create', name: '', payload: `r${round}-p${payloadSeq++}` };
        if (mine.length > 2 && roll < 0.15) {
          op.op = 'update';
          op.name = mine[Math.floor(rand() * mine.length)]!;
        } else if (mine.length > 2 && roll < 0.25) {
          op.op = 'delete';
          op.name = mine.splice(Math.floor(rand() * mine.length), 1)[0]!;
        } else {
          op.name = `r${round}-c${c}-${created++}`;
          mine.push(op.name);
        }
        run.inFlight.set(op.name, op);
        let reply: Reply;
        try {
          if (op.op === 'create') reply = await call(server, agent, 'POST', COLLECTION, configMap(op.name, op.payload));
          else if (op.op === 'update')
            reply = await call(
              server,
              agent,
              'PUT',
              `${COLLECTION}/${op.name}`,
              configMap(op.name, op.payload, state.get(op.name)!.rv),
            );
          else reply = await call(server, agent, 'DELETE', `${COLLECTION}/${op.name}`);
        } catch (err) {
          if (run.killed) return; // the kill cut this one off: it stays in flight
          throw err;
        }
        if (reply.status < 200 || reply.status > 299)
          throw new Error(`${op.op} ${op.name} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
        run.inFlight.delete(op.name);
        // a delete answers with a Status, which carries no resourceVersion
        if (op.op === 'delete') state.delete(op.name);
        else {
          const rv = reply.body.metadata.resourceVersion as string;
          assert.match(rv, /^[1-9][0-9]*$/, `${op.op} ${op.name} answered resourceVersion ${rv}`);
          state.set(op.name, { rv, payload: op.payload });
          run.maxAckedRv = Math.max(run.maxAckedRv, Number(rv));
        }
        if (++run.acked === killAfter) run.killed = server.child.kill('SIGKILL');
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => connection(c)));
  return run;
}

async function listRestored(server: Server): Promise<{ objects: Map<string, Version>; listRv: number }> {
  const agent = new Agent({ keepAlive: false, ca: server.ca });
  try {
    const reply = await call(server, agent, 'GET', `${COLLECTION}?labelSelector=app%3D${LABEL}`);
    assert.equal(reply.status, 200, `list after restart: ${JSON.stringify(reply.body)}`);
    const objects = new Map<string, Version>();
    for (const o of reply.body.items)
      objects.set(o.metadata.name, { rv: o.metadata.resourceVersion, payload: o.data.payload });
    return { objects, listRv: Number(reply.body.metadata.resourceVersion) };
  } finally {
    agent.destroy();
  }
}

/** Differences between what was acknowledged and what was restored that the write in flight cannot explain. */
function unexplained(acked: Map<string, Version>, restored: Map<string, Version>, inFlight: Map<string, Op>): string[] {
  const problems: string[] = [];
  for (const name of new Set([...acked.keys(), ...restored.keys()])) {
    const want = acked.get(name);
    const got = restored.get(name);
    if (want?.rv === got?.rv && want?.payload === got?.payload) continue;
    const op = inFlight.get(name);
    if (op?.op === 'delete' && got === undefined) continue;
    if (op && op.op !== 'delete' && got?.payload === op.payload) continue;
    const what =
      want === undefined ? 'acknowledged absent (deleted or never created)' : `acknowledged ${JSON.stringify(want)}`;
    problems.push(
      `${name}: ${what}, restored ${JSON.stringify(got ?? 'absent')}${op ? `, in flight: ${op.op} ${op.payload}` : ''}`,
    );
  }
  return problems;
}

describe('API server --data-dir: SIGKILL at a random moment loses no acknowledged write', { timeout: 120_000 }, () => {
  it(`${ROUNDS} rounds of up to ${CREATES} creates over ${CONNECTIONS} keep-alive connections, killed and restarted`, async (t) => {
    const seed = process.env.MODELPLANE_CRASH_SEED
      ? Number(process.env.MODELPLANE_CRASH_SEED)
      : Math.floor(Math.random() * 2 ** 32);
    t.diagnostic(`seed ${seed} (MODELPLANE_CRASH_SEED=${seed} repeats it)`);
    const rand = prng(seed);
    const dir = mkdtempSync(join(tmpdir(), 'modelplane-crash-'));
    let server = await startServer(dir);
    const identity = { ca: server.ca, token: server.token };
    let state = new Map<string, Version>();
    let highestAcked = 0;
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const killAfter = 100 + Math.floor(rand() * 801);
        const context = `seed ${seed}, round ${round}, killed after ${killAfter} acks (${dir})`;
        const roundStarted = Date.now();
        const run = await writeUntilKilled(server, state, round, killAfter, rand);
        await server.exited;
        assert.ok(run.killed, `the server was still taking writes when killed: ${context}`);
        highestAcked = Math.max(highestAcked, run.maxAckedRv);

        server = await startServer(dir);
        assert.deepEqual(
          { ca: server.ca, token: server.token },
          identity,
          `the CA and admin token come back from the data dir: ${context}`,
        );
        const { objects, listRv } = await listRestored(server);
        const landed = [...run.inFlight.values()].filter(
          (op) => objects.get(op.name)?.payload === op.payload || (op.op === 'delete' && !objects.has(op.name)),
        ).length;
        t.diagnostic(
          `round ${round}: kill after ${killAfter}, ${run.acked} acks, ${run.inFlight.size} unanswered at the kill (${landed} of them landed), ${objects.size} objects restored, ${Date.now() - roundStarted} ms`,
        );
        assert.deepEqual(unexplained(state, objects, run.inFlight), [], context);
        assert.ok(
          listRv >= highestAcked,
          `list resourceVersion ${listRv} is below the highest acknowledged ${highestAcked}: ${context}`,
        );

        const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
        const probe = await call(server, agent, 'POST', COLLECTION, configMap(`probe-r${round}`, 'probe'));
        assert.equal(probe.status, 201, `probe create: ${JSON.stringify(probe.body)}`);
        const highestRestored = Math.max(0, ...[...objects.values()].map((v) => Number(v.rv)));
        const probeRv = Number(probe.body.metadata.resourceVersion);
        assert.ok(
          probeRv > Math.max(highestAcked, highestRestored),
          `new write got ${probeRv}, not above acknowledged ${highestAcked} / restored ${highestRestored}: ${context}`,
        );
        const removed = await call(server, agent, 'DELETE', `${COLLECTION}/probe-r${round}`);
        agent.destroy();
        assert.equal(removed.status, 200, `probe delete: ${JSON.stringify(removed.body)}`);
        highestAcked = Math.max(highestAcked, probeRv);
        // the in-flight writes that landed are now part of what the next round must find
        state = objects;
      }
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
