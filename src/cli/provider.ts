// `modelplane provider <name>`: one provider controller as its own process (docs/kubeairunway.md's out-of-tree
// providers), with the same connection, probe and leader-election flags as `modelplane run`. Each provider
// holds its own lease, `modelplane-provider-<name>`, so replicas of different providers never contend.
import { readFileSync } from 'node:fs';
import { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { Argument, type Command } from 'commander';
import { operatorNamespaceFromEnv } from '../common/runtime-config/index.ts';
import type { ProviderControllerOptions } from '../controllers/kubeairunway/provider/controller.ts';
import type { ProviderDefinition } from '../controllers/kubeairunway/provider/definition.ts';
import { providerControllerSet } from '../controllers/kubeairunway/provider/set.ts';
import { startOperator } from '../controllers/operator.ts';
import { exitWithStartupError } from './errors.ts';
import { parsePort, UsageError } from './options.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export interface ProviderRunOptions {
  /** kubeconfig YAML (not a path); omitted = in-cluster / default loading rules */
  kubeconfig?: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  httpPort?: number;
  httpHost?: string;
  log: Logger;
  controller?: ProviderControllerOptions;
}

/** the Lease a provider's replicas elect their leader on */
export function providerLeaseName(provider: string): string {
  return `modelplane-provider-${provider}`;
}

/** starts one provider's manager (registration, heartbeat, controller) and returns it running */
export function runProvider(def: ProviderDefinition, opts: ProviderRunOptions): Promise<Manager> {
  return startOperator({
    ...(opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {}),
    sets: [providerControllerSet(def, opts.controller)],
    ...(opts.httpPort !== undefined ? { httpPort: opts.httpPort } : {}),
    ...(opts.httpHost ? { httpHost: opts.httpHost } : {}),
    operatorNamespace: operatorNamespaceFromEnv(process.env),
    log: opts.log,
    ...(opts.leaderElect
      ? {
          leaderElection: {
            enabled: true,
            leaseName: providerLeaseName(def.name),
            ...(opts.leaderElectionNamespace ? { leaseNamespace: opts.leaderElectionNamespace } : {}),
          },
        }
      : {}),
  });
}

interface ProviderFlags {
  kubeconfig?: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  httpPort: string;
  httpHost: string;
  finalizerTimeout: string;
  upstreamOperatorSelector?: string;
}

function providerList(definitions: readonly ProviderDefinition[]): string {
  const width = Math.max(...definitions.map((d) => d.name.length));
  return definitions
    .map((d) => `  ${d.name.padEnd(width)}  ${d.displayName}: builds ${d.upstream.kind} (${d.upstream.apiVersion})`)
    .join('\n');
}

/** other spellings of a provider's name on the command line (the project's own name for llm-d) */
const ALIASES: Readonly<Record<string, string>> = { 'llm-d': 'llmd' };

export function registerProvider(program: Command, definitions: readonly ProviderDefinition[]): void {
  const names = [
    ...definitions.map((d) => d.name),
    ...Object.keys(ALIASES).filter((a) => definitions.some((d) => d.name === ALIASES[a])),
  ];
  program
    .command('provider')
    .description(COMMAND_SUMMARIES.provider)
    .addArgument(new Argument('<name>', 'the provider to run').choices(names))
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option('--leader-elect', 'reconcile only on the replica holding the lease modelplane-provider-<name>')
    .option('--leader-election-namespace <ns>', 'namespace of the lease (default: the pod namespace)')
    .option('--http-port <port>', 'port of /metrics, /healthz and /readyz', '8080')
    .option('--http-host <host>', 'address the metrics/health server binds', '0.0.0.0')
    .option(
      '--finalizer-timeout <seconds>',
      "how long deleting a ModelDeployment's resource is retried before its finalizer is removed anyway (with a Warning event)",
      '300',
    )
    .option(
      '--upstream-operator-selector <labels>',
      "label selector of the upstream operator's Deployment; the provider is ready only while one has an available replica ('' = check only the CRD; default: the operator's Helm chart labels)",
    )
    .addHelpText(
      'after',
      `\nProviders:\n${providerList(definitions)}\n\nEnvironment:\n  MODELPLANE_LOG_LEVEL   debug|info|warn|error (default info)`,
    )
    .action(async (given: string, flags: ProviderFlags) => {
      const name = ALIASES[given] ?? given;
      const def = definitions.find((d) => d.name === name)!;
      const log = new Logger({ component: `provider-${name}` });
      try {
        const finalizerTimeoutSec = Number(flags.finalizerTimeout);
        if (!(finalizerTimeoutSec > 0))
          throw new UsageError(
            `invalid --finalizer-timeout "${flags.finalizerTimeout}": must be a positive number of seconds`,
          );
        const mgr = await runProvider(def, {
          ...(flags.kubeconfig ? { kubeconfig: readFileSync(flags.kubeconfig, 'utf8') } : {}),
          ...(flags.leaderElect ? { leaderElect: true } : {}),
          ...(flags.leaderElectionNamespace ? { leaderElectionNamespace: flags.leaderElectionNamespace } : {}),
          httpPort: parsePort(flags.httpPort, '--http-port'),
          httpHost: flags.httpHost,
          log,
          controller: {
            finalizerTimeoutMs: finalizerTimeoutSec * 1000,
            ...operatorCheck(def, flags.upstreamOperatorSelector),
          },
        });
        mgr.stopOnSignals();
      } catch (err) {
        exitWithStartupError(err, process.argv.slice(2), 'provider');
      }
    });
}

/** --upstream-operator-selector, else the definition's; '' turns the check off */
function operatorCheck(def: ProviderDefinition, flag: string | undefined): { operatorSelector?: string } {
  const selector = flag ?? def.operatorSelector;
  return selector ? { operatorSelector: selector } : {};
}
