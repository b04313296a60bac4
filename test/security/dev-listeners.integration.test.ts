// Every port `modelplane dev` opens survives hostile traffic: the test starts it as a user would (a child
// process with the quickstart examples, so the simulated inference servers, Gateway, registry and Llama
// Stack servers are up), finds each listening TCP port of the process in /proc — the API server, webhooks,
// metrics and probes, the dashboard and every simulator, including ports nobody listed — and sends each the
// malformed traffic of test/helpers/hostile-cases.ts. After every case the port must still answer a plain
// GET and the process must be alive; slow partial header blocks must be cut within a bounded time.
// Seeded: FUZZ_SEED=<n> repeats a run (the seed is printed).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { attack, hostileCases, type SurfaceSpec, slowHeaders } from '../helpers/hostile-cases.ts';
import { exchange, type Target } from '../helpers/hostile-http.ts';
import { type Listener, listeningPorts, probeTarget } from '../helpers/listeners.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** larger than any server's stated limit (the gateway's 16 MiB is the largest) */
const OVER_EVERY_LIMIT = 17 * 1024 * 1024;
/** our servers cut a header block after 10 s (checked every second); the API server after 32 s, as kube-apiserver */
const SLOW_HEADER_DEADLINE_MS = 40_000;

function startDev(dir: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      resolve('bin/modelplane.js'),
      'dev',
      '--port',
      '0',
      '--dashboard-port',
      '0',
      '--kubeconfig',
      join(dir, 'kubeconfig'),
      '--log-dir',
      join(dir, 'logs'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MODELPLANE_LOG_LEVEL: 'info' } },
  );
}

const hostHeader = (t: Target) => `${t.host!.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;

describe(`every listening port of modelplane dev survives hostile traffic (FUZZ_SEED=${SEED})`, {
  timeout: 900_000,
}, () => {
  let dir: string;
  let child: ChildProcess;
  let output = '';
  /** the admin token: TLS ports get it, so malformed requests reach past the API server's authentication */
  let token: string | undefined;
  const targets: Array<{ listener: Listener; target: Target; baseline: number | undefined }> = [];

  const processProblem = (): string | undefined => {
    if (child.exitCode !== null || child.signalCode !== null)
      return `modelplane dev exited (${child.exitCode ?? child.signalCode}); last output:\n${output.slice(-3000)}`;
    return undefined;
  };
  const answers = async (t: Target): Promise<string | undefined> => {
    const dead = processProblem();
    if (dead) return dead;
    const o = await exchange(t, `GET / HTTP/1.1\r\nHost: ${hostHeader(t)}\r\nConnection: close\r\n\r\n`, {
      timeoutMs: 15_000,
    });
    // a TLS port that wants a client certificate (or a claim listener) closes at once: that is its answer
    if (o.status !== undefined || (o.closed && !o.silent)) return undefined;
    return `port ${t.port} no longer answers a good request (${o.silent ? 'silent' : (o.error ?? 'closed')})`;
  };

  before(async () => {
    process.stderr.write(`[fuzz] FUZZ_SEED=${SEED}\n`);
    dir = mkdtempSync(join(tmpdir(), 'modelplane-hostile-'));
    child = startDev(dir);
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 300_000;
    while (!/Every example is Ready/.test(output)) {
      if (processProblem()) assert.fail(processProblem());
      if (Date.now() > deadline) assert.fail(`the examples were not Ready in time:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    token = /token: (\S+)/.exec(readFileSync(join(dir, 'kubeconfig'), 'utf8'))?.[1];
    for (const listener of listeningPorts(child.pid!)) {
      const target = await probeTarget(listener);
      const first = await exchange(target, `GET / HTTP/1.1\r\nHost: ${hostHeader(target)}\r\n\r\n`, {
        timeoutMs: 10_000,
      });
      targets.push({ listener, target, baseline: first.status });
    }
    process.stderr.write(
      `[fuzz] ${targets.length} listening ports: ${targets.map((t) => `${t.listener.address}:${t.listener.port}${t.target.tls ? ' (TLS)' : ''} → ${t.baseline ?? '-'}`).join(', ')}\n`,
    );
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      child.kill('SIGKILL');
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the API server, the dashboard and the simulators among the ports', () => {
    assert.ok(targets.length >= 6, `only ${targets.length} listening ports`);
    assert.ok(
      targets.some((t) => t.target.tls),
      'the API server and webhooks speak TLS',
    );
    assert.ok(targets.filter((t) => !t.target.tls).length >= 4, 'the dashboard and simulators speak plain HTTP');
  });

  it('every port answers each malformed request with a 4xx (or closes), never a 5xx, and keeps serving', async () => {
    const problems: string[] = [];
    for (const [i, t] of targets.entries()) {
      const spec: SurfaceSpec = {
        host: hostHeader(t.target),
        path: t.target.tls ? '/api/v1/namespaces/default/configmaps' : '/',
        seed: SEED + i,
        mutations: 12,
        ...(t.target.tls && token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
      };
      const cases = hostileCases(spec);
      cases.push({
        name: 'declared body over every limit',
        pieces: [
          `POST / HTTP/1.1\r\nHost: ${spec.host}\r\nContent-Type: application/json\r\nContent-Length: ${OVER_EVERY_LIMIT}\r\n\r\n`,
        ],
        expect: [413],
      });
      const allowed5xx = t.baseline !== undefined && t.baseline >= 500 ? [t.baseline] : [];
      // plain HTTP ports are ours, behind one error boundary: their exact answers are known
      const report = await attack(t.target, cases, () => answers(t.target), { allowed5xx, strict: !t.target.tls });
      const where = `${t.listener.address}:${t.listener.port}${t.target.tls ? ' (TLS)' : ''}`;
      process.stderr.write(
        `[fuzz] ${where}: ${cases.length} cases; ${[...report.outcomes].map(([k, n]) => `${k}×${n}`).join(' ')}\n`,
      );
      problems.push(...report.problems.map((p) => `${where}: ${p}`));
      if (processProblem()) break;
    }
    assert.deepEqual(problems, [], `FUZZ_SEED=${SEED}`);
    assert.equal(processProblem(), undefined);
  });

  it('slow partial header blocks are cut within a bounded time while every port keeps serving', async () => {
    const results = await Promise.all(
      targets.map(async (t) => {
        const spec: SurfaceSpec = { host: hostHeader(t.target), path: '/', seed: SEED, mutations: 0 };
        const problems = await slowHeaders(t.target, spec, SLOW_HEADER_DEADLINE_MS, () => answers(t.target), 2);
        return problems.map((p) => `${t.listener.address}:${t.listener.port}: ${p}`);
      }),
    );
    assert.deepEqual(results.flat(), []);
    assert.equal(processProblem(), undefined);
  });
});
