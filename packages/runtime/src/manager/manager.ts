// The manager owns what controllers share: one client, one informer cache, metrics, event recorders,
// leader election, and an HTTP server for /metrics, /healthz and /readyz. Caches run on every replica (a
// standby takes over warm); controllers and every other Runnable that needs leader election run only on
// the leader, and losing the lease stops them. stop() finishes in-flight reconciles before closing
// connections.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { collectDefaultMetrics } from 'prom-client';
import { Cache } from '../cache/cache.ts';
import type { ListWatchTuning } from '../cache/informer.ts';
import { KubeClient } from '../client/client.ts';
import { ControllerBuilder } from '../controller/builder.ts';
import type { Controller } from '../controller/controller.ts';
import { AggregatingRecorder, apiEventSink } from '../events.ts';
import { type Logger, rootLogger } from '../log.ts';
import { RuntimeMetrics } from '../metrics.ts';
import { serveGuarded } from '../serve.ts';
import { apiLeaseStore, LeaderElector } from './leaderelection.ts';

export interface LeaderElectionConfig {
  enabled: boolean;
  /** default: `<manager name>-leader` */
  leaseName?: string;
  /** default: $POD_NAMESPACE, the in-cluster namespace, or `default` */
  leaseNamespace?: string;
  /** default: `<hostname>_<uuid>` */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  releaseOnCancel?: boolean;
}

export interface ManagerOptions {
  /** a KubeConfig, kubeconfig YAML, or omitted for the default loading rules; ignored when `client` is given */
  kubeconfig?: KubeConfig | string;
  client?: KubeClient;
  /** names the lease and the events' reporting controller prefix (default `modelplane`) */
  name?: string;
  /** restrict namespaced caches to one namespace */
  namespace?: string;
  leaderElection?: LeaderElectionConfig;
  /** serve /metrics, /healthz, /readyz on this port (0 = random); omitted = no server */
  httpPort?: number;
  httpHost?: string;
  /** list-watch knobs for every informer (tests shorten the watchdog) */
  tuning?: ListWatchTuning;
  /** how long stop() waits for in-flight reconciles (default 30 s) */
  gracefulShutdownMs?: number;
  metrics?: RuntimeMetrics;
  logger?: Logger;
}

export type Check = () => void | Promise<void>;

/**
 * Something the manager starts and stops, as controller-runtime's Runnable: controllers are runnables, and
 * so is anything else that lives exactly as long as they do (a provider's registration and heartbeat).
 * Leader-election runnables start once this manager leads (controllers first, together, then the others
 * in the order they were added) and stop in the reverse order when it stops leading or shuts down; the
 * others start with the manager and stop at shutdown.
 */
export interface Runnable {
  readonly name: string;
  /** resolves once running */
  start(): Promise<void>;
  /** resolves once stopped, in-flight work finished */
  stop(): Promise<void>;
  /** whether it may run only on the leader (default true) */
  needsLeaderElection?(): boolean;
}

const needsLeader = (r: Runnable) => r.needsLeaderElection?.() ?? true;

export class Manager {
  readonly client: KubeClient;
  readonly cache: Cache;
  readonly metrics: RuntimeMetrics;
  readonly log: Logger;
  readonly name: string;
  private readonly controllers: Controller[] = [];
  /** every runnable that is not a controller, in the order added */
  private readonly runnables: Runnable[] = [];
  private readonly recorders = new Map<string, AggregatingRecorder>();
  private readonly healthChecks = new Map<string, Check>();
  private readonly readyChecks = new Map<string, Check>();
  private elector: LeaderElector | undefined;
  private electorRun: Promise<void> | undefined;
  private server: http.Server | undefined;
  private started = false;
  private stopping: Promise<void> | undefined;
  private leading = false;
  private readonly leaderWaiters: Array<() => void> = [];
  private readonly shutdownHooks: Array<() => Promise<void>> = [];
  private controllersRunning: Promise<void> = Promise.resolve();

