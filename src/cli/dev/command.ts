// What `modelplane dev` runs (its flags are in ../dev.ts): the cluster on the backend --cluster names, the
// terminal view and log file, the dashboard, and the examples watched until Ready. Only this command loads
// it, so the API server and the simulators stay out of every other command's module graph.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { KUBE_BUILD_COMMAND, kubeBinDir, missingKubeBinaries, startRealControlPlane } from '@modelplane/apiserver/real';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger, setProcessLogSink } from '@modelplane/runtime/log';
import { MODEL_DEPLOYMENT_KIND } from '../../apis/kubeairunway/index.ts';
import { type Autoscaler, autoscalerControllerSet } from '../../controllers/llmd/index.ts';
import { type ControllerSet, selectControllerSets } from '../../controllers/registry.ts';
import { ALL_PROCESS_SETS } from '../../controllers/sets.ts';
import type { DecisionFeed } from '../dashboard/index.ts';
import { parsePort } from '../options.ts';
import { LogRouter } from '../view/logs.ts';
import { TerminalView } from '../view/terminal.ts';
import { type DevCluster, type DevClusterOptions, startApiServerOnly, startDevCluster } from './cluster.ts';
import { type ApplyOptions, applyManifests } from './examples.ts';
import { startLiveView } from './live.ts';
import { devLoadRunner } from './load-runner.ts';
import type { DevOptions } from './options.ts';
import { providerNames, waitForProviders } from './providers-ready.ts';
import { startRealDevCluster } from './real-cluster.ts';

function fail(log: Logger, message: string, fields: Record<string, unknown> = {}): never {
  log.error(message, fields);
  process.exit(2);
}

/** the terminal view and the log file; console.warn (the API server's own reports) joins the log too */
function setUpOutput(opts: DevOptions): { view: TerminalView; log: Logger; router: LogRouter } {
  const view = new TerminalView(process.stdout);
  const router = new LogRouter({
    dir: resolve(opts.logDir),
    command: 'dev',
    verbose: opts.verbose === true,
    show: (line, key) => view.print(line, key),
    color: view.tty,
    width: () => view.width,
  });
  setProcessLogSink(router);
  const log = new Logger({ component: 'dev' });
  const apiserverLog = log.child({ component: 'apiserver' });
  console.warn = (...args: unknown[]) => apiserverLog.warn(args.map(String).join(' '));
  view.print(`logs: ${router.displayPath()}${opts.verbose ? '' : ' (--verbose streams them here)'}`);
  return { view, log, router };
}

function validate(log: Logger, opts: DevOptions): { port: number; timeoutSec: number; examplesDir: string } {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(log, 'invalid --port: must be an integer between 0 and 65535', { port: opts.port });
  if (opts.only !== undefined && opts.only !== 'apiserver')
    fail(log, `invalid --only "${opts.only}": the only component that can run alone is "apiserver"`);
  const timeoutSec = Number(opts.timeout);
  if (!(timeoutSec > 0))
    fail(log, 'invalid --timeout: must be a positive number of seconds', { timeout: opts.timeout });
  const examplesDir = resolve(opts.examplesDir);
  if (opts.examples && opts.only === undefined && !existsSync(examplesDir))
    fail(log, `--examples-dir ${opts.examplesDir} does not exist`);
  if (opts.cluster !== 'embedded' && opts.cluster !== 'real')
    fail(log, `invalid --cluster "${opts.cluster}": use "embedded" or "real"`);
  if (opts.cluster === 'real') {
    const missing = missingKubeBinaries();
    if (missing.length > 0)
      fail(
        log,
        `--cluster real needs the real Kubernetes control plane, which is not built (${missing.join(', ')} missing from ${kubeBinDir()}): run "${KUBE_BUILD_COMMAND}" first (needs Go), or use --cluster embedded`,
      );
    if (opts.dataDir)
      fail(
        log,
        '--data-dir is not supported with --cluster real (the real control plane keeps its etcd data in a temporary directory)',
      );
  }
  return { port, timeoutSec, examplesDir };
}

