// Embedded API server throughput and latency: creates/s of a 2 KiB custom resource validated by a real
// structural schema with CEL rules; full and paginated (limit=500) list latency at 10,000 objects; and
// watch delivery latency to 100 concurrent watchers over 200 writes.
//
// The server runs in a child process by default (`--in-process` to share this one) so the client's
// TLS, JSON and bookkeeping do not steal the server's CPU on a 2-core machine. Watch latency is measured
// from the commit: the server process stamps each write with process.hrtime (CLOCK_MONOTONIC, shared by
// every process on the host) from a store listener, and the client stamps the arrival of each event line;
// the latency from the client's receipt of the write's response is printed too. `--profile DIR` runs the
// server under `node --cpu-prof`.
//
// `--backend embedded|real|both` runs instead the side-by-side comparison with kube-apiserver (compare.ts).
//
// Last stdout line: `apiserver: <creates/s> creates/s (list10k-ms=…, watch-p99-ms=…, watchers=100, object-bytes=…, …)`.
import { type ChildProcess, fork } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { partsOf } from '../src/handle.ts';
import { Client, type Target } from './lib/bench-client.ts';
import { benchObject, crd, GROUP, PLURAL } from './lib/bench-object.ts';
import { askChild } from './lib/child-ipc.ts';
import { compareBackends } from './lib/compare.ts';

const log = (s: string) => process.stderr.write(`[bench apiserver] ${s}\n`);

interface ServerControl {
  target: Target;
  /** commit timestamps (hrtime ns) of the watch-phase writes, by object name */
  commits(): Promise<Map<string, bigint>>;
  /** the server process's CPU time so far (user + system, µs) and minor page faults: per-create costs independent of the client's share */
  usage(): Promise<{ micros: number; faults: number }>;
  stop(): Promise<void>;
}

// ---------- the server side (child process or in-process) ----------

type CommitStamps = Map<string, bigint>;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function minorFaults(): number {
  return process.resourceUsage().minorPageFault;
}

async function startServer(): Promise<{ target: Target; stamps: CommitStamps; close: () => Promise<void> }> {
  const { startApiServer } = await import('../src/index.ts');
  const server = await startApiServer({ port: 0 });
  const stamps: CommitStamps = new Map();
  const storageKey = `${GROUP}/${PLURAL}`;
  // A store listener runs synchronously inside the commit, before any watch is notified: the commit time.
  partsOf(server).core.store.watch(storageKey, partsOf(server).core.store.currentRv(), (e) => {
    const name = e.object.metadata.name ?? '';
    if (name.startsWith('w-')) stamps.set(name, process.hrtime.bigint());
  });
  return {
    target: { port: server.port, caPem: server.caPem, token: server.adminToken },
    stamps,
    close: () => server.close(),
  };
}

async function serveAsChild(): Promise<void> {
  const s = await startServer();
  process.on('message', async (m: { op: string }) => {
    if (m.op === 'commits') process.send!({ op: 'commits', stamps: [...s.stamps].map(([k, v]) => [k, String(v)]) });
    if (m.op === 'cpu') process.send!({ op: 'cpu', micros: cpuMicros(), faults: minorFaults() });
    if (m.op === 'stop') {
      await s.close();
      process.exit(0);
    }
  });
  // the benchmark process died or was interrupted: do not linger as an orphaned server
  process.on('disconnect', () => process.exit(0));
  process.send!({ op: 'ready', target: s.target });
}

async function launch(inProcess: boolean, profileDir: string | undefined): Promise<ServerControl> {
  if (inProcess) {
    const s = await startServer();
    return {
      target: s.target,
      commits: async () => s.stamps,
      usage: async () => ({ micros: cpuMicros(), faults: minorFaults() }),
      stop: s.close,
    };
  }
  const execArgv = ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const target = await new Promise<Target>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server process exited early (code ${code})`)));
    child.on('message', (m: { op: string; target?: Target }) => m.op === 'ready' && resolve(m.target!));
  });
  const ask = <T>(op: string, pick: (m: Record<string, unknown>) => T) => askChild(child, op, pick);
  return {
    target,
    usage: () => ask('cpu', (m) => ({ micros: m.micros as number, faults: m.faults as number })),
    commits: () => ask('commits', (m) => new Map((m.stamps as [string, string][]).map(([k, v]) => [k, BigInt(v)]))),
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.send({ op: 'stop' });
      }),
  };
}

// ---------- the client side ----------

const col = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/${PLURAL}`;

async function createMany(
  c: Client,
  ns: string,
  prefix: string,
  n: number,
  concurrency: number,
  size: number,
): Promise<{ rate: number; failures: number }> {
  let next = 0;
  let failures = 0;
  let firstFailure = '';
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const r = await c.call('POST', col(ns), benchObject(`${prefix}-${i}`, size));
        if (r.status !== 201) {
          failures++;
          firstFailure ||= `${r.status} ${r.body.slice(0, 300)}`;
        }
      }
    }),
  );
  const rate = n / ((performance.now() - start) / 1000);
  if (failures) log(`${failures} creates failed, first: ${firstFailure}`);
  return { rate, failures };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const ms = (x: number) => Math.round(x * 100) / 100;

