// A ServiceAccount that may only read ModelDeployments in one namespace: the limited credentials the dashboard
// and `modelplane status` tests use to show that they read with the user's own rights, never more.
import type { DevTestCluster } from './dev-cluster.ts';

/** creates ServiceAccount `viewer` with a Role reading ModelDeployments in `namespace`; returns a token for it */
export async function createModelDeploymentViewer(cluster: DevTestCluster, namespace: string): Promise<string> {
  await cluster.k(['create', 'serviceaccount', 'viewer', '-n', namespace]);
  await cluster.k([
    'create',
    'role',
    'md-reader',
    '-n',
    namespace,
    '--verb=get,list,watch',
    '--resource=modeldeployments.kubeairunway.ai',
  ]);
  await cluster.k([
    'create',
    'rolebinding',
    'md-reader',
    '-n',
    namespace,
    '--role=md-reader',
    `--serviceaccount=${namespace}:viewer`,
  ]);
  return (await cluster.k(['create', 'token', 'viewer', '-n', namespace])).trim();
}
