// Integration-test scaffolding on the embedded API server: a server, an admin client, a separate operator
// identity (so faults and audit entries can be scoped to the code under test), and the Widget CRD.

import { randomBytes } from 'node:crypto';
import { startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '../../../src/kube/client.ts';
import { ensureCrd } from '../../../src/kube/crd.ts';
import type { CustomResourceDefinition } from '../../../src/kube/kinds.ts';
import { kindRef, type KubeObject } from '../../../src/kube/types.ts';
import { z } from 'zod';
import { crdFromZod } from '../../../src/apis/crd-gen/index.ts';

export type ApiServer = Awaited<ReturnType<typeof startApiServer>>;

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
  srv: ApiServer;
  admin: KubeClient;
  /** kubeconfig of the identity the code under test runs as */
  operatorKubeconfig: string;
  operatorUser: string;
  close(): Promise<void>;
}

/** a kubeconfig for a second admin-level user, so audit entries and faults can tell the operator apart */
export function userKubeconfig(srv: ApiServer, username: string): string {
  const token = randomBytes(18).toString('base64url');
  srv.addToken(token, { username, groups: ['system:masters', 'system:authenticated'] });
  return srv.kubeconfigYaml({ token, user: username });
}

export async function startCluster(opts: { dataDir?: string; operatorUser?: string } = {}): Promise<TestCluster> {
  const srv = await startApiServer({ port: 0, ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) } as Parameters<
    typeof startApiServer
  >[0]);
  const admin = await KubeClient.create(srv.kubeconfigYaml(), { fieldManager: 'test-admin' });
  await ensureCrd(admin, WIDGET_CRD);
  const operatorUser = opts.operatorUser ?? 'runtime-operator';
  return {
    srv,
    admin,
    operatorKubeconfig: userKubeconfig(srv, operatorUser),
    operatorUser,
    async close() {
      admin.close();
      await srv.close();
    },
  };
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export function widget(name: string, namespace: string, size = 1): Widget {
  return { apiVersion: Widgets.apiVersion, kind: Widgets.kind, metadata: { name, namespace }, spec: { size } };
}
