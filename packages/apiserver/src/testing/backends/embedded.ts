// The embedded backend: this package's own API server, in process, on a free port.
import { startApiServer } from '../../index.ts';
import type { BackendCluster, BackendOptions } from './types.ts';

export async function startEmbeddedBackend(opts: BackendOptions): Promise<BackendCluster> {
  const server = await startApiServer({ port: 0, ...opts });
  return {
    get url() {
      return server.url;
    },
    caPem: server.caPem,
    adminToken: server.adminToken,
    kubeconfigYaml: () => server.kubeconfigYaml(),
    server,
    real: undefined,
    auditEntries: () => server.auditEntries(),
    serviceAccountKubeconfig: async (namespace, name) => server.serviceAccountKubeconfig(namespace, name),
    stop: () => server.close(),
  };
}
