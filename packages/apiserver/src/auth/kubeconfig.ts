// Credentials for a kubeconfig that authenticates as a ServiceAccount, for tests and `modelplane dev`: the
// operator runs under its generated RBAC exactly as it would in a cluster, with a token minted like
// TokenRequest's. The server handle turns them into a kubeconfig (ApiServer.serviceAccountKubeconfig).
import { DEFAULT_EXPIRATION_SECONDS, type ServiceAccountTokens } from './service-account-tokens.ts';
import { serviceAccountUsername } from './types.ts';

export interface ServiceAccountKubeconfigOptions {
  /** token lifetime; default one year, so a long `dev` session never sees it expire */
  expirationSeconds?: number;
  audiences?: string[];
}

/** Mints a token for an existing ServiceAccount; throws a 404 StatusError naming it when it does not exist. */
export function serviceAccountCredentials(
  tokens: ServiceAccountTokens,
  namespace: string,
  name: string,
  opts: ServiceAccountKubeconfigOptions = {},
): { token: string; user: string } {
  const { token } = tokens.mint({
    namespace,
    name,
    audiences: opts.audiences ?? tokens.apiAudiences,
    expirationSeconds: opts.expirationSeconds ?? 365 * 24 * DEFAULT_EXPIRATION_SECONDS,
  });
  return { token, user: serviceAccountUsername(namespace, name) };
}
