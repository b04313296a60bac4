// The seams between the HTTP front and authentication/authorization, and the identities they speak
// about. Shapes follow k8s.io/apiserver's user.Info and authorizer.Attributes so behaviour can be
// compared with kube-apiserver line by line.
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../types.ts';

/** user.Info with kube's `extra` (credential id, impersonation extras); plain UserInfo objects fit too. */
export interface AuthUser extends UserInfo {
  extra?: Record<string, string[]>;
  /** set on the effective user of an impersonated request: who really made it */
  impersonatedBy?: UserInfo;
}

export interface Authenticator {
  /** undefined: no valid credentials (401) */
  authenticate(req: IncomingMessage): AuthUser | undefined;
}

/** authorizer.Attributes; RequestInfo has exactly these fields, so a parsed request is passed as is. */
export interface AuthzAttributes {
  isResourceRequest: boolean;
  /** the URL path, for non-resource requests */
  path: string;
  verb: string;
  group: string;
  version: string;
  namespace?: string | undefined;
  resource?: string | undefined;
  subresource?: string | undefined;
  name?: string | undefined;
}

export interface Decision {
  allowed: boolean;
  /** kube's reason: `RBAC: allowed by …` when allowed, resolution errors when denied, or '' */
  reason: string;
  /** errors met while evaluating (SubjectAccessReview.status.evaluationError) */
  evaluationError?: string;
}

export interface Authorizer {
  authorize(user: UserInfo, attrs: AuthzAttributes): Decision;
}

export const GROUP_MASTERS = 'system:masters';
export const GROUP_AUTHENTICATED = 'system:authenticated';
export const GROUP_UNAUTHENTICATED = 'system:unauthenticated';
export const GROUP_SERVICEACCOUNTS = 'system:serviceaccounts';
export const SA_USERNAME_PREFIX = 'system:serviceaccount:';

export const ADMIN_USER: UserInfo = { username: 'modelplane-admin', groups: [GROUP_MASTERS, GROUP_AUTHENTICATED] };

/** Everything authenticated may do everything (servers built without RBAC, unit tests). */
export const allowAll: Authorizer = { authorize: () => ({ allowed: true, reason: '' }) };

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SA_USERNAME_PREFIX}${namespace}:${name}`;
}

export function serviceAccountGroups(namespace: string): string[] {
  return [GROUP_SERVICEACCOUNTS, `${GROUP_SERVICEACCOUNTS}:${namespace}`];
}

/** serviceaccount.SplitUsername: namespace and name of a valid `system:serviceaccount:<ns>:<name>`. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SA_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) return undefined;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

/** Adds system:authenticated the way kube's authenticated-group adder does (once, never to anonymous). */
export function withAuthenticatedGroup<U extends UserInfo>(user: U): U {
  if (user.groups.includes(GROUP_AUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, GROUP_AUTHENTICATED] };
}
