// A kubeconfig that authenticates as a ServiceAccount, for tests and `modelplane dev`: the operator runs
// under its generated RBAC exactly as it would in a cluster, with a token minted like TokenRequest's.
import type { ApiServer } from '../index.ts';
import { DEFAULT_EXPIRATION_SECONDS } from './service-account-tokens.ts';
import { serviceAccountUsername } from './types.ts';

export interface ServiceAccountKubeconfigOptions {
  /** token lifetime; default one year, so a long `dev` session never sees it expire */
  expirationSeconds?: number;
  audiences?: string[];
}

/**
 * Mints a token for an existing ServiceAccount and returns a kubeconfig using it (namespace set to the
 * ServiceAccount's). Throws a 404 ApiError naming the ServiceAccount when it does not exist.
 */
export function serviceAccountKubeconfig(server: ApiServer, namespace: string, name: string, opts: ServiceAccountKubeconfigOptions = {}): string {
  const sa = server.auth.serviceAccounts;
  const { token } = sa.mint({
    namespace,
    name,
    audiences: opts.audiences ?? sa.apiAudiences,
    expirationSeconds: opts.expirationSeconds ?? 365 * 24 * DEFAULT_EXPIRATION_SECONDS,
  });
  return server.kubeconfigYaml({ token, user: serviceAccountUsername(namespace, name), namespace });
}
