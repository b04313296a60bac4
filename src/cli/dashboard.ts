// `modelplane dashboard`: the web dashboard for any cluster, reading through the API server with the
// kubeconfig's credentials (never more: what they cannot list is named as hidden). docs/dashboard.md. This
// file holds only the command's flags: what it runs lives in dashboard/command.ts, imported when it runs.
import type { Command } from 'commander';
import type { DashboardCommandOptions } from './dashboard/options.ts';
import { importCommand } from './lazy.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export function registerDashboard(program: Command): void {
  program
    .command('dashboard')
    .description(COMMAND_SUMMARIES.dashboard)
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
    .option(
      '--auth <mode>',
      '"kubeconfig": act with the kubeconfig\'s credentials; "tokenreview": each person signs in with their own Kubernetes token and acts with their own rights (impersonation; for a dashboard run in the cluster, docs/dashboard.md)',
      'kubeconfig',
    )
    .action(async (opts: DashboardCommandOptions) => {
      // loaded when the command runs, so every other command starts without the dashboard's modules
      const { runDashboard } = await importCommand('dashboard', () => import('./dashboard/command.ts'));
      await runDashboard(opts);
    });
}
