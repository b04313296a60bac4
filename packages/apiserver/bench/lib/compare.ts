// `npm run bench -- apiserver --backend both` (or `real`, or `embedded`): the same client load against the
// embedded API server (its own process) and kube-apiserver + etcd (docs/real-kubernetes.md; the binaries in
// MODELPLANE_KUBE_BIN), one after the other on the same machine:
//   start      from launching the server until it answers (embedded: startApiServer in a fresh process,
//              module loading included; real: etcd and kube-apiserver started and ready)
//   creates/s  2,000 ConfigMaps of 2 KiB at 32 in flight, after 200 warm-up creates
//   list       the 2,000 ConfigMaps, full and paginated (limit=500), median of 7
//   watch      100 watchers, 50 writes one at a time: from sending each write until each watcher has its
//              event, p99 over every delivery (none may be missing)
//   rss        after the load: the server process (embedded) or etcd + kube-apiserver (real)
//   cpu        the server's CPU time per create, per list and per watched write (embedded: its process; real: etcd +
//              kube-apiserver, from /proc): on a loaded, shared machine the wall-clock figures say how the
//              scheduler shares two cores between one Node thread and Go's many, these say what each costs
// Last line: `apiserver: <backend figures> …` and, with both, the ratios (`×`: how many times better the
// embedded server is; above 1 is better, for creates/s as for latencies, start time and memory).
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { fileURLToPath } from 'node:url';
import { askChild } from './child-ipc.ts';

const log = (s: string) => process.stderr.write(`[bench apiserver] ${s}\n`);
const SERVE_FLAG = '--serve-for-compare';

interface Target {
  port: number;
  caPem: string;
  token: string;
}

