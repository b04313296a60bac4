// Shared pieces of the convergence benchmarks (bench/aim.ts, bench/modeldeployment.ts): an embedded API
// server with one token per client (so the audit log tells the operator's requests from the benchmark's
// own), a bounded-concurrency loop, waiting, the resync check, the "applied configuration" of an object
// (what one field manager wrote, read back from managedFields, so the baseline can write the same bytes),
// medians and the result line.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { AuditEntry, LogProvider } from '@modelplane/apiserver';
import { startApiServer } from '@modelplane/apiserver';
import { type CustomResourceDefinition, KubeClient } from '@modelplane/runtime/client';
import type { Controller } from '@modelplane/runtime/controller';
import { ensureCrd } from '@modelplane/runtime/crd';
import { EventsV1, type KubeEvent } from '@modelplane/runtime/events';
import type { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { extractOwned } from '../../src/engine/index.ts';
import { startRealBenchServer } from './real-server.ts';
import { smokeOr } from './smoke.ts';

export interface BenchArgs {
  count: number;
  /** in-flight chains of the user's creates and of the baseline */
  concurrency: number;
  runs: number;
  /** objects of an unreported run first (0: none), so no measured run pays for compiling the code */
  warmup: number;
  timeoutMs: number;
  /** write a CPU profile of each measured run (creates to convergence) into this directory */
  profileDir: string;
  /** the benchmark's own string options */
  extra: Record<string, string>;
  /** --backend embedded (default), real, or both: each run on each backend, the figures side by side */
  backends: BenchBackend[];
}

/** --count N (default 1000), --concurrency C (16), --runs R (3), --warmup W (100), --timeout S (600 per run), --profile DIR, plus `extra` */
export function benchArgs(extra: Record<string, string> = {}): BenchArgs {
  const own = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, { type: 'string' as const, default: v }]));
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: smokeOr('1000', '4') },
      concurrency: { type: 'string', default: '16' },
      runs: { type: 'string', default: smokeOr('3', '1') },
      warmup: { type: 'string', default: smokeOr('100', '0') },
      timeout: { type: 'string', default: smokeOr('600', '120') },
      profile: { type: 'string', default: '' },
      backend: { type: 'string', default: 'embedded' },
      ...own,
    },
  });
  const num = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`--${flag}: expected a positive integer, got ${JSON.stringify(v)}`);
    return n;
  };
  return {
    count: num('count', values.count),
    concurrency: num('concurrency', values.concurrency),
    runs: num('runs', values.runs),
    warmup: values.warmup === '0' ? 0 : num('warmup', values.warmup),
    timeoutMs: num('timeout', values.timeout) * 1000,
    profileDir: values.profile ?? '',
    backends: backendsOf(values.backend ?? 'embedded'),
    extra: Object.fromEntries(Object.keys(extra).map((k) => [k, String((values as Record<string, unknown>)[k])])),
  };
}

function backendsOf(flag: string): BenchBackend[] {
  if (flag === 'both') return ['embedded', 'real'];
  if (flag === 'embedded' || flag === 'real') return [flag];
  throw new Error(`--backend: expected embedded, real or both, got ${JSON.stringify(flag)}`);
}

export const progress = (msg: string): void => void process.stderr.write(`${msg}\n`);

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
export const isWrite = (e: AuditEntry): boolean => WRITE_VERBS.has(e.verb);

export interface BenchServer {
  backend: BenchBackend;
  admin: KubeClient;
  /** a kubeconfig for a new cluster-admin user `name`, whose requests the audit log files under that name */
  kubeconfigFor(name: string): Promise<string>;
  /** audit entries from index `from` on, of the given users */
  requests(users: ReadonlySet<string>, from?: number): AuditEntry[];
  get auditLength(): number;
  close(): Promise<void>;
}

/** the embedded API server, or the real kube-apiserver + etcd + kube-controller-manager (docs/real-kubernetes.md) */
export type BenchBackend = 'embedded' | 'real';