/** what `modelplane dev` needs of either API server */
interface DevServer {
  readonly url: string;
  kubeconfigYaml(): string;
  writeKubeconfig(path: string): void;
}

/** the API server alone, or the whole dev cluster, on the backend --cluster names */
async function startCluster(
  opts: DevOptions,
  common: DevClusterOptions,
): Promise<{ server: DevServer; cluster: DevCluster<DevServer> | undefined; stop: () => Promise<void> }> {
  if (opts.only === 'apiserver') {
    const server =
      opts.cluster === 'real' ? await startRealControlPlane({ port: common.port }) : await startApiServerOnly(common);
    return { server, cluster: undefined, stop: () => ('stop' in server ? server.stop() : server.close()) };
  }
  const cluster = opts.cluster === 'real' ? await startRealDevCluster(common) : await startDevCluster(common);
  return { server: cluster.server, cluster, stop: () => cluster.stop() };
}

/** a running dashboard: the address to open and how to stop it */
interface ServedDashboard {
  url?: string;
  stop(): Promise<void>;
}

/** the web dashboard on the embedded cluster, read with the admin kubeconfig `modelplane dev` writes */
async function serveDashboard(
  server: DevServer,
  opts: DevOptions,
  log: Logger,
  view: TerminalView,
  feed: DecisionFeed,
): Promise<ServedDashboard> {
  // loaded only when served: `--only apiserver` starts without the dashboard's modules
  const { dashboardBanner, dashboardUrl, startDashboard } = await import('../dashboard/index.ts');
  const client = await KubeClient.create(server.kubeconfigYaml());
  const common = {
    client,
    host: opts.dashboardAddress,
    cluster: server.url,
    user: 'admin (modelplane dev)',
    feed,
    load: devLoadRunner(client, log.child({ component: 'dashboard' })),
    logger: log.child({ component: 'dashboard' }),
  };
  const port = parsePort(opts.dashboardPort, '--dashboard-port');
  const d = await startDashboard({ ...common, port }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    return startDashboard({ ...common, port: 0 });
  });
  view.print(dashboardBanner(d));
  return {
    url: dashboardUrl(d),
    async stop() {
      await d.close();
      client.close();
    },
  };
}

/**
 * What to type next, runnable from a fresh clone: kubectl and modelplane are not on PATH there (npm ci puts
 * kubectl in .tools/bin; npx finds this package's own command).
 */
export function nextSteps(kubeconfig: string, dashboard: string | undefined): string[] {
  return [
    ...(dashboard ? [`  dashboard: ${dashboard}`] : []),
    `  .tools/bin/kubectl --kubeconfig ${kubeconfig} get all -A`,
    `  npx modelplane status --kubeconfig ${kubeconfig}`,
  ];
}

