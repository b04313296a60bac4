// Brings up the embedded cluster for `modelplane dev`: the API server, the external projects' CRDs, the
// simulated nodes/storage/gateway, and the simulators of Kubernetes' and the external operators'
// controllers, all running against the API server through the normal client.
import { type ApiServer, startApiServer } from '../../apiserver/index.ts';
import { type Logger, Manager, ensureCrd } from '../../kube/index.ts';
import { installClusterFurniture } from '../../sim/cluster.ts';
import { allCrds } from '../crds.ts';
import { externalCrds, registerOperatorSimulators } from '../../sim/operators/index.ts';
import { PodLogStore, registerWorkloadSimulators } from '../../sim/workloads/index.ts';

export interface DevClusterOptions {
  port: number;
  dataDir?: string;
  auditLogFile?: string;
  log: Logger;
}

export interface DevCluster {
  server: ApiServer;
  manager: Manager;
  stop(): Promise<void>;
}

export async function startApiServerOnly(opts: DevClusterOptions): Promise<ApiServer> {
  return startApiServer({
    port: opts.port,
    ...(opts.auditLogFile ? { auditLogFile: opts.auditLogFile } : {}),
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
  });
}

export async function startDevCluster(opts: DevClusterOptions): Promise<DevCluster> {
  const server = await startApiServerOnly(opts);
  const logs = new PodLogStore();
  server.core.logProvider = (ns, pod, container) => logs.get(ns, pod, container);
  const manager = await Manager.create({ kubeconfig: server.kubeconfigYaml(), name: 'modelplane-sim', logger: opts.log.child({ component: 'simulators' }) });
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const out = await fn();
    opts.log.info(what, { ms: Date.now() - started });
    return out;
  };
  await step('external CRDs installed', async () => {
    for (const crd of externalCrds()) await ensureCrd(manager.client, crd);
  });
  await step('modelplane CRDs installed', async () => {
    for (const crd of allCrds()) await ensureCrd(manager.client, crd);
  });
  await step('simulated nodes, storage class and gateway created', () => installClusterFurniture(manager.client));
  registerWorkloadSimulators(manager, { logs });
  registerOperatorSimulators(manager);
  await step('simulators started', () => manager.start());
  return {
    server,
    manager,
    async stop() {
      await manager.stop();
      await server.close();
    },
  };
}