  private constructor(
    client: KubeClient,
    private readonly opts: ManagerOptions,
    metrics: RuntimeMetrics,
  ) {
    this.client = client;
    this.metrics = metrics;
    this.name = opts.name ?? 'modelplane';
    this.log = (opts.logger ?? rootLogger()).child({ manager: this.name });
    this.cache = new Cache({
      client,
      metrics,
      logger: this.log,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.tuning ? { tuning: opts.tuning } : {}),
    });
    // reconciles then see their own writes at once, instead of writing again before the watch catches up
    client.observeWrites((obj) => this.cache.observeWrite(obj));
  }

  static async create(opts: ManagerOptions = {}): Promise<Manager> {
    const metrics = opts.metrics ?? new RuntimeMetrics();
    const client = opts.client ?? (await KubeClient.create(opts.kubeconfig, { metrics }));
    return new Manager(client, opts, metrics);
  }

  /** starts building a controller that this manager will run */
  controller(name: string): ControllerBuilder {
    if (this.controllers.some((c) => c.name === name))
      throw new Error(`manager: a controller named "${name}" already exists`);
    return new ControllerBuilder(name, {
      cache: this.cache,
      client: this.client,
      metrics: this.metrics,
      logger: this.log,
      recorderFor: (n) => this.recorder(n),
      register: (c) => this.register(c),
    });
  }

  /** the aggregating event recorder for a controller, reporting as `<manager name>.io/<controller>` */
  recorder(controllerName: string): AggregatingRecorder {
    let r = this.recorders.get(controllerName);
    if (!r) {
      r = new AggregatingRecorder({
        reportingController: `${this.name}.io/${controllerName}`,
        sink: apiEventSink(this.client.withFieldManager(controllerName)),
        logger: this.log,
      });
      this.recorders.set(controllerName, r);
    }
    return r;
  }

  /** starts `r` with the manager (or when it leads) and stops it with the manager; see Runnable */
  add(r: Runnable): void {
    if (this.started) throw new Error(`manager: runnable "${r.name}" added after start`);
    if (this.runnables.some((x) => x.name === r.name))
      throw new Error(`manager: a runnable named "${r.name}" already exists`);
    this.runnables.push(r);
  }

  /** runs `fn` on stop, after the controllers finished and before the connections close (e.g. a webhook server) */
  onShutdown(fn: () => Promise<void>): void {
    this.shutdownHooks.push(fn);
  }

  addHealthCheck(name: string, check: Check): void {
    this.healthChecks.set(name, check);
  }

  addReadyCheck(name: string, check: Check): void {
    this.readyChecks.set(name, check);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** resolves once this manager leads (immediately without leader election) */
  whenLeader(): Promise<void> {
    if (this.leading) return Promise.resolve();
    return new Promise((resolve) => this.leaderWaiters.push(resolve));
  }

  /** the address of the metrics/health server, e.g. http://127.0.0.1:8080 */
  get url(): string | undefined {
    const addr = this.server?.address() as AddressInfo | null | undefined;
    return addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` : undefined;
  }

  /** starts the HTTP server, the caches and leader election (or the controllers directly); returns once running */
  async start(): Promise<void> {
    if (this.started) throw new Error('manager: already started');
    this.started = true;
    if (this.opts.httpPort !== undefined) await this.listen(this.opts.httpPort, this.opts.httpHost ?? '127.0.0.1');
    // every replica warms the caches its controllers need, so a new leader starts with synced caches
    this.cache.start();
    await Promise.all(this.controllers.map((c) => c.informers()));
    for (const r of this.runnables.filter((x) => !needsLeader(x))) await r.start();
    const le = this.opts.leaderElection;
    if (!le?.enabled) {
      this.becomeLeader();
      await this.startControllers();
      return;
    }
    const identity = le.identity ?? `${hostname()}_${randomUUID()}`;
    const namespace = le.leaseNamespace ?? defaultLeaseNamespace();
    const leaseName = le.leaseName ?? `${this.name}-leader`;
    this.elector = new LeaderElector({
      identity,
      name: leaseName,
      store: apiLeaseStore(this.client.withFieldManager(`${this.name}-leader-election`), namespace, leaseName),
      metrics: this.metrics,
      logger: this.log,
      ...pickDefined(le, ['leaseDurationMs', 'renewDeadlineMs', 'retryPeriodMs', 'releaseOnCancel']),
    });
    this.electorRun = this.elector.run({
      onStartedLeading: () => {
        this.becomeLeader();
        this.controllersRunning = this.startControllers();
      },
      onStoppedLeading: async () => {
        this.leading = false;
        await this.controllersRunning.catch(() => undefined);
        await this.stopControllers();
      },
      onNewLeader: (id) => this.log.info('leader is', { leader: id }),
    });
  }

  /** graceful shutdown: in-flight reconciles finish, the lease is released, connections close */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** stops on SIGTERM/SIGINT (for the CLI); a second signal exits at once */
  stopOnSignals(): void {
    let signalled = false;
    const handler = (sig: NodeJS.Signals) => {
      if (signalled) process.exit(1);
      signalled = true;
      this.log.info('signal received, shutting down', { signal: sig });
      void this.stop().then(() => process.exit(0));
    };
    process.once('SIGTERM', handler);
    process.once('SIGINT', handler);
  }

  get readyState(): { synced: boolean } {
    return { synced: this.cache.hasSynced };
  }

  private register(c: Controller): void {
    if (this.started) throw new Error(`manager: controller "${c.name}" added after start`);
    this.controllers.push(c);
  }

  private becomeLeader(): void {
    this.leading = true;
    for (const w of this.leaderWaiters.splice(0)) w();
  }

  /** the leader's runnables: controllers together, then the others in order */
  private async startControllers(): Promise<void> {
    await Promise.all(this.controllers.map((c) => c.start()));
    for (const r of this.runnables.filter(needsLeader)) await r.start();
  }

  /** the reverse of startControllers, within the graceful shutdown period */
  private async stopControllers(): Promise<void> {
    const grace = this.opts.gracefulShutdownMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), grace)));
    const stopAll = async () => {
      for (const r of this.runnables.filter(needsLeader).reverse())
        await r.stop().catch((error) => this.log.error('runnable failed to stop', { runnable: r.name, error }));
      await Promise.all(this.controllers.map((c) => c.stop()));
    };
    const outcome = await Promise.race([stopAll().then(() => 'done' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      this.log.warn('in-flight reconciles did not finish within the graceful shutdown period', {
        gracefulShutdownMs: grace,
      });
  }

  private async shutdown(): Promise<void> {
    this.log.info('shutting down');
    if (this.elector) {
      await this.elector.stop();
      await this.electorRun;
    } else {
      await this.controllersRunning.catch(() => undefined);
      await this.stopControllers();
    }
    for (const r of this.runnables.filter((x) => !needsLeader(x)).reverse())
      await r.stop().catch((error) => this.log.error('runnable failed to stop', { runnable: r.name, error }));
    await Promise.all([...this.recorders.values()].map((r) => r.drain()));
    for (const hook of this.shutdownHooks.splice(0))
      await hook().catch((error) => this.log.error('shutdown hook failed', { error }));
    await this.cache.stop();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    if (!this.opts.client) this.client.close();
    this.log.info('stopped');
  }

  private async listen(port: number, host: string): Promise<void> {
    collectDefaultMetrics({ register: this.metrics.registry });
    // metrics and probes are GETs: a body past 64 KiB is refused with 413
    this.server = serveGuarded(
      http.createServer(),
      {
        name: 'the metrics and probe server',
        maxBodyBytes: 64 * 1024,
        sendError: (res, status, message) => {
          res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end(`${message}\n`);
        },
      },
      (_req, res, { url }) => this.serve(url.pathname, res),
    );
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    this.log.info('serving metrics and probes', { url: this.url });
  }

  private async serve(path: string, res: http.ServerResponse): Promise<void> {
    try {
      if (path === '/metrics') {
        const text = await this.metrics.text();
        res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
        res.end(text);
        return;
      }
      if (path === '/healthz' || path === '/livez') return await this.probe(res, 'healthz', this.healthChecks);
      if (path === '/readyz') {
        const checks = new Map<string, Check>([
          [
            'informer-sync',
            () => {
              if (!this.cache.hasSynced) throw new Error('caches not synced yet');
            },
          ],
          ...this.readyChecks,
        ]);
        return await this.probe(res, 'readyz', checks);
      }
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`${(err as Error).message}\n`);
    }
  }

  /** controller-runtime's probe output: `[+]name ok` / `[-]name failed: reason`, 200 only if all pass */
  private async probe(res: http.ServerResponse, probe: string, checks: Map<string, Check>): Promise<void> {
    const lines = ['[+]ping ok'];
    let ok = true;
    for (const [name, check] of checks) {
      try {
        await check();
        lines.push(`[+]${name} ok`);
      } catch (err) {
        ok = false;
        lines.push(`[-]${name} failed: ${(err as Error).message}`);
      }
    }
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`${lines.join('\n')}\n${probe} check ${ok ? 'passed' : 'failed'}\n`);
  }
}

function defaultLeaseNamespace(): string {
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

function pickDefined<T extends object, K extends keyof T>(obj: T, keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
