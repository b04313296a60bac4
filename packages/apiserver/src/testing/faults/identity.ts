// Who is asking, decided the way kube-apiserver decides it for the real control plane's credentials: a
// static token from its --token-auth-file (the admin, kube-controller-manager), a ServiceAccount token
// (a JWT signed with the cluster's ServiceAccount key: its `sub` names the account), or a client
// certificate signed by the cluster's CA (CN the user, O the groups). The fault proxy scopes faults by this
// name, exactly the name the audit log records (docs/real-kubernetes.md).
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { KCM_USER, REAL_ADMIN_USER, type RealPki } from '../../real/pki.ts';

export interface Caller {
  /** the user name kube-apiserver will see ('' when the credentials are unknown: the server will answer 401) */
  username: string;
  /** set for a client-certificate user: the proxy forwards the request impersonating it */
  certificate?: { groups: string[] };
}

interface JwtClaims {
  sub?: string;
  exp?: number;
}

/** a signed JWT's claims when `key` verifies it (ES256 or RS256), else undefined */
function verifiedClaims(token: string, key: KeyObject): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string };
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2]!, 'base64url');
    const ok =
      header.alg === 'ES256'
        ? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
        : header.alg === 'RS256' && verify('sha256', data, key, signature);
    if (!ok) return undefined;
    return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as JwtClaims;
  } catch {
    return undefined;
  }
}

export class RealIdentities {
  private readonly tokens = new Map<string, string>();
  private readonly serviceAccountKey: KeyObject;

  constructor(pki: RealPki) {
    this.tokens.set(pki.adminToken, REAL_ADMIN_USER);
    this.tokens.set(pki.kcmToken, KCM_USER);
    this.serviceAccountKey = createPublicKey(readFileSync(pki.files.saPub, 'utf8'));
  }

  /** the user a bearer token authenticates as ('' when it is not one of the cluster's) */
  private fromToken(token: string): string {
    const known = this.tokens.get(token);
    if (known !== undefined) return known;
    const claims = verifiedClaims(token, this.serviceAccountKey);
    const live = claims?.sub && (claims.exp === undefined || claims.exp * 1000 > Date.now());
    const user = live ? claims.sub! : '';
    // a token that expires is checked again next time; ServiceAccount tokens here live for hours
    if (live) this.tokens.set(token, user);
    return user;
  }

  identify(req: IncomingMessage): Caller {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) return { username: this.fromToken(auth.slice('Bearer '.length).trim()) };
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined>;
      const cn = subject?.CN;
      const o = subject?.O;
      if (typeof cn === 'string' && cn)
        return { username: cn, certificate: { groups: o === undefined ? [] : Array.isArray(o) ? o : [o] } };
    }
    return { username: '' };
  }
}
