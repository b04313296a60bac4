// Authentication and authorization for the embedded API server, assembled: bearer tokens (static, tokens
// file, ServiceAccount JWTs), RBAC with kube's default roles and ClusterRole aggregation, impersonation,
// TokenRequest and the review APIs. The HTTP front only sees the seams in types.ts.
import type { IncomingMessage } from 'node:http';
import type { ServerCore } from '../core.ts';
import type { ResourceRequest } from '../handlers/resources.ts';
import type { AdmissionAttributes, AdmissionChain } from '../objects/hooks.ts';
import { BearerAuthenticator } from './authenticator.ts';
import { impersonate } from './impersonation.ts';
import { deriveJwtKey } from './jwt.ts';
import { ClusterRoleAggregator } from './rbac/aggregation.ts';
import { RbacAuthorizer } from './rbac/authorizer.ts';
import { ensureBootstrapPolicy } from './rbac/bootstrap-policy.ts';
import { rbacEscalationCheck } from './rbac/escalation.ts';
import { reviewHandler } from './reviews.ts';
import { DEFAULT_ISSUER, ServiceAccountTokens } from './service-account-tokens.ts';
import { TokenAuthenticator, loadTokensFile } from './static-tokens.ts';
import { tokenRequestHandler } from './token-request.ts';
import type { AuthUser } from './types.ts';

export * from './types.ts';
export { BearerAuthenticator } from './authenticator.ts';
export { forbidden, forbiddenMessage } from './forbidden.ts';
export { impersonate } from './impersonation.ts';
export { RbacAuthorizer, RBAC_STORAGE } from './rbac/authorizer.ts';
export { ClusterRoleAggregator, aggregatedRules } from './rbac/aggregation.ts';
export { bootstrapClusterRoleBindings, bootstrapClusterRoles } from './rbac/bootstrap-policy.ts';
export { compactString, covers, escalationError, rbacEscalationCheck } from './rbac/escalation.ts';
export { type CompiledRule, type PolicyRule, type Subject, compileRule, ruleAllows, subjectMatches } from './rbac/rules.ts';
export { DEFAULT_ISSUER, ServiceAccountTokens } from './service-account-tokens.ts';
export { TokenAuthenticator, bearerToken, loadTokensFile, parseTokensFile } from './static-tokens.ts';
export { serviceAccountKubeconfig } from './kubeconfig.ts';

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
  readonly aggregator: ClusterRoleAggregator;
  readonly virtualHandlers: VirtualHandler[];

  constructor(
    private readonly core: ServerCore,
    opts: AuthOptions,
  ) {
    if (opts.tokensFile) for (const [token, user] of loadTokensFile(opts.tokensFile)) this.tokens.add(token, user);
    this.serviceAccounts = new ServiceAccountTokens(core.store, deriveJwtKey(opts.signingSeed), opts.issuer ?? DEFAULT_ISSUER);
    this.authenticator = new BearerAuthenticator(this.tokens, this.serviceAccounts);
    this.rbac = new RbacAuthorizer(core.store);
    this.aggregator = new ClusterRoleAggregator(core);
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

  /**
   * An admission chain that refuses RBAC privilege escalation before `inner` validates, as kube's RBAC
   * storage does before validating admission runs.
   */
  guardAdmission(inner: AdmissionChain): AdmissionChain {
    return {
      mutate: (a) => inner.mutate(a),
      validate: async (a) => {
        this.escalationCheck(a);
        await inner.validate(a);
      },
    };
  }

  /** Creates the default RBAC policy where missing, follows RBAC writes, fills in aggregated roles. */
  start(): void {
    ensureBootstrapPolicy(this.core.store);
    this.rbac.start();
    this.aggregator.start();
  }

  stop(): void {
    this.aggregator.stop();
    this.rbac.stop();
  }
}
