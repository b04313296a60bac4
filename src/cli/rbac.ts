// `modelplane rbac`: the ServiceAccounts, ClusterRoles, bindings and leader-election Roles of every
// controller set (or the chosen ones), generated from the rules the sets declare.
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { DEFAULT_POD_NAMESPACE } from '../controllers/operator.ts';
import { rbacObjects } from '../controllers/rbac.ts';
import { selectControllerSets } from '../controllers/registry.ts';
import { ALL_PROCESS_SETS } from '../controllers/sets.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export const DEFAULT_DEPLOY_NAMESPACE = DEFAULT_POD_NAMESPACE;

export function rbacYaml(controllers?: string, namespace = DEFAULT_DEPLOY_NAMESPACE): string {
  const sets = selectControllerSets(ALL_PROCESS_SETS, controllers);
  return sets
    .flatMap((s) => rbacObjects(s, namespace))
    .map((o) => `---\n${stringify(o, { lineWidth: 0 })}`)
    .join('');
}

export function registerRbac(program: Command): void {
  program
    .command('rbac')
    .description(COMMAND_SUMMARIES.rbac)
    .option('--controllers <list>', 'comma-separated controller sets, or "all"', 'all')
    .option(
      '-n, --namespace <ns>',
      'namespace of the ServiceAccounts and leader-election Roles',
      DEFAULT_DEPLOY_NAMESPACE,
    )
    .action((opts: { controllers: string; namespace: string }) => {
      process.stdout.write(rbacYaml(opts.controllers, opts.namespace));
    });
}
