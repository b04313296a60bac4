// ServiceAccount credentials on the real control plane: a TokenRequest (serviceaccounts/<name>/token)
// made with the admin token, as `kubectl create token` does, wrapped in a kubeconfig for the account.
import { request } from 'node:https';
import type { RealControlPlane } from './control-plane.ts';

export interface TokenOptions {
  audiences?: string[];
  expirationSeconds?: number;
}

export function requestServiceAccountToken(
  plane: Pick<RealControlPlane, 'url' | 'caPem' | 'adminToken'>,
  namespace: string,
  name: string,
  opts: TokenOptions = {},
): Promise<string> {
  const body = JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: {
      ...(opts.audiences ? { audiences: opts.audiences } : {}),
      expirationSeconds: opts.expirationSeconds ?? 24 * 3600,
    },
  });
  const url = new URL(
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`,
    plane.url,
  );
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        ca: plane.caPem,
        headers: { authorization: `Bearer ${plane.adminToken}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          if (res.statusCode === 201 || res.statusCode === 200) resolve(JSON.parse(text).status.token);
          else
            reject(
              new Error(
                `TokenRequest for ServiceAccount ${namespace}/${name} failed: HTTP ${res.statusCode} ${text.slice(0, 500)} (does the ServiceAccount exist?)`,
              ),
            );
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** a kubeconfig authenticating as ServiceAccount `namespace/name`, with `namespace` as its default */
export async function realServiceAccountKubeconfig(
  plane: RealControlPlane,
  namespace: string,
  name: string,
  opts: TokenOptions = {},
): Promise<string> {
  const token = await requestServiceAccountToken(plane, namespace, name, opts);
  return plane.kubeconfigYaml({ token, user: `system:serviceaccount:${namespace}:${name}`, namespace });
}
