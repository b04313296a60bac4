// `modelplane dev`: the embedded cluster. With `--only apiserver` just the Kubernetes-compatible API
// server; the full mode adds controllers, webhooks, simulators and the quickstart examples.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { startApiServer } from '../apiserver/index.ts';
import { Logger } from '../kube/log.ts';

interface DevOptions {
  port: string;
  kubeconfig: string;
  only?: string;
  dataDir?: string;
  examples: boolean;
  exitWhenReady?: boolean;
  timeout: string;
  auditLog?: string;
}

export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('Start the embedded Kubernetes-compatible cluster (API server, controllers, simulators) and apply the quickstart examples.')
    .option('--port <port>', 'HTTPS port of the API server (0 picks a free one)', '6443')
    .option('--kubeconfig <path>', 'where to write the admin kubeconfig', '.modelplane/kubeconfig')
    .option('--only <component>', 'start only this component (apiserver)')
    .option('--data-dir <dir>', 'persist cluster state in this directory across restarts')
    .option('--no-examples', 'do not apply examples/quickstart/')
    .option('--exit-when-ready', 'exit 0 once every example is Ready (non-zero after --timeout)')
    .option('--timeout <seconds>', 'how long --exit-when-ready waits', '120')
    .option('--audit-log <file>', 'append one JSON line per API request to this file')
    .action(async (opts: DevOptions) => {
      await runDev(opts);
    });
}

async function runDev(opts: DevOptions): Promise<void> {
  const log = new Logger({ component: 'dev' });
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    log.error('invalid --port: must be an integer between 0 and 65535', { port: opts.port });
    process.exit(2);
  }
  if (opts.only !== undefined && opts.only !== 'apiserver') {
    log.error(`invalid --only "${opts.only}": the only component that can run alone is "apiserver"`);
    process.exit(2);
  }
  const started = Date.now();
  const server = await startApiServer({ port, ...(opts.auditLog ? { auditLogFile: opts.auditLog } : {}), ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}) });
  const kubeconfig = resolve(opts.kubeconfig);
  server.writeKubeconfig(kubeconfig);
  log.info('API server ready', { url: server.url, kubeconfig, startupMs: Date.now() - started });
  process.stdout.write(`modelplane API server at ${server.url}\n  kubectl --kubeconfig ${opts.kubeconfig} get namespaces\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  if (opts.exitWhenReady) await stop('ready');
}