export async function runDev(opts: DevOptions): Promise<void> {
  const { view, log, router } = setUpOutput(opts);
  const { port, timeoutSec, examplesDir } = validate(log, opts);
  const started = Date.now();
  // the autoscaler runs in this process: the dashboard charts its own decision history
  let autoscaler: Autoscaler | undefined;
  const sets = devControllerSets(opts, log, (a) => (autoscaler = a));
  const feed: DecisionFeed = (namespace, name) => autoscaler?.decisions.history(namespace, name) ?? [];
  const onStep = (what: string, ms: number) => view.print(`  ✓ ${what} (${ms} ms)`);
  const common = {
    port,
    log,
    onStep,
    controllers: opts.controllers !== false,
    sets,
    prometheus: opts.prometheus !== false,
    ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}),
    ...(opts.auditLog ? { auditLogFile: resolve(opts.auditLog) } : {}),
  };
  const { server, cluster, stop: stopCluster } = await startCluster(opts, common);
  const kubeconfig = resolve(opts.kubeconfig);
  server.writeKubeconfig(kubeconfig);
  log.info('API server ready', { url: server.url, kubeconfig, startupMs: Date.now() - started });
  view.print(
    `modelplane ${cluster ? 'cluster' : 'API server'} at ${server.url} (${((Date.now() - started) / 1000).toFixed(1)}s); kubeconfig ${opts.kubeconfig}`,
  );

  const stoppers: Array<() => Promise<void>> = [stopCluster];
  let stopping = false;
  const stop = async (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { reason });
    for (const s of stoppers.reverse()) await s();
    await router.close();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  // --exit-when-ready (CI, scripts) ends before anyone could open it: no dashboard then
  let dashboard: Promise<ServedDashboard> = Promise.resolve({ stop: async () => {} });
  if (cluster && opts.dashboard && !opts.exitWhenReady) {
    // started beside the examples, not before them: it must not delay the cluster converging
    dashboard = serveDashboard(server, opts, log, view, feed).catch((err) => {
      log.error('the dashboard could not start', { error: err });
      return { stop: async () => {} };
    });
    stoppers.push(async () => (await dashboard).stop());
  }
  if (!cluster || !opts.examples) {
    view.print(nextSteps(opts.kubeconfig, (await dashboard).url).join('\n'));
    if (opts.exitWhenReady) await stop('ready');
    return;
  }
  const ok = await applyExamplesAndWatch(cluster.manager.client, examplesDir, {
    opts,
    view,
    log,
    timeoutSec,
    stoppers,
    gate: providersGate(cluster, sets, log),
  });
  view.print(
    [
      `${ok ? 'Every example is Ready' : `Not every example was Ready within ${timeoutSec}s`} (${((Date.now() - started) / 1000).toFixed(1)}s). Try:`,
      ...nextSteps(opts.kubeconfig, (await dashboard).url),
    ].join('\n'),
  );
  if (opts.exitWhenReady) await stop(ok ? 'ready' : 'timeout', ok ? 0 : 1);
}

/**
 * Only a ModelDeployment's placement depends on which providers are Ready (providers-ready.ts): it waits for
 * them, and the other examples (the autoscaling one is the slowest to converge) are applied meanwhile.
 */
function providersGate(cluster: DevCluster<DevServer>, sets: ControllerSet[], log: Logger): ApplyOptions['gate'] {
  if (cluster.operators.length === 0) return undefined;
  const ready = waitForProviders(cluster.manager.client, providerNames(sets), log, 60_000).catch((err: unknown) =>
    log.warn('could not read the providers before applying the ModelDeployments', { error: err }),
  );
  return (obj) => (obj.kind === MODEL_DEPLOYMENT_KIND ? ready : undefined);
}

/** the controller sets `--controllers` selects (none with --no-controllers); a bad name ends the command */
function devControllerSets(opts: DevOptions, log: Logger, onAutoscaler: (a: Autoscaler) => void): ControllerSet[] {
  if (opts.controllers === false) return [];
  try {
    return selectControllerSets(ALL_PROCESS_SETS, opts.controllers).map((s) =>
      s.name === 'autoscaler' ? autoscalerControllerSet({}, onAutoscaler) : s,
    );
  } catch (err) {
    return fail(log, (err as Error).message);
  }
}

/** applies the examples and shows their status live until every one is Ready (or the timeout) */
async function applyExamplesAndWatch(
  client: KubeClient,
  examplesDir: string,
  ctx: {
    opts: DevOptions;
    view: TerminalView;
    log: Logger;
    timeoutSec: number;
    stoppers: Array<() => Promise<void>>;
    gate: ApplyOptions['gate'];
  },
): Promise<boolean> {
  const applied = await applyManifests(client, examplesDir, { gate: ctx.gate });
  ctx.log.info('examples applied', { dir: examplesDir, objects: applied.length });
  const live = await startLiveView({
    client,
    view: ctx.view,
    refs: applied,
    timeoutMs: ctx.opts.exitWhenReady ? ctx.timeoutSec * 1000 : Number.POSITIVE_INFINITY,
    logger: ctx.log.child({ component: 'status-view' }),
  });
  ctx.stoppers.push(() => live.stop());
  return live.ready;
}
