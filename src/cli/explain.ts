// `modelplane explain aimsvc/NAME`: why an AIMService is not Running, in one paragraph (docs/aim.md, "Why is
// this not Running"). This file holds only the command's flags: what it runs lives in view/explain.ts,
// imported when the command runs.
import type { Command } from 'commander';
import { importCommand } from './lazy.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export interface ExplainCommandOptions {
  kubeconfig?: string;
  namespace?: string;
}

export function registerExplain(program: Command): void {
  program
    .command('explain')
    .argument('<resource>', 'aimsvc/NAME: the AIMService to explain')
    .description(COMMAND_SUMMARIES.explain)
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option('-n, --namespace <ns>', 'the namespace of the service (default: default)')
    .action(async (resource: string, opts: ExplainCommandOptions) => {
      // loaded when the command runs: the view modules stay out of every other command
      const { runExplain } = await importCommand('explain', () => import('./view/explain.ts'));
      await runExplain(resource, opts);
    });
}