export async function startBenchServer(
  crds: readonly CustomResourceDefinition[],
  namespaces: readonly string[],
  backend: BenchBackend = 'embedded',
  /** container logs the embedded server answers pods/log with (the real backend asks its kubelets: none) */
  podLogs?: LogProvider,
): Promise<BenchServer> {
  if (backend === 'real') return startRealBenchServer(crds, namespaces);
  // the audit log keeps a bounded buffer and trims it from the front, which would shift the indices the
  // benchmark marks; an append-only copy of every entry keeps them stable (and needs no copy to read)
  const entries: AuditEntry[] = [];
  const srv = await startApiServer({ port: 0, auditSink: (e) => entries.push(e), ...(podLogs ? { podLogs } : {}) });
  const admin = await KubeClient.create(srv.kubeconfigYaml(), { fieldManager: 'bench-admin' });
  for (const crd of crds) await ensureCrd(admin, crd);
  for (const name of namespaces) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return {
    backend,
    admin,
    async kubeconfigFor(name) {
      const token = randomBytes(18).toString('base64url');
      srv.addToken(token, { username: name, groups: ['system:masters', 'system:authenticated'] });
      return srv.kubeconfigYaml({ token, user: name });
    },
    requests: (users, from = 0) => entries.slice(from).filter((e) => users.has(e.user)),
    get auditLength() {
      return entries.length;
    },
    async close() {
      admin.close();
      await srv.close();
    },
  };
}

/** runs fn(0..n-1) with at most `concurrency` calls in flight */
export async function inPool(n: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** starts the V8 CPU profiler; the returned function stops it and writes the profile to `file` */
export async function startProfile(file: string): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(profile));
    session.disconnect();
    progress(`  CPU profile written to ${file}`);
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** a point in wall-clock time and in this process's CPU time (user + system, all threads) */
export interface Instant {
  ms: number;
  cpuMs: number;
}

