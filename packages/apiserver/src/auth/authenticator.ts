// The request authenticator: a bearer token is tried against the static tokens (admin, tokens file,
// test users), then as a ServiceAccount JWT. Every authenticated user gets system:authenticated.
// There is no anonymous user: a request without valid credentials is 401 (kube with --anonymous-auth=false).
import type { IncomingMessage } from 'node:http';
import type { ServiceAccountTokens, TokenCheck } from './service-account-tokens.ts';
import { bearerToken, type TokenAuthenticator } from './static-tokens.ts';
import { type Authenticator, type AuthUser, withAuthenticatedGroup } from './types.ts';

export class BearerAuthenticator implements Authenticator {
  constructor(
    readonly tokens: TokenAuthenticator,
    readonly serviceAccounts: ServiceAccountTokens,
  ) {}

  authenticate(req: IncomingMessage): AuthUser | undefined {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const user = this.tokens.lookup(token) ?? this.serviceAccounts.authenticate(token);
    return user && withAuthenticatedGroup(user);
  }

  /**
   * TokenReview: static tokens are audience-agnostic (valid only for the API audiences, like kube's
   * WrapAudienceAgnosticToken); ServiceAccount tokens are checked against the requested audiences.
   */
  review(token: string, audiences: string[] | undefined): TokenCheck {
    const api = this.serviceAccounts.apiAudiences;
    const wanted = audiences && audiences.length > 0 ? audiences : api;
    const staticUser = this.tokens.lookup(token);
    if (staticUser) {
      const matched = wanted.filter((a) => api.includes(a));
      if (matched.length === 0)
        return {
          error: `token audiences ${JSON.stringify(api)} is invalid for the target audiences ${JSON.stringify(wanted)}`,
        };
      return { user: withAuthenticatedGroup(staticUser), audiences: matched };
    }
    const sa = this.serviceAccounts.review(token, wanted);
    if (!sa) return {};
    return sa.user
      ? { user: withAuthenticatedGroup(sa.user), ...(sa.audiences ? { audiences: sa.audiences } : {}) }
      : sa;
  }
}
