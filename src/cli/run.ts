// `modelplane run`: the operator against any cluster (a real one, or `modelplane dev --no-controllers`).
import { readFileSync } from 'node:fs';
import { Logger } from '@modelplane/runtime/log';
import type { Command } from 'commander';
import { operatorNamespaceFromEnv } from '../common/runtime-config/index.ts';
import { kubeSecretSource, OciRegistryClient, parseRegistryMirror } from '../controllers/aim/catalog/oci/client.ts';
import { kubeairunwayCoreSet } from '../controllers/kubeairunway/core/index.ts';
import { startOperator } from '../controllers/operator.ts';
import { type ControllerSet, selectControllerSets } from '../controllers/registry.ts';
import { CONTROLLER_SETS } from '../controllers/sets.ts';
import { exitWithStartupError } from './errors.ts';
import { parsePort } from './options.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

interface RunOptions {
  kubeconfig?: string;
  controllers?: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  httpPort: string;
  httpHost: string;
  webhookPort: string;
  webhookHost: string;
  gatewayName?: string;
  gatewayNamespace?: string;
  registryMirror: string[];
  registryTimeout: string;
}

/** the kubeairunway-core set routing through the Gateway --gateway-namespace/--gateway-name name (both or neither) */
function withGateway(sets: ControllerSet[], opts: RunOptions): ControllerSet[] {
  if (!opts.gatewayName && !opts.gatewayNamespace) return sets;
  if (!opts.gatewayName || !opts.gatewayNamespace)
    throw new Error(
      '--gateway-name and --gateway-namespace go together: give both, or neither to discover the Gateway',
    );
  const gateway = { name: opts.gatewayName, namespace: opts.gatewayNamespace };
  return sets.map((s) => (s.name === 'kubeairunway-core' ? kubeairunwayCoreSet({ gateway: { gateway } }) : s));
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerRun(program: Command): void {
  const run = program.command('run').description(COMMAND_SUMMARIES.run);
  addRunOptions(run)
    .addHelpText(
      'after',
      '\nEnvironment:\n  AIM_SYSTEM_NAMESPACE   operator namespace for cluster-scoped AIM resources (default aim-system)\n  POD_NAMESPACE          namespace of the webhook certificate Secret and Service (default modelplane-system)\n  MODELPLANE_LOG_LEVEL   debug|info|warn|error (default info)',
    )
    .action(async (opts: RunOptions) => {
      const log = new Logger({ component: 'operator' });
      try {
        const mgr = await startOperator(operatorOptions(opts, log));
        mgr.stopOnSignals();
      } catch (err) {
        exitWithStartupError(err, process.argv.slice(2), 'run');
      }
    });
}

/** the flags of `modelplane run` (RunOptions) */
function addRunOptions(cmd: Command): Command {
  return cmd
    .option(
      '--kubeconfig <path>',
      'kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster ServiceAccount)',
    )
    .option(
      '--controllers <list>',
      `comma-separated controller sets to run, or "all" (${CONTROLLER_SETS.map((s) => s.name).join(', ')})`,
      'all',
    )
    .option('--leader-elect', 'run controllers only on the replica holding the lease modelplane-leader')
    .option('--leader-election-namespace <ns>', 'namespace of the lease (default: the pod namespace)')
    .option('--http-port <port>', 'port of /metrics, /healthz and /readyz', '8080')
    .option('--http-host <host>', 'address the metrics/health server binds', '0.0.0.0')
    .option('--webhook-port <port>', 'HTTPS port of the admission webhook server (controller set "webhooks")', '9443')
    .option('--webhook-host <host>', 'address the webhook server binds', '0.0.0.0')
    .option('--gateway-name <name>', 'route ModelDeployments through this Gateway (with --gateway-namespace)')
    .option('--gateway-namespace <ns>', "the routing Gateway's namespace (with --gateway-name)")
    .option(
      '--registry-mirror <host=url>',
      'reach an image registry at another base URL, e.g. docker.io=https://mirror.example.com (repeatable)',
      collect,
      [],
    )
    .option(
      '--registry-timeout <seconds>',
      'timeout of one image-registry request (AIM models and model sources, Llama Stack base-config labels)',
      '15',
    );
}

/** What the flags ask startOperator for; a bad flag value throws an error naming the flag. */
function operatorOptions(opts: RunOptions, log: Logger): Parameters<typeof startOperator>[0] {
  const sets = withGateway(selectControllerSets(CONTROLLER_SETS, opts.controllers), opts);
  const mirrors = Object.fromEntries(opts.registryMirror.map(parseRegistryMirror));
  const timeoutSeconds = Number(opts.registryTimeout);
  if (!(timeoutSeconds > 0))
    throw new Error(
      `--registry-timeout ${JSON.stringify(opts.registryTimeout)}: expected a positive number of seconds`,
    );
  return {
    ...(opts.kubeconfig ? { kubeconfig: readFileSync(opts.kubeconfig, 'utf8') } : {}),
    sets,
    httpPort: parsePort(opts.httpPort, '--http-port'),
    httpHost: opts.httpHost,
    webhook: { port: parsePort(opts.webhookPort, '--webhook-port'), host: opts.webhookHost },
    operatorNamespace: operatorNamespaceFromEnv(process.env),
    // image labels and model-source listings over the OCI Distribution API, pull secrets read with our client
    imageRegistry: (client) =>
      new OciRegistryClient({ mirrors, secrets: kubeSecretSource(client), timeoutMs: timeoutSeconds * 1000 }),
    log,
    ...(opts.leaderElect
      ? {
          leaderElection: {
            enabled: true,
            ...(opts.leaderElectionNamespace ? { leaseNamespace: opts.leaderElectionNamespace } : {}),
          },
        }
      : {}),
  };
}
