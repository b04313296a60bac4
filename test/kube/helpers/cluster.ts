// Integration-test scaffolding on the test cluster (embedded or real API server, test/helpers/backend.ts):
// an admin client, a separate operator identity (so faults and audit entries can be scoped to the code
// under test), and the Widget CRD.

import { randomBytes } from 'node:crypto';
import type { ApiServer, AuditEntry } from '@modelplane/apiserver';
import { startTestCluster, type TestCluster as BackendCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '../../../src/kube/client.ts';
import { ensureCrd } from '../../../src/kube/crd.ts';
import type { CustomResourceDefinition } from '../../../src/kube/kinds.ts';
import { kindRef, type KubeObject } from '../../../src/kube/types.ts';
import { z } from 'zod';
import { crdFromZod } from '../../../src/apis/crd-gen/index.ts';

export type { ApiServer };

export interface Widget extends KubeObject {
  spec?: { size?: number; note?: string };
  status?: { observedGeneration?: number; configMap?: string; ready?: boolean };
}

export const Widgets = kindRef<Widget>('test.modelplane.io/v1', 'Widget');

export const WIDGET_CRD: CustomResourceDefinition = crdFromZod({
  group: 'test.modelplane.io',
  kind: 'Widget',
  plural: 'widgets',
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      specRequired: false,
      spec: z.object({ size: z.number().int().min(0).optional(), note: z.string().optional() }),
      status: z.object({
        observedGeneration: z.number().int().optional(),
        configMap: z.string().optional(),
        ready: z.boolean().optional(),
      }),
    },
  ],
});

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
export async function startCluster(opts: { dataDir?: string; operatorUser?: string } = {}): Promise<TestCluster> {
  const backend = await startTestCluster(opts.dataDir ? { backend: 'embedded', dataDir: opts.dataDir } : {});
  const admin = await KubeClient.create(backend.kubeconfig, { fieldManager: 'test-admin' });
  await ensureCrd(admin, WIDGET_CRD);
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

export function widget(name: string, namespace: string, size = 1): Widget {
  return { apiVersion: Widgets.apiVersion, kind: Widgets.kind, metadata: { name, namespace }, spec: { size } };
}
