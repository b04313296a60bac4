// Starts the operator: one Manager (client, cache, metrics/health server, leader election) running the
// chosen controller sets. `modelplane run` and `modelplane dev` both come through here, so the embedded
// cluster runs exactly what a real cluster runs.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import { type LeaderElectionConfig, Manager } from '@modelplane/runtime/manager';
import type { ImageRegistry } from '@modelplane/runtime/registry';
import type { ControllerSet, OperatorEnv, WebhookEnv } from './registry.ts';

/** where deploy/ installs the operator; also the namespace `modelplane dev` uses */
export const DEFAULT_POD_NAMESPACE = 'modelplane-system';

export interface OperatorOptions {
  /** kubeconfig YAML or a KubeConfig; omitted = in-cluster / default loading rules */
  kubeconfig?: string | KubeConfig;
  client?: KubeClient;
  sets: readonly ControllerSet[];
  /** the manager name: lease `<name>-leader`, events reported as `<name>.io/<controller>` */
  name?: string;
  leaderElection?: LeaderElectionConfig;
  httpPort?: number;
  httpHost?: string;
  operatorNamespace: string;
  /** default $POD_NAMESPACE or modelplane-system */
  podNamespace?: string;
  webhook?: WebhookEnv;
  /** the registry client, or a factory given the operator's client (to read pull secrets) */
  imageRegistry?: ImageRegistry | ((client: KubeClient) => ImageRegistry);
  /** where the operator reaches a Service port (default: cluster DNS) */
  serviceUrl?: OperatorEnv['serviceUrl'];
  log: Logger;
}

export async function startOperator(opts: OperatorOptions): Promise<Manager> {
  const mgr = await Manager.create({
    ...(opts.client ? { client: opts.client } : opts.kubeconfig !== undefined ? { kubeconfig: opts.kubeconfig } : {}),
    name: opts.name ?? 'modelplane',
    logger: opts.log,
    ...(opts.leaderElection ? { leaderElection: opts.leaderElection } : {}),
    ...(opts.httpPort !== undefined ? { httpPort: opts.httpPort } : {}),
    ...(opts.httpHost ? { httpHost: opts.httpHost } : {}),
  });
  const imageRegistry = typeof opts.imageRegistry === 'function' ? opts.imageRegistry(mgr.client) : opts.imageRegistry;
  const env: OperatorEnv = {
    operatorNamespace: opts.operatorNamespace,
    podNamespace: opts.podNamespace ?? (process.env.POD_NAMESPACE || DEFAULT_POD_NAMESPACE),
    log: opts.log,
    ...(opts.webhook ? { webhook: opts.webhook } : {}),
    ...(imageRegistry ? { imageRegistry } : {}),
    ...(opts.serviceUrl ? { serviceUrl: opts.serviceUrl } : {}),
  };
  for (const set of opts.sets) {
    await set.register(mgr, { ...env, log: opts.log.child({ controllers: set.name }) });
  }
  await mgr.start();
  opts.log.info('operator started', {
    controllers: opts.sets.map((s) => s.name),
    leaderElection: Boolean(opts.leaderElection?.enabled),
  });
  return mgr;
}