export function instant(): Instant {
  const cpu = process.cpuUsage();
  return { ms: performance.now(), cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** wall and CPU milliseconds from `a` to `b` */
export const elapsed = (a: Instant, b: Instant): Instant => ({ ms: b.ms - a.ms, cpuMs: b.cpuMs - a.cpuMs });

/**
 * Counts objects of `kind` in the manager's cache that satisfy `ready`, by informer events (polling a list
 * of a thousand objects would itself cost the run CPU). `done` resolves when `count` are ready at once.
 */
export async function readyTracker<T extends KubeObject>(
  mgr: Manager,
  kind: KindRef<T>,
  count: number,
  ready: (o: T) => boolean,
) {
  const inf = await mgr.cache.informer(kind);
  const readyKeys = new Set<string>();
  let resolve!: (at: Instant) => void;
  const done = new Promise<Instant>((r) => (resolve = r));
  const see = (o: KubeObject) => {
    const key = `${o.metadata.namespace}/${o.metadata.name}`;
    if (ready(o as T)) readyKeys.add(key);
    else readyKeys.delete(key);
    if (readyKeys.size >= count) resolve(instant());
  };
  const unsubscribe = inf.addHandler({
    add: see,
    update: (_old, o) => see(o),
    delete: (o) => readyKeys.delete(`${o.metadata.namespace}/${o.metadata.name}`),
  });
  return { done, ready: () => readyKeys.size, unsubscribe };
}

/**
 * The controllers a manager runs. The Manager keeps them private and has no "resync everything" call,
 * so the benchmark reaches in; a public `Manager.controllers` (or `resyncAll()`) would make this a plain call.
 */
export function controllersOf(mgr: Manager): Controller[] {
  return (mgr as unknown as { controllers: Controller[] }).controllers;
}

const pending = (mgrs: readonly Manager[]) =>
  mgrs.reduce((n, m) => n + controllersOf(m).reduce((k, c) => k + c.pendingWork, 0), 0);

/** waits until no controller of `mgrs` has work and no request of `users` (watches aside) came for `quietMs` */
export async function settle(
  server: BenchServer,
  mgrs: readonly Manager[],
  users: ReadonlySet<string>,
  quietMs: number,
  timeoutMs: number,
): Promise<void> {
  let seen = server.auditLength;
  let quietSince = Date.now();
  await waitFor(
    'the controllers to go idle',
    () => {
      const now = server.auditLength;
      const fresh = server.requests(users, seen).filter((e) => e.verb !== 'watch');
      seen = now;
      if (fresh.length > 0 || pending(mgrs) > 0) quietSince = Date.now();
      return Date.now() - quietSince >= quietMs;
    },
    timeoutMs,
    50,
  );
}

/** reconciles so far, per controller */
export async function reconcilesByController(mgrs: readonly Manager[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of mgrs)
    for (const v of (await m.metrics.reconcileTotal.get()).values)
      out.set(String(v.labels.controller), (out.get(String(v.labels.controller)) ?? 0) + v.value);
  return out;
}

export async function reconcileCount(mgrs: readonly Manager[]): Promise<number> {
  return [...(await reconcilesByController(mgrs)).values()].reduce((a, b) => a + b, 0);
}

export interface ResyncOutcome {
  reconciles: number;
  writes: AuditEntry[];
  reads: AuditEntry[];
}

/**
 * Steady state: every controller re-enqueues every cached object of its primary kind (what the periodic
 * resync does), and the operator's requests meanwhile are counted. Watches are not requests of the
 * reconcile path; `exclude` drops requests that are no resync's doing (e.g. a provider's heartbeat).
 */
export async function resyncAndCount(
  server: BenchServer,
  mgrs: readonly Manager[],
  users: ReadonlySet<string>,
  timeoutMs: number,
  exclude: (e: AuditEntry) => boolean = () => false,
): Promise<ResyncOutcome> {
  const mark = server.auditLength;
  const before = await reconcileCount(mgrs);
  for (const m of mgrs) for (const c of controllersOf(m)) await c.resync();
  // the event recorder flushes asynchronously: a quiet second catches a late write
  await settle(server, mgrs, users, 1000, timeoutMs);
  const during = server.requests(users, mark).filter((e) => e.verb !== 'watch' && !exclude(e));
  return {
    reconciles: (await reconcileCount(mgrs)) - before,
    writes: during.filter(isWrite),
    reads: during.filter((e) => !isWrite(e)),
  };
}

/** "verb resource" → count, most frequent first, for the progress output */
export function tally(entries: readonly AuditEntry[]): string {
  const counts = new Map<string, number>();
  for (const e of entries) {
    const key = `${e.user}:${e.verb} ${e.resource}${e.code >= 400 ? ` (${e.code})` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}=${n}`)
    .join(', ');
}

/**
 * What `manager` wrote to `obj` by server-side apply (its managedFields entry, on the main resource or the
 * status subresource), as an apply configuration: the same bytes a perfect controller would send.
 */
export function appliedBy(obj: KubeObject, manager: string, subresource: '' | 'status' = ''): KubeObject {
  const entry = (obj.metadata.managedFields ?? []).find(
    (e) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === subresource,
  );
  if (!entry?.fieldsV1)
    throw new Error(
      `bench: ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} has no ${subresource || 'main-resource'} apply entry of field manager "${manager}"`,
    );
  const owned = extractOwned(obj, entry.fieldsV1 as Record<string, unknown>) as KubeObject;
  return {
    ...owned,
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: {
      ...owned.metadata,
      name: obj.metadata.name,
      ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    },
  };
}

/**
 * The Events with `reason` in `namespace`, by the name of the object they are about, as their controller
 * created them (without what the server set): for the events a seed requires, which a perfect controller
 * writes too.
 */
export async function eventsByObject(
  server: BenchServer,
  namespace: string,
  reason: string,
): Promise<Map<string, KubeEvent>> {
  const out = new Map<string, KubeEvent>();
  for (const e of (await server.admin.list(EventsV1, { namespace })).items) {
    if (e.reason !== reason) continue;
    const { uid: _u, resourceVersion: _rv, creationTimestamp: _c, managedFields: _m, ...metadata } = e.metadata;
    // kube-apiserver's list items of built-in kinds carry no apiVersion/kind (docs/apiserver.md)
    out.set(e.regarding.name, { ...e, apiVersion: EventsV1.apiVersion, kind: EventsV1.kind, metadata });
  }
  return out;
}

/** points the object's ownerReferences at the owners' uids in this run (by kind and name) */
export function rebindOwners(obj: KubeObject, uids: ReadonlyMap<string, string>): KubeObject {
  const refs = obj.metadata.ownerReferences;
  if (!refs) return obj;
  const ownerReferences = refs.map((r) => {
    const uid = uids.get(`${r.kind}/${r.name}`);
    if (!uid)
      throw new Error(
        `bench: ${obj.kind} ${obj.metadata.name}: its owner ${r.kind} ${r.name} was not written earlier in the chain`,
      );
    return { ...r, uid };
  });
  return { ...obj, metadata: { ...obj.metadata, ownerReferences } };
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function resultLine(
  name: string,
  figure: string,
  unit: string,
  fields: Record<string, string | number>,
): string {
  return `${name}: ${figure} ${unit} (${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')})`;
}