interface Running {
  target: Target;
  startMs: number;
  rssBytes(): Promise<number>;
  /** the server's CPU time so far (user + system, µs): what a figure costs whatever else runs on the machine */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

export interface CompareOptions {
  objects: number;
  warmup: number;
  concurrency: number;
  objectBytes: number;
  listRuns: number;
  watchers: number;
  writes: number;
  /** runs the embedded server under `node --cpu-prof`, its profile written here */
  profileDir?: string;
}

export interface Figures {
  startMs: number;
  createsPerSec: number;
  listMs: number;
  pagedMs: number;
  watchP99Ms: number;
  rssMiB: number;
  /** server CPU per create (µs), per full list (ms) and per watched write (ms, its fan-out to every watcher included) */
  createCpuUs: number;
  listCpuMs: number;
  watchCpuMs: number;
}

// ---------- the embedded server, in a process of its own ----------

async function serveEmbedded(): Promise<void> {
  const t0 = performance.now();
  const { startApiServer } = await import('../../src/index.ts');
  const server = await startApiServer({ port: 0 });
  const startMs = performance.now() - t0;
  process.on('message', async (m: { op: string }) => {
    if (m.op === 'rss') process.send!({ op: 'rss', bytes: process.memoryUsage().rss });
    if (m.op === 'cpu') process.send!({ op: 'cpu', micros: process.cpuUsage().user + process.cpuUsage().system });
    if (m.op === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ op: 'ready', startMs, target: { port: server.port, caPem: server.caPem, token: server.adminToken } });
}

if (process.argv.includes(SERVE_FLAG)) void serveEmbedded();

async function startEmbedded(profileDir: string | undefined): Promise<Running> {
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [SERVE_FLAG], {
    execArgv: ['--import', 'tsx', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ startMs: number; target: Target }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the embedded server process exited early (code ${code})`)));
    child.on('message', (m: { op: string; startMs: number; target: Target }) => m.op === 'ready' && resolve(m));
  });
  const ask = <T>(op: string, pick: (m: Record<string, unknown>) => T) => askChild(child, op, pick);
  return {
    ...ready,
    rssBytes: () => ask('rss', (m) => m.bytes as number),
    cpuMicros: () => ask('cpu', (m) => m.micros as number),
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.send({ op: 'stop' });
      }),
  };
}

// ---------- kube-apiserver + etcd ----------

function processRss(pid: number | undefined): number {
  if (!pid) return 0;
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

/** utime + stime of a process, in µs (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms) */
function processCpu(pid: number | undefined): number {
  if (!pid) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function startReal(): Promise<Running> {
  const { startRealControlPlane } = await import('../../src/real/index.ts');
  const t0 = performance.now();
  // kube-controller-manager is left out: the load is the API server's, and its RSS is not counted
  const plane = await startRealControlPlane({ controllerManager: false });
  const startMs = performance.now() - t0;
  return {
    target: { port: plane.port, caPem: plane.caPem, token: plane.adminToken },
    startMs,
    rssBytes: async () => plane.processes.reduce((sum, p) => sum + processRss(p.pid), 0),
    cpuMicros: async () => plane.processes.reduce((sum, p) => sum + processCpu(p.pid), 0),
    stop: () => plane.stop(),
  };
}

// ---------- the client load ----------

function call(
  t: Target,
  agent: Agent,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { Authorization: `Bearer ${t.token}`, Accept: 'application/json' };
    if (body !== undefined)
      Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    const req = request({ host: '127.0.0.1', port: t.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string, bytes: number) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'bench' } },
    data: { payload: 'x'.repeat(Math.max(0, bytes - 120)) },
  });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

async function must(t: Target, agent: Agent, method: string, path: string, body?: unknown): Promise<any> {
  const r = await call(t, agent, method, path, body === undefined ? undefined : JSON.stringify(body));
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body);
}

async function createMany(t: Target, agent: Agent, ns: string, n: number, o: CompareOptions): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const r = await call(t, agent, 'POST', cms(ns), configMap(`cm-${i}`, o.objectBytes));
        if (r.status !== 201) throw new Error(`create cm-${i}: ${r.status} ${r.body.slice(0, 300)}`);
      }
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

async function listTimes(
  t: Target,
  agent: Agent,
  ns: string,
  o: CompareOptions,
): Promise<{ full: number; paged: number }> {
  const full: number[] = [];
  const paged: number[] = [];
  for (let i = 0; i < o.listRuns; i++) {
    let at = performance.now();
    const all = await must(t, agent, 'GET', cms(ns));
    full.push(performance.now() - at);
    // (the embedded server also publishes kube-root-ca.crt in every namespace; kube-controller-manager, left out here, would too)
    const ours = all.items.filter((i: any) => i.metadata.labels?.app === 'bench').length;
    if (ours !== o.objects) throw new Error(`listed ${ours} bench ConfigMaps, expected ${o.objects}`);
    at = performance.now();
    let cont = '';
    do {
      const page = await must(
        t,
        agent,
        'GET',
        `${cms(ns)}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      cont = page.metadata.continue ?? '';
    } while (cont);
    paged.push(performance.now() - at);
  }
  return { full: median(full), paged: median(paged) };
}

function openWatch(t: Target, agent: Agent, ns: string, rv: string, seen: Map<string, number>): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const path = `${cms(ns)}?watch=true&resourceVersion=${rv}&timeoutSeconds=600`;
    const req = request(
      { host: '127.0.0.1', port: t.port, path, headers: { Authorization: `Bearer ${t.token}` }, agent },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200) return reject(new Error(`watch: HTTP ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = performance.now();
          buf += chunk;
          for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
            const name = /"name":"(w-\d+)"/.exec(buf.slice(0, nl))?.[1];
            if (name && !seen.has(name)) seen.set(name, now);
            buf = buf.slice(nl + 1);
          }
        });
        res.on('error', () => {});
        resolve(() => req.destroy());
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** the p99 delivery delay, and the server's CPU per write from the first write until every watcher has all */
async function watchP99(
  t: Target,
  agent: Agent,
  o: CompareOptions,
  cpuMicros: () => Promise<number>,
): Promise<{ p99: number; cpuMsPerWrite: number }> {
  const ns = 'bench-watch';
  await must(t, agent, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const rv = (await must(t, agent, 'GET', cms(ns))).metadata.resourceVersion as string;
  const watchAgent = new Agent({ keepAlive: true, maxSockets: o.watchers + 1, ca: t.caPem });
  const seen = Array.from({ length: o.watchers }, () => new Map<string, number>());
  const closers = await Promise.all(seen.map((s) => openWatch(t, watchAgent, ns, rv, s)));
  const sent = new Map<string, number>();
  const cpuBefore = await cpuMicros();
  for (let i = 0; i < o.writes; i++) {
    const name = `w-${i}`;
    sent.set(name, performance.now());
    const r = await call(t, agent, 'POST', cms(ns), configMap(name, o.objectBytes));
    if (r.status !== 201) throw new Error(`watch-phase write ${name}: ${r.status}`);
  }
  const deadline = Date.now() + 30_000;
  while (seen.some((s) => s.size < o.writes) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const cpuMsPerWrite = ((await cpuMicros()) - cpuBefore) / 1000 / o.writes;
  for (const close of closers) close();
  watchAgent.destroy();
  const delays: number[] = [];
  for (const s of seen)
    for (const [name, at] of sent) {
      const got = s.get(name);
      if (got === undefined) throw new Error(`a watcher never got ${name}`);
      delays.push(got - at);
    }
  return { p99: percentile(delays, 99), cpuMsPerWrite };
}

async function measure(backend: 'embedded' | 'real', o: CompareOptions): Promise<Figures> {
  const server = backend === 'embedded' ? await startEmbedded(o.profileDir) : await startReal();
  log(`${backend}: ready in ${server.startMs.toFixed(0)} ms`);
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency, ca: server.target.caPem });
  try {
    const t = server.target;
    for (const ns of ['bench', 'bench-warmup'])
      await must(t, agent, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
    await createMany(t, agent, 'bench-warmup', o.warmup, o);
    let cpu = await server.cpuMicros();
    const createsPerSec = await createMany(t, agent, 'bench', o.objects, o);
    const createCpuUs = ((await server.cpuMicros()) - cpu) / o.objects;
    cpu = await server.cpuMicros();
    const list = await listTimes(t, agent, 'bench', o);
    // each run lists once in full and once in pages: the pages cost about the same again
    const listCpuMs = ((await server.cpuMicros()) - cpu) / 1000 / (2 * o.listRuns);
    const watch = await watchP99(t, agent, o, () => server.cpuMicros());
    const rssMiB = (await server.rssBytes()) / 2 ** 20;
    const f: Figures = {
      createCpuUs,
      listCpuMs,
      watchCpuMs: watch.cpuMsPerWrite,
      startMs: server.startMs,
      createsPerSec,
      listMs: list.full,
      pagedMs: list.paged,
      watchP99Ms: watch.p99,
      rssMiB,
    };
    log(`${backend}: ${JSON.stringify(f)}`);
    return f;
  } finally {
    agent.destroy();
    await server.stop();
  }
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const describe = (b: string, f: Figures) =>
  `${b}: creates/s=${Math.round(f.createsPerSec)} list-ms=${r1(f.listMs)} list-paged-ms=${r1(f.pagedMs)} watch-p99-ms=${r1(f.watchP99Ms)} start-ms=${Math.round(f.startMs)} rss-mib=${Math.round(f.rssMiB)} cpu-us/create=${Math.round(f.createCpuUs)} cpu-ms/list=${r1(f.listCpuMs)} cpu-ms/watched-write=${r1(f.watchCpuMs)}`;

/** embedded's figures relative to the real server's: above 1, the embedded server is better */
export function ratios(e: Figures, r: Figures): Record<string, number> {
  // a figure one server's accounting could not resolve (0: below /proc's 10 ms ticks in smoke mode) has no ratio
  const x = (v: number) => (Number.isFinite(v) && v > 0 ? Math.round(v * 100) / 100 : Number.NaN);
  return {
    creates: x(e.createsPerSec / r.createsPerSec),
    list: x(r.listMs / e.listMs),
    paged: x(r.pagedMs / e.pagedMs),
    watch: x(r.watchP99Ms / e.watchP99Ms),
    start: x(r.startMs / e.startMs),
    rss: x(r.rssMiB / e.rssMiB),
    'cpu/create': x(r.createCpuUs / e.createCpuUs),
    'cpu/list': x(r.listCpuMs / e.listCpuMs),
    'cpu/watched-write': x(r.watchCpuMs / e.watchCpuMs),
  };
}

export async function compareBackends(backends: ReadonlyArray<'embedded' | 'real'>, o: CompareOptions): Promise<void> {
  const figures = new Map<string, Figures>();
  for (const b of backends) figures.set(b, await measure(b, o));
  const parts = [...figures].map(([b, f]) => describe(b, f));
  const e = figures.get('embedded');
  const r = figures.get('real');
  if (e && r)
    parts.push(
      `ratios: ${Object.entries(ratios(e, r))
        .map(([k, v]) => `${k}=${Number.isNaN(v) ? 'n/a' : `${v}×`}`)
        .join(' ')}`,
    );
  console.log(
    `apiserver: ${parts.join('; ')} (objects=${o.objects}, object-bytes=${o.objectBytes}, concurrency=${o.concurrency}, watchers=${o.watchers})`,
  );
}
