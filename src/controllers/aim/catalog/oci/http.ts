// One registry request over the OCI Distribution API (docs/aim.md, "Registries"): a timeout, the 401
// challenge answered (a Bearer token fetched from the realm, with the pull secret's credentials when there
// are any, cached until it expires; or Basic), and every failure turned into a RegistryError whose kind
// says what to do (Auth: credentials; NotFound: the name; Unavailable: retry; Invalid: a bad answer).
import { createHash } from 'node:crypto';
import { RegistryError, type RegistryErrorKind } from '@modelplane/runtime/registry';
import { parseChallenge, type RegistryCredentials } from './credentials.ts';

export interface RegistryRequest {
  /** the registry host as users write it (for messages and token caching) */
  host: string;
  url: string;
  accept?: string;
  /** the token scope this request needs, e.g. `repository:org/repo:pull` */
  scope: string;
  credentials?: RegistryCredentials;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** the registry's own error text: `{"errors":[{"code":"NAME_UNKNOWN","message":"…"}]}`, else the body's start */
function registryMessage(body: string): string {
  try {
    const errors = (JSON.parse(body) as { errors?: Array<{ code?: string; message?: string }> }).errors;
    if (errors?.length) return errors.map((e) => [e.code, e.message].filter(Boolean).join(': ')).join('; ');
  } catch {
    // not JSON: fall through
  }
  return body.trim().slice(0, 200);
}

function kindForStatus(status: number): RegistryErrorKind {
  if (status === 401 || status === 403) return 'Auth';
  if (status === 404) return 'NotFound';
  if (status === 408 || status === 429 || status >= 500) return 'Unavailable';
  return 'Invalid';
}

function networkError(url: string, err: unknown, timeoutMs: number): RegistryError {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return new RegistryError('Unavailable', `GET ${url}: no answer within ${timeoutMs / 1000}s`);
  const cause = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
  const hint = e?.cause?.code === 'ENOTFOUND' ? ' (check the registry host name)' : '';
  return new RegistryError('Unavailable', `GET ${url}: registry unreachable: ${cause}${hint}`);
}

export class RegistryHttp {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** GET with the auth dance; returns the response (2xx) and its body as text; throws RegistryError */
  async get(req: RegistryRequest): Promise<{ res: Response; body: string }> {
    // a token belongs to exactly the credentials it was issued for (same user, other password: another token)
    const who = req.credentials
      ? createHash('sha256').update(`${req.credentials.username}:${req.credentials.password}`).digest('hex')
      : '';
    const tokenKey = `${req.host}|${req.scope}|${who}`;
    const cached = this.tokens.get(tokenKey);
    let authorization = cached && cached.expiresAt > this.now() ? `Bearer ${cached.token}` : undefined;
    let { res, body } = await this.send(req.url, req.accept, authorization);
    if (res.status === 401) {
      const challenge = parseChallenge(res.headers.get('www-authenticate'));
      if (challenge?.scheme === 'bearer' && challenge.params.realm) {
        authorization = `Bearer ${await this.token(req, challenge.params, tokenKey)}`;
        ({ res, body } = await this.send(req.url, req.accept, authorization));
      } else if (challenge?.scheme === 'basic' && req.credentials) {
        const basic = Buffer.from(`${req.credentials.username}:${req.credentials.password}`).toString('base64');
        ({ res, body } = await this.send(req.url, req.accept, `Basic ${basic}`));
      }
    }
    if (res.ok) return { res, body };
    const kind = kindForStatus(res.status);
    const as = req.credentials
      ? `with the credentials from Secret ${req.credentials.from}`
      : 'anonymously (no pull secret has credentials for this registry)';
    const detail = kind === 'Auth' ? `; pulled ${as}` : '';
    throw new RegistryError(kind, `GET ${req.url}: ${res.status} ${registryMessage(body) || res.statusText}${detail}`);
  }

  private async send(url: string, accept: string | undefined, authorization: string | undefined) {
    const headers: Record<string, string> = {};
    if (accept) headers.accept = accept;
    if (authorization) headers.authorization = authorization;
    let res: Response;
    let body: string;
    try {
      res = await fetch(url, { headers, redirect: 'follow', signal: AbortSignal.timeout(this.timeoutMs) });
      const length = Number(res.headers.get('content-length') ?? '0');
      if (length > MAX_BODY_BYTES)
        throw new RegistryError('Invalid', `GET ${url}: the answer is ${length} bytes, more than ${MAX_BODY_BYTES}`);
      body = await res.text();
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw networkError(url, err, this.timeoutMs);
    }
    return { res, body };
  }

  /** the token endpoint of a Bearer challenge, asked for this request's scope */
  private async token(req: RegistryRequest, params: Record<string, string>, cacheKey: string): Promise<string> {
    const realm = new URL(params.realm!);
    if (params.service) realm.searchParams.set('service', params.service);
    realm.searchParams.set('scope', params.scope || req.scope);
    const headers: Record<string, string> = {};
    if (req.credentials)
      headers.authorization = `Basic ${Buffer.from(`${req.credentials.username}:${req.credentials.password}`).toString('base64')}`;
    let res: Response;
    let body: string;
    try {
      res = await fetch(realm, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      body = await res.text();
    } catch (err) {
      throw networkError(realm.toString(), err, this.timeoutMs);
    }
    if (!res.ok) {
      const kind = kindForStatus(res.status);
      const whose = req.credentials
        ? `the credentials from Secret ${req.credentials.from} were refused`
        : 'anonymous access was refused';
      throw new RegistryError(
        kind,
        `token for ${req.host} (${req.scope}) from ${realm.origin}${realm.pathname}: ${res.status} ${registryMessage(body) || res.statusText}${kind === 'Auth' ? `: ${whose}` : ''}`,
      );
    }
    let parsed: { token?: string; access_token?: string; expires_in?: number };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      throw new RegistryError('Invalid', `token for ${req.host} from ${realm.origin}: the answer is not JSON`);
    }
    const token = parsed.token ?? parsed.access_token;
    if (!token)
      throw new RegistryError('Invalid', `token for ${req.host} from ${realm.origin}: the answer has no token`);
    const ttl = Math.max(10, Number(parsed.expires_in) || 60);
    this.tokens.set(cacheKey, { token, expiresAt: this.now() + (ttl - 5) * 1000 });
    return token;
  }
}
