// Authentication and authorization seams. Part 1 serves an admin bearer token (the kubeconfig `dev`
// writes); tokens files, ServiceAccount tokens, RBAC and impersonation plug in through these
// interfaces without touching the request path.
import type { IncomingMessage } from 'node:http';
import type { RequestInfo } from './http/request-info.ts';
import type { UserInfo } from './types.ts';

export interface Authenticator {
  /** undefined: no valid credentials (401) */
  authenticate(req: IncomingMessage): UserInfo | undefined;
}

export interface Authorizer {
  /** undefined when allowed, otherwise the reason kube-apiserver would give */
  authorize(user: UserInfo, info: RequestInfo): string | undefined;
}

export const ADMIN_USER: UserInfo = { username: 'modelplane-admin', groups: ['system:masters', 'system:authenticated'] };

export class TokenAuthenticator implements Authenticator {
  readonly tokens = new Map<string, UserInfo>();

  add(token: string, user: UserInfo): void {
    this.tokens.set(token, user);
  }

  authenticate(req: IncomingMessage): UserInfo | undefined {
    const header = req.headers.authorization;
    if (!header) return undefined;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return undefined;
    return this.tokens.get(m[1]!);
  }
}

/** Everything authenticated may do everything: replaced by RBAC. */
export const allowAll: Authorizer = { authorize: () => undefined };
