// `modelplane dashboard`: the web dashboard for any cluster, reading through the API server with the
// kubeconfig's credentials (never more: what they cannot list is named as hidden). docs/dashboard.md.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { KubeClient, Logger, loadKubeConfig } from '../kube/index.ts';
import { parsePort } from './options.ts';

interface DashboardCommandOptions {
  kubeconfig?: string;
  namespace?: string;
  address: string;
  port: string;
  readOnly?: boolean;
}

export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description('Serve the web dashboard of every modelplane resource of a cluster, read with your own credentials.')
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option('-n, --namespace <ns>', 'only this namespace (default: all namespaces)')
    .option(
      '--address <host>',
      'address to listen on; anything but loopback requires the token printed at start',
      '127.0.0.1',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8090')
    .option('--read-only', 'hide the create form; the dashboard only reads')
    .action(async (opts: DashboardCommandOptions) => {
      const log = new Logger({ component: 'dashboard' });
      try {
        // loaded when the command runs, so every other command starts without the dashboard's modules
        const { dashboardBanner, startDashboard } = await import('./dashboard/index.ts');
        const text = opts.kubeconfig ? readFileSync(opts.kubeconfig, 'utf8') : undefined;
        const kc = loadKubeConfig(text);
        const client = await KubeClient.create(kc);
        const d = await startDashboard({
          client,
          host: opts.address,
          port: parsePort(opts.port, '--port'),
          cluster: kc.getCurrentCluster()?.server ?? 'unknown cluster',
          user: kc.getCurrentUser()?.name ?? 'unknown user',
          logger: log,
          ...(opts.namespace ? { namespace: opts.namespace } : {}),
          ...(opts.readOnly ? { readOnly: true } : {}),
        });
        process.stdout.write(`${dashboardBanner(d)}\n`);
        if (d.state.hidden.length > 0)
          process.stdout.write(`not visible with these credentials: ${d.state.hidden.join(', ')}\n`);
        const stop = async () => {
          await d.close();
          process.exit(0);
        };
        process.on('SIGINT', () => void stop());
        process.on('SIGTERM', () => void stop());
      } catch (err) {
        log.error('dashboard failed to start', { error: err });
        process.stderr.write(`modelplane dashboard: ${(err as Error).message}\n`);
        process.exit(2);
      }
    });
}
