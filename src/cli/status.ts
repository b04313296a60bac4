// `modelplane status`: the same one-line-per-resource view `modelplane dev` shows, printed once (or kept
// live with --watch) for any cluster the kubeconfig reaches, with the user's own credentials. This file holds
// only the command's flags: what it runs lives in status/command.ts, imported when the command runs.
import type { Command } from 'commander';
import { importCommand } from './lazy.ts';
import type { StatusOptions } from './status/options.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description(COMMAND_SUMMARIES.status)
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option('-n, --namespace <ns>', 'only this namespace (default: all namespaces)')
    .option('-w, --watch', 'keep the view open and update it from watches')
    .action(async (opts: StatusOptions) => {
      // loaded when the command runs: the view modules stay out of every other command
      const { runStatus } = await importCommand('status', () => import('./status/command.ts'));
      await runStatus(opts);
    });
}
