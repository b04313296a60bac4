// envtest for this runtime: a test cluster (the embedded API server, or the real control plane under
// `npm run test:real`, chosen by @modelplane/apiserver/testing) with an admin client, a separate operator
// identity (so faults and audit entries can be scoped to the code under test) and the CRDs a test needs.
// Test-only: it loads the API server, so production code never imports it.

import { randomBytes } from 'node:crypto';
import type { ApiServer, AuditEntry } from '@modelplane/apiserver';
import { type TestCluster as BackendCluster, startTestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from './client/client.ts';
import type { CustomResourceDefinition } from './client/kinds.ts';
import { ensureCrd } from './crd/ensure.ts';

export type { ApiServer };

export interface TestCluster {
  /** the embedded server's handle (faults, restart); reading it on the real backend throws, naming what to use */
  readonly srv: ApiServer;
  readonly backend: BackendCluster;
  admin: KubeClient;
  /** kubeconfig of the identity the code under test runs as */
  operatorKubeconfig: string;
  operatorUser: string;
  /** every completed request so far (the embedded audit log, or kube-apiserver's) */
  auditEntries(): AuditEntry[];
  /** a kubeconfig for another admin-level user, so audit entries and faults can tell it apart */
  userKubeconfig(username: string): Promise<string>;
  close(): Promise<void>;
}

/** an admin-level user: a token on the embedded server, a client certificate from the real cluster's CA */
async function adminUserKubeconfig(cluster: BackendCluster, username: string): Promise<string> {
  if (cluster.real) return cluster.real.kubeconfigForUser(username, ['system:masters']);
  const token = randomBytes(18).toString('base64url');
  cluster.server.addToken(token, { username, groups: ['system:masters', 'system:authenticated'] });
  return cluster.server.kubeconfigYaml({ token, user: username });
}

/** `dataDir` (persistence across an in-place restart) is the embedded server's: it selects that backend */
export async function startCluster(
  opts: { dataDir?: string; operatorUser?: string; crds?: readonly CustomResourceDefinition[] } = {},
): Promise<TestCluster> {
  const backend = await startTestCluster(opts.dataDir ? { backend: 'embedded', dataDir: opts.dataDir } : {});
  const admin = await KubeClient.create(backend.kubeconfig, { fieldManager: 'test-admin' });
  for (const crd of opts.crds ?? []) await ensureCrd(admin, crd);
  const operatorUser = opts.operatorUser ?? 'runtime-operator';
  return {
    get srv() {
      return backend.server;
    },
    backend,
    admin,
    operatorKubeconfig: await adminUserKubeconfig(backend, operatorUser),
    operatorUser,
    auditEntries: () => backend.auditEntries(),
    userKubeconfig: (username) => adminUserKubeconfig(backend, username),
    async close() {
      admin.close();
      await backend.stop();
    },
  };
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}
