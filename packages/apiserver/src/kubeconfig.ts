// Kubeconfig documents for clients of the embedded server (kubectl, client-node, the operator).
import { stringify } from 'yaml';

export function kubeconfigYaml(opts: {
  server: string;
  caPem: string;
  token: string;
  user?: string;
  cluster?: string;
  namespace?: string;
}): string {
  const cluster = opts.cluster ?? 'modelplane';
  const user = opts.user ?? 'modelplane-admin';
  const context = `${user}@${cluster}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster,
        cluster: { server: opts.server, 'certificate-authority-data': Buffer.from(opts.caPem).toString('base64') },
      },
    ],
    users: [{ name: user, user: { token: opts.token } }],
    contexts: [{ name: context, context: { cluster, user, ...(opts.namespace ? { namespace: opts.namespace } : {}) } }],
    'current-context': context,
    preferences: {},
  });
}