async function listLatency(
  c: Client,
  ns: string,
  runs: number,
): Promise<{ full: number; paged: number; items: number }> {
  const full: number[] = [];
  const paged: number[] = [];
  let items = 0;
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    const r = await c.call('GET', col(ns));
    full.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${r.body.slice(0, 300)}`);
    items = (r.body.match(/"kind":"BenchObject"/g) ?? []).length;
    t = performance.now();
    let cont = '';
    let pages = 0;
    do {
      const page = await c.call('GET', `${col(ns)}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      if (page.status !== 200) throw new Error(`paged list failed: ${page.status} ${page.body.slice(0, 300)}`);
      cont = (JSON.parse(page.body) as { metadata: { continue?: string } }).metadata.continue ?? '';
      pages++;
    } while (cont && pages < 1000);
    paged.push(performance.now() - t);
  }
  return { full: median(full), paged: median(paged), items };
}

interface Watcher {
  received: Map<string, bigint>;
  close(): void;
}

function openWatcher(t: Target, agent: Agent, ns: string, rv: string): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const received = new Map<string, bigint>();
    const path = `${col(ns)}?watch=true&resourceVersion=${rv}&timeoutSeconds=900`;
    const req = request(
      { host: '127.0.0.1', port: t.port, path, headers: { Authorization: `Bearer ${t.token}` }, agent },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) return reject(new Error(`watch: HTTP ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = process.hrtime.bigint();
          buf += chunk;
          let nl = buf.indexOf('\n');
          while (nl >= 0) {
            // only the name matters here; a full JSON.parse per event would inflate the client's share
            const m = /"name":"(w-\d+)"/.exec(buf.slice(0, nl));
            if (m && !received.has(m[1]!)) received.set(m[1]!, now);
            buf = buf.slice(nl + 1);
            nl = buf.indexOf('\n');
          }
        });
        res.on('error', () => {});
        resolve({ received, close: () => req.destroy() });
      },
    );
    req.on('error', (e) => reject(e));
    req.end();
  });
}

async function watchLatency(c: Client, server: ServerControl, watchers: number, writes: number, size: number) {
  const ns = 'bench-watch';
  await c.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const list = (await c.must('GET', col(ns))) as { metadata: { resourceVersion: string } };
  const agent = new Agent({ keepAlive: true, maxSockets: watchers + 1, ca: c.t.caPem });
  const ws = await Promise.all(
    Array.from({ length: watchers }, () => openWatcher(c.t, agent, ns, list.metadata.resourceVersion)),
  );
  log(`${ws.length} watchers open; writing ${writes} objects one at a time`);
  const acked = new Map<string, bigint>();
  for (let i = 0; i < writes; i++) {
    const name = `w-${i}`;
    const r = await c.call('POST', col(ns), benchObject(name, size));
    acked.set(name, process.hrtime.bigint());
    if (r.status !== 201) throw new Error(`watch-phase write ${name}: ${r.status} ${r.body.slice(0, 300)}`);
  }
  const deadline = Date.now() + 10_000;
  while (ws.some((w) => w.received.size < writes) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const w of ws) w.close();
  agent.destroy();
  const commits = await server.commits();
  const fromCommit: number[] = [];
  const fromAck: number[] = [];
  let missing = 0;
  for (const w of ws) {
    for (const [name, ack] of acked) {
      const got = w.received.get(name);
      if (got === undefined) {
        missing++;
        continue;
      }
      const commit = commits.get(name);
      if (commit !== undefined) fromCommit.push(Number(got - commit) / 1e6);
      fromAck.push(Number(got - ack) / 1e6);
    }
  }
  if (!fromCommit.length) throw new Error('no watch event was delivered');
  return {
    p50: percentile(fromCommit, 50),
    p99: percentile(fromCommit, 99),
    max: percentile(fromCommit, 100),
    ackP50: percentile(fromAck, 50),
    ackP99: percentile(fromAck, 99),
    missing,
    deliveries: fromCommit.length,
  };
}

/** smoke mode (MODELPLANE_BENCH_SMOKE=1, `npm run bench:smoke`): small counts, to prove the bench still runs */
const smoke = (full: string, small: string) => (process.env.MODELPLANE_BENCH_SMOKE === '1' ? small : full);

/** `--backend embedded|real|both`: the side-by-side comparison of compare.ts, its own fixed load */
async function compare(flag: string, profileDir: string | undefined): Promise<void> {
  const known: Record<string, ReadonlyArray<'embedded' | 'real'>> = {
    embedded: ['embedded'],
    real: ['real'],
    both: ['embedded', 'real'],
  };
  const backends = known[flag];
  if (!backends) throw new Error(`--backend: expected embedded, real or both, got ${JSON.stringify(flag)}`);
  await compareBackends(backends, {
    objects: Number(smoke('2000', '100')),
    warmup: Number(smoke('200', '10')),
    concurrency: 32,
    objectBytes: 2048,
    listRuns: Number(smoke('7', '1')),
    watchers: Number(smoke('100', '5')),
    writes: Number(smoke('50', '5')),
    ...(profileDir ? { profileDir } : {}),
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'boolean', default: false },
      'in-process': { type: 'boolean', default: false },
      profile: { type: 'string' },
      creates: { type: 'string', default: smoke('5000', '100') },
      concurrency: { type: 'string', default: '32' },
      objects: { type: 'string', default: smoke('10000', '200') },
      watchers: { type: 'string', default: smoke('100', '5') },
      writes: { type: 'string', default: smoke('200', '10') },
      'object-bytes': { type: 'string', default: '2048' },
      'list-runs': { type: 'string', default: smoke('7', '1') },
      warmup: { type: 'string', default: smoke('3000', '20') },
      rounds: { type: 'string', default: smoke('5', '1') },
      backend: { type: 'string' },
    },
  });
  if (values.serve) return serveAsChild();
  if (values.backend !== undefined) return compare(values.backend, values.profile);
  const n = (k: keyof typeof values) => Number(values[k]);
  const size = n('object-bytes');
  const creates = n('creates');
  const server = await launch(values['in-process'] === true, values.profile);
  log(`server on port ${server.target.port} (${values['in-process'] ? 'in this process' : 'child process'})`);
  try {
    const c = new Client(server.target, n('concurrency'));
    await c.must('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd());
    for (let i = 0; i < 200 && (await c.call('GET', col('default'))).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 25));
    for (const ns of ['bench', 'bench-warmup'])
      await c.must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    log(`object body: ${Buffer.byteLength(benchObject('o-0', size))} bytes; warming up with ${n('warmup')} creates`);
    await createMany(c, 'bench-warmup', 'warm', n('warmup'), n('concurrency'), size);

    // Creates/s is the median of several rounds, so one noisy moment on a shared machine moves one round, not the figure.
    const rounds = Math.max(1, n('rounds'));
    const perRound = Math.ceil(creates / rounds);
    const rates: number[] = [];
    const serverCpu: number[] = [];
    const serverFaults: number[] = [];
    const clientCpu: number[] = [];
    let failures = 0;
    for (let r = 0; r < rounds; r++) {
      const before = await server.usage();
      const clientCpuBefore = cpuMicros();
      const round = await createMany(c, 'bench', `o${r}`, perRound, n('concurrency'), size);
      clientCpu.push((cpuMicros() - clientCpuBefore) / perRound);
      const after = await server.usage();
      serverCpu.push((after.micros - before.micros) / perRound);
      serverFaults.push((after.faults - before.faults) / perRound);
      rates.push(round.rate);
      failures += round.failures;
    }
    const measured = { rate: median(rates), failures };
    const cpuPerCreate = median(serverCpu);
    log(
      `${rounds} rounds of ${perRound} creates at concurrency ${n('concurrency')}: ${rates.map((x) => Math.round(x)).join(' / ')} creates/s, ` +
        `median ${Math.round(measured.rate)} (${failures} failed); median server CPU ${Math.round(cpuPerCreate)} µs per create ` +
        `(a ceiling of ${Math.round(1e6 / cpuPerCreate)} creates/s on one free core), client CPU ${Math.round(median(clientCpu))} µs per create, ` +
        `${median(serverFaults).toFixed(1)} server page faults per create`,
    );
    const fill = n('objects') - perRound * rounds;
    if (fill > 0) {
      const more = await createMany(c, 'bench', 'f', fill, n('concurrency'), size);
      log(`filled to ${n('objects')} objects: ${Math.round(more.rate)} creates/s`);
    }
    const list = await listLatency(c, 'bench', n('list-runs'));
    log(`list of ${list.items} objects: median ${ms(list.full)} ms full, ${ms(list.paged)} ms paginated (limit=500)`);
    c.agent.destroy();

    const w = await watchLatency(new Client(server.target, 4), server, n('watchers'), n('writes'), size);
    log(
      `watch delivery to ${n('watchers')} watchers over ${n('writes')} writes (${w.deliveries} deliveries, ${w.missing} missing): ` +
        `from commit p50 ${ms(w.p50)} ms, p99 ${ms(w.p99)} ms, max ${ms(w.max)} ms; from the client's ack p50 ${ms(w.ackP50)} ms, p99 ${ms(w.ackP99)} ms`,
    );
    if (w.missing) throw new Error(`${w.missing} watch events were never delivered`);
    console.log(
      `apiserver: ${Math.round(measured.rate)} creates/s (list10k-ms=${ms(list.full)}, watch-p99-ms=${ms(w.p99)}, watchers=${n('watchers')}, object-bytes=${size}, ` +
        `server-cpu-us-per-create=${Math.round(cpuPerCreate)}, list10k-paged-ms=${ms(list.paged)}, watch-p50-ms=${ms(w.p50)}, watch-p99-after-ack-ms=${ms(w.ackP99)}, concurrency=${n('concurrency')}, server=${values['in-process'] ? 'in-process' : 'child'})`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});
