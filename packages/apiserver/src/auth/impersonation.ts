// Impersonation headers (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): Impersonate-User,
// -Group, -Uid and -Extra-<key>. Each requested attribute is authorized as the `impersonate` verb on
// users, groups, serviceaccounts, uids or userextras/<key>; the request then runs as the new user.
import type { IncomingMessage } from 'node:http';
import { errors } from '../errors.ts';
import { forbidden } from './forbidden.ts';
import {
  type Authorizer,
  type AuthUser,
  type AuthzAttributes,
  GROUP_AUTHENTICATED,
  GROUP_UNAUTHENTICATED,
  serviceAccountGroups,
  serviceAccountUsername,
  splitServiceAccountUsername,
} from './types.ts';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

interface Request {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  name: string;
  namespace?: string;
  extraKey?: string;
}

/** The effective user of the request: `user` itself, or the impersonated user (403 when not allowed). */
export function impersonate(authorizer: Authorizer, user: AuthUser, req: IncomingMessage): AuthUser {
  // Almost no request impersonates: look at the raw header names before building headersDistinct.
  if (!hasImpersonationHeader(req.rawHeaders)) return user;
  const headers = req.headersDistinct;
  const requests = impersonationRequests(headers);
  if (requests.length === 0) return user;
  const groupsSpecified = (headers[GROUP] ?? []).length > 0;
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs: AuthzAttributes = {
      isResourceRequest: true,
      path: req.url ?? '',
      verb: 'impersonate',
      group: '',
      version: 'v1',
      name: r.name,
    };
    switch (r.kind) {
      case 'ServiceAccount':
        attrs.resource = 'serviceaccounts';
        attrs.namespace = r.namespace;
        username = serviceAccountUsername(r.namespace!, r.name);
        if (!groupsSpecified) groups = serviceAccountGroups(r.namespace!);
        break;
      case 'User':
        attrs.resource = 'users';
        username = r.name;
        break;
      case 'Group':
        attrs.resource = 'groups';
        groups.push(r.name);
        break;
      case 'UserExtra':
        attrs.group = 'authentication.k8s.io';
        attrs.resource = 'userextras';
        attrs.subresource = r.extraKey;
        (extra[r.extraKey!] ??= []).push(r.name);
        break;
      case 'UID':
        attrs.group = 'authentication.k8s.io';
        attrs.resource = 'uids';
        uid = r.name;
        break;
    }
    const decision = authorizer.authorize(user, attrs);
    if (!decision.allowed) throw forbidden(user, attrs, decision.reason);
  }
  if (username !== 'system:anonymous') {
    if (!groups.includes(GROUP_AUTHENTICATED) && !groups.includes(GROUP_UNAUTHENTICATED))
      groups.push(GROUP_AUTHENTICATED);
  } else if (!groups.includes(GROUP_UNAUTHENTICATED)) {
    groups.push(GROUP_UNAUTHENTICATED);
  }
  const realUser = { username: user.username, groups: user.groups, ...(user.uid ? { uid: user.uid } : {}) };
  return {
    username,
    groups,
    ...(uid ? { uid } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
    impersonatedBy: realUser,
  };
}

/** rawHeaders alternate names and values; names keep the client's case */
function hasImpersonationHeader(raw: string[]): boolean {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length > 12 && (name.charCodeAt(0) | 0x20) === 0x69 && name.slice(0, 12).toLowerCase() === 'impersonate-')
      return true;
  }
  return false;
}

function impersonationRequests(headers: NodeJS.Dict<string[]>): Request[] {
  const out: Request[] = [];
  const user = headers[USER]?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace } : { kind: 'User', name: user });
  }
  const groups = headers[GROUP] ?? [];
  for (const g of groups) out.push({ kind: 'Group', name: g });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(EXTRA_PREFIX.length));
    for (const v of values) out.push({ kind: 'UserExtra', name: v, extraKey: key });
  }
  const uid = headers[UID]?.[0] ?? '';
  if (uid) out.push({ kind: 'UID', name: uid });
  if ((groups.length > 0 || hasExtra || uid) && !user) {
    const what = out.map((r) => `${r.kind} ${JSON.stringify(r.name)}`).join(', ');
    throw errors.internal(`requested [${what}] without impersonating a user`);
  }
  return out;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
