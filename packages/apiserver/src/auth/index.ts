// Authentication and authorization for the embedded API server, assembled: bearer tokens (static, tokens
// file, ServiceAccount JWTs), RBAC with kube's default roles and ClusterRole aggregation, impersonation,
// TokenRequest and the review APIs. The HTTP front only sees the seams in types.ts.
import type { IncomingMessage } from 'node:http';
import type { ResourceRequest } from '../handlers/request.ts';
import type { AdmissionAttributes } from '../objects/hooks.ts';
import type { ObjectStore } from '../storage/store.ts';
import { BearerAuthenticator } from './authenticator.ts';
import { impersonate } from './impersonation.ts';
import { deriveJwtKey } from './jwt.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import { ensureBootstrapPolicy } from './rbac/bootstrap-policy.ts';
import { rbacEscalationCheck } from './rbac/escalation.ts';
import { reviewHandler } from './reviews.ts';
import { DEFAULT_ISSUER, ServiceAccountTokens } from './service-account-tokens.ts';
import { loadTokensFile, TokenAuthenticator } from './static-tokens.ts';
import { tokenRequestHandler } from './token-request.ts';
import type { AuthUser } from './types.ts';

export { type ServiceAccountKubeconfigOptions, serviceAccountCredentials } from './kubeconfig.ts';
export { RBAC_STORAGE } from './rbac/authorizer.ts';
export { ADMIN_USER } from './types.ts';

export interface AuthOptions {
  /** secret material the ServiceAccount token signing key is derived from (the CA key: stable across restarts) */
  signingSeed: string;
  /** kube-apiserver --token-auth-file: `token,user,uid,"group1,group2"` per line */
  tokensFile?: string;
  issuer?: string;
}

type VirtualHandler = (r: ResourceRequest) => Promise<number> | undefined;

export class AuthStack {
  readonly tokens = new TokenAuthenticator();
  readonly serviceAccounts: ServiceAccountTokens;
  readonly authenticator: BearerAuthenticator;
  readonly rbac: RbacAuthorizer;
  readonly virtualHandlers: VirtualHandler[];

  constructor(
    private readonly store: ObjectStore,
    opts: AuthOptions,
  ) {
    if (opts.tokensFile) for (const [token, user] of loadTokensFile(opts.tokensFile)) this.tokens.add(token, user);
    this.serviceAccounts = new ServiceAccountTokens(
      store,
      deriveJwtKey(opts.signingSeed),
      opts.issuer ?? DEFAULT_ISSUER,
    );
    this.authenticator = new BearerAuthenticator(this.tokens, this.serviceAccounts);
    this.rbac = new RbacAuthorizer(store);
    this.escalationCheck = rbacEscalationCheck(this.rbac);
    this.virtualHandlers = [
      tokenRequestHandler(this.serviceAccounts),
      reviewHandler({ authorizer: this.rbac, rbac: this.rbac, authenticator: this.authenticator }),
    ];
  }

  /** RBAC's escalation prevention for writes of roles and bindings (throws 403). */
  readonly escalationCheck: (attrs: AdmissionAttributes) => void;

  /** The effective user of a request (impersonation headers honoured); throws 403 when not allowed. */
  impersonate = (user: AuthUser, req: IncomingMessage): AuthUser => impersonate(this.rbac, user, req);

  /** Creates the default RBAC policy where missing and follows RBAC writes. */
  start(): void {
    ensureBootstrapPolicy(this.store);
    this.rbac.start();
  }

  stop(): void {
    this.rbac.stop();
  }
}
