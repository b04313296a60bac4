// Registry credentials from image pull secrets (docs/aim.md, "Registries"), pure: a Secret of type
// kubernetes.io/dockerconfigjson (`.dockerconfigjson`: {"auths": {host: {...}}}) or the older
// kubernetes.io/dockercfg (`.dockercfg`: {host: {...}}), each entry with `auth` (base64 "user:password") or
// `username` and `password`. Hosts are compared without scheme and path, and Docker Hub's spellings
// (docker.io, index.docker.io, registry-1.docker.io, https://index.docker.io/v1/) are one host.

export interface RegistryCredentials {
  username: string;
  password: string;
  /** where they came from, for messages: `namespace/secret` */
  from: string;
}

/** what the client needs of a Secret (a core/v1 Secret satisfies it) */
export interface PullSecret {
  type?: string;
  data?: Record<string, string>;
}

const DOCKER_HUB_HOSTS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** `https://index.docker.io/v1/` → `docker.io`; `ghcr.io/` → `ghcr.io`; lowercased */
export function credentialHost(key: string): string {
  const host = key
    .trim()
    .replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//, '')
    .replace(/\/.*$/, '')
    .toLowerCase();
  return DOCKER_HUB_HOSTS.has(host) ? 'docker.io' : host;
}

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
}

function entryCredentials(entry: AuthEntry, from: string): RegistryCredentials | string {
  if (entry.username !== undefined && entry.password !== undefined)
    return { username: entry.username, password: entry.password, from };
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return `Secret ${from}: an "auth" value is not base64 of "username:password"`;
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), from };
  }
  return `Secret ${from}: an entry has neither "auth" nor "username" and "password"`;
}

/**
 * The credentials a pull secret holds for `host`: undefined when it has none for that host, a string
 * naming the problem when the secret cannot be read as a docker config.
 */
export function credentialsFor(
  secret: PullSecret,
  from: string,
  host: string,
): RegistryCredentials | string | undefined {
  const raw = secret.data?.['.dockerconfigjson'] ?? secret.data?.['.dockercfg'];
  if (raw === undefined)
    return `Secret ${from} has neither .dockerconfigjson nor .dockercfg (create it with kubectl create secret docker-registry)`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64').toString('utf8'));
  } catch (err) {
    return `Secret ${from}: the docker config is not valid JSON (${(err as Error).message})`;
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed)) return `Secret ${from}: the docker config is not a JSON object`;
  const auths = secret.data?.['.dockerconfigjson'] !== undefined ? parsed.auths : parsed;
  if (!isObject(auths)) return `Secret ${from}: the docker config has no "auths" object`;
  const want = credentialHost(host);
  for (const [key, entry] of Object.entries(auths))
    if (credentialHost(key) === want && isObject(entry)) return entryCredentials(entry as AuthEntry, from);
  return undefined;
}

/** one `WWW-Authenticate` challenge: the scheme and its parameters (realm, service, scope) */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/** `Bearer realm="https://auth/token",service="registry",scope="repository:a/b:pull"` → the challenge */
export function parseChallenge(header: string | null): AuthChallenge | undefined {
  if (!header) return undefined;
  const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (let p = re.exec(m[2]!); p; p = re.exec(m[2]!))
    params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  return { scheme: m[1]!.toLowerCase(), params };
}

/** `<https://r/v2/_catalog?last=b&n=2>; rel="next"` → the next page's URL (relative ones resolved on `base`) */
export function nextPageUrl(link: string | null, base: string): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (m && /rel\s*=\s*"?next"?/i.test(m[2]!)) return new URL(m[1]!, base).toString();
  }
  return undefined;
}
