// Compact JWS with HS256: enough of RFC 7515/7519 to sign and verify the server's own ServiceAccount
// tokens. The signing key is derived from the cluster CA key, so tokens survive restarts exactly when
// the CA does (with --data-dir, or restart()).
import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface JwtKey {
  /** key id in the header (kube puts a key fingerprint there) */
  kid: string;
  secret: Buffer;
}

export function deriveJwtKey(seed: string | Buffer): JwtKey {
  const secret = Buffer.from(hkdfSync('sha256', seed, 'modelplane', 'serviceaccount-token-signing', 32));
  const kid = createHash('sha256').update(secret).digest('base64url').slice(0, 43);
  return { kid, secret };
}

export function signJwt(key: JwtKey, claims: Record<string, unknown>): string {
  const header = b64(JSON.stringify({ alg: 'HS256', kid: key.kid }));
  const payload = b64(JSON.stringify(claims));
  const sig = createHmac('sha256', key.secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${sig}`;
}

export class JwtError extends Error {}

/** True when the token has the shape of a JWS compact serialization (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** The payload of a token signed with `key`; throws JwtError naming what is wrong. Times are not checked here. */
export function verifyJwt(key: JwtKey, token: string): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new JwtError('malformed token: expected three dot-separated parts');
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; kid?: unknown };
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
  } catch {
    throw new JwtError('malformed token header');
  }
  if (header.alg !== 'HS256') throw new JwtError(`unexpected signing algorithm ${JSON.stringify(header.alg)}`);
  if (header.kid !== undefined && header.kid !== key.kid) throw new JwtError('token signed by an unknown key');
  const expected = createHmac('sha256', key.secret).update(`${h}.${p}`).digest();
  const got = Buffer.from(s, 'base64url');
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new JwtError('invalid signature');
  try {
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('not an object');
    return claims as Record<string, unknown>;
  } catch {
    throw new JwtError('malformed token payload');
  }
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64url');
}
