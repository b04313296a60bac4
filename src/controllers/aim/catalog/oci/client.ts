// The image registry over HTTP (docs/aim.md, "Registries"): the OCI Distribution API for an image's labels
// (manifest, or index → the linux/amd64 manifest, → config blob → config.Labels), a registry's catalog and
// a repository's tags (both paginated by Link headers), with credentials from image pull secrets. Docker
// Hub has no catalog: its repositories are listed through Hub's own API, one namespace at a time. A mirror
// maps a registry host to another base URL (`modelplane dev` points docker.io at its simulated registry).
import { createHash } from 'node:crypto';
import { isForbidden, isNotFound, type KubeClient, Secrets } from '@modelplane/runtime/client';
import { type ImageRegistry, type RegistryAuth, RegistryError } from '@modelplane/runtime/registry';
import { parseImageReference } from '../../shared/image-reference.ts';
import {
  credentialHost,
  credentialsFor,
  nextPageUrl,
  type PullSecret,
  type RegistryCredentials,
} from './credentials.ts';
import { RegistryHttp } from './http.ts';

/** reads a Secret (`modelplane run`: the operator's client); undefined when it does not exist */
export type SecretSource = (namespace: string, name: string) => Promise<PullSecret | undefined>;

/**
 * Secrets read one by one with the operator's client (RBAC: get secrets; never listed: the watch of
 * shared/secret-references.ts follows each named one by name, metadata only)
 */
export function kubeSecretSource(client: Pick<KubeClient, 'getOrUndefined'>): SecretSource {
  return (namespace, name) => client.getOrUndefined(Secrets, name, namespace);
}

/** `docker.io=http://127.0.0.1:5000` (the --registry-mirror flag) → [host, base URL]; throws naming the problem */
export function parseRegistryMirror(text: string): [string, string] {
  const eq = text.indexOf('=');
  const host = text.slice(0, eq).trim();
  const url = text.slice(eq + 1).trim();
  if (eq <= 0 || !/^https?:\/\/[^/\s]+\/?$/.test(url))
    throw new Error(
      `--registry-mirror ${JSON.stringify(text)}: expected HOST=URL, e.g. docker.io=https://mirror.example.com or localhost:5000=http://localhost:5000`,
    );
  return [host, url];
}

export interface OciRegistryOptions {
  /** registry host → base URL used instead of https://<host> (e.g. docker.io → http://127.0.0.1:5000) */
  mirrors?: Readonly<Record<string, string>>;
  secrets?: SecretSource;
  /** per HTTP request (default 15 s) */
  timeoutMs?: number;
  /** pages followed per listing (default 100, 1000 entries each) */
  maxPages?: number;
}

const DOCKER_HUB_API = 'https://registry-1.docker.io';
const DOCKER_HUB_REPOSITORIES = 'https://hub.docker.com/v2/repositories';
const PAGE_SIZE = 1000;
const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

interface Manifest {
  mediaType?: string;
  config?: { digest?: string };
  manifests?: Array<{
    digest?: string;
    platform?: { os?: string; architecture?: string };
    annotations?: Record<string, string>;
  }>;
}

function json<T>(body: string, what: string): T {
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new RegistryError('Invalid', `${what}: the answer is not JSON`);
  }
}

export class OciRegistryClient implements ImageRegistry {
  private readonly http: RegistryHttp;
  private readonly mirrors: Map<string, string>;

  constructor(private readonly opts: OciRegistryOptions = {}) {
    this.http = new RegistryHttp(opts.timeoutMs ?? 15_000);
    this.mirrors = new Map(
      Object.entries(opts.mirrors ?? {}).map(([h, url]) => [credentialHost(h), url.replace(/\/+$/, '')]),
    );
  }

  async imageDigest(image: string, auth?: RegistryAuth): Promise<string> {
    const parsed = parseImageReference(image);
    if (!parsed.ok) throw new RegistryError('Invalid', `image ${JSON.stringify(image)}: ${parsed.message}`);
    if (parsed.reference.digest) return parsed.reference.digest;
    const host = credentialHost(parsed.reference.domain ?? 'docker.io');
    const repository = this.repositoryPath(host, parsed.reference.path);
    const credentials = await this.credentials(host, auth);
    const { res, body } = await this.http.get({
      host,
      url: `${this.base(host)}/v2/${repository}/manifests/${parsed.reference.tag ?? 'latest'}`,
      scope: `repository:${repository}:pull`,
      accept: MANIFEST_TYPES,
      ...(credentials ? { credentials } : {}),
    });
    // the registry names it; one that does not is answered by the content itself (the digest is its sha256)
    const named = res.headers.get('docker-content-digest');
    return named && /^sha256:[a-f0-9]{64}$/.test(named)
      ? named
      : `sha256:${createHash('sha256').update(body).digest('hex')}`;
  }

  async imageLabels(image: string, auth?: RegistryAuth): Promise<Record<string, string>> {
    const parsed = parseImageReference(image);
    if (!parsed.ok) throw new RegistryError('Invalid', `image ${JSON.stringify(image)}: ${parsed.message}`);
    const host = credentialHost(parsed.reference.domain ?? 'docker.io');
    const repository = this.repositoryPath(host, parsed.reference.path);
    const credentials = await this.credentials(host, auth);
    const ref = parsed.reference.digest ?? parsed.reference.tag ?? 'latest';
    const req = (path: string, accept?: string) =>
      this.http.get({
        host,
        url: `${this.base(host)}/v2/${repository}/${path}`,
        scope: `repository:${repository}:pull`,
        ...(accept ? { accept } : {}),
        ...(credentials ? { credentials } : {}),
      });
    let manifest = json<Manifest>((await req(`manifests/${ref}`, MANIFEST_TYPES)).body, `manifest of ${image}`);
    if (manifest.manifests) {
      const chosen = pickPlatform(manifest.manifests);
      if (!chosen?.digest) throw new RegistryError('NotFound', `image ${image}: its index lists no image manifest`);
      manifest = json<Manifest>((await req(`manifests/${chosen.digest}`, MANIFEST_TYPES)).body, `manifest of ${image}`);
    }
    const digest = manifest.config?.digest;
    if (!digest)
      throw new RegistryError(
        'Invalid',
        `image ${image}: the manifest names no config blob (unsupported manifest format)`,
      );
    const config = json<{ config?: { Labels?: Record<string, string> | null } }>(
      (await req(`blobs/${digest}`)).body,
      `config of ${image}`,
    );
    return { ...(config.config?.Labels ?? {}) };
  }

  async listRepositories(registry: string, auth?: RegistryAuth, prefix = ''): Promise<string[]> {
    const host = credentialHost(registry);
    if (host === 'docker.io' && !this.mirrors.has(host)) return this.listHubRepositories(prefix);
    const credentials = await this.credentials(host, auth);
    const all = await this.paginate(
      host,
      `${this.base(host)}/v2/_catalog?n=${PAGE_SIZE}`,
      'registry:catalog:*',
      credentials,
      (b: { repositories?: string[] }) => b.repositories,
    );
    return all.filter((r) => r.startsWith(prefix));
  }

  async listTags(registry: string, repository: string, auth?: RegistryAuth): Promise<string[]> {
    const host = credentialHost(registry);
    const repo = this.repositoryPath(host, repository);
    const credentials = await this.credentials(host, auth);
    return this.paginate(
      host,
      `${this.base(host)}/v2/${repo}/tags/list?n=${PAGE_SIZE}`,
      `repository:${repo}:pull`,
      credentials,
      (b: { tags?: string[] | null }) => b.tags ?? [],
    );
  }

  private base(host: string): string {
    return this.mirrors.get(host) ?? (host === 'docker.io' ? DOCKER_HUB_API : `https://${host}`);
  }

  /** Docker Hub's official images live under library/ */
  private repositoryPath(host: string, path: string): string {
    return host === 'docker.io' && !path.includes('/') ? `library/${path}` : path;
  }

  private async paginate<B>(
    host: string,
    first: string,
    scope: string,
    credentials: RegistryCredentials | undefined,
    items: (body: B) => string[] | undefined,
  ): Promise<string[]> {
    const out: string[] = [];
    let url: string | undefined = first;
    for (let page = 0; url && page < (this.opts.maxPages ?? 100); page++) {
      const { res, body } = await this.http.get({ host, url, scope, ...(credentials ? { credentials } : {}) });
      out.push(...(items(json<B>(body, `GET ${url}`)) ?? []));
      url = nextPageUrl(res.headers.get('link'), url);
    }
    return out;
  }

  /** Hub's repository API, for the namespace a pattern starts with (`amdenterpriseai/aim-*` → amdenterpriseai) */
  private async listHubRepositories(prefix: string): Promise<string[]> {
    const slash = prefix.indexOf('/');
    if (slash <= 0)
      throw new RegistryError(
        'Invalid',
        `docker.io has no catalog: a pattern must start with a namespace (e.g. "amdenterpriseai/aim-*"), not ${JSON.stringify(`${prefix}*`)}`,
      );
    const namespace = prefix.slice(0, slash);
    const out: string[] = [];
    let url: string | undefined = `${DOCKER_HUB_REPOSITORIES}/${encodeURIComponent(namespace)}/?page_size=100`;
    for (let page = 0; url && page < (this.opts.maxPages ?? 100); page++) {
      const { body } = await this.http.get({ host: 'hub.docker.com', url, scope: '' });
      const parsed: { next?: string | null; results?: Array<{ name?: string }> } = json(body, `GET ${url}`);
      for (const r of parsed.results ?? []) if (r.name) out.push(`${namespace}/${r.name}`);
      url = parsed.next ?? undefined;
    }
    return out.filter((r) => r.startsWith(prefix));
  }

  /** the first pull secret with credentials for `host`; none: anonymous */
  private async credentials(host: string, auth: RegistryAuth | undefined): Promise<RegistryCredentials | undefined> {
    const names = auth?.pullSecrets ?? [];
    if (names.length === 0) return undefined;
    const namespace = auth?.namespace ?? '';
    if (!this.opts.secrets)
      throw new RegistryError(
        'Auth',
        `pull secrets ${names.join(', ')} cannot be read: this process has no access to Secrets`,
      );
    for (const name of names) {
      const from = `${namespace}/${name}`;
      let secret: PullSecret | undefined;
      try {
        secret = await this.opts.secrets(namespace, name);
      } catch (err) {
        if (isForbidden(err))
          throw new RegistryError('Auth', `pull secret ${from}: the operator may not read it (RBAC: get secrets)`);
        if (!isNotFound(err)) throw new RegistryError('Unavailable', `pull secret ${from}: ${(err as Error).message}`);
      }
      if (!secret)
        throw new RegistryError(
          'Auth',
          `pull secret ${from} not found: create it (kubectl create secret docker-registry ${name} -n ${namespace} …) or remove it from imagePullSecrets`,
        );
      const found = credentialsFor(secret, from, host);
      if (typeof found === 'string') throw new RegistryError('Auth', found);
      if (found) return found;
    }
    return undefined;
  }
}

/** linux/amd64 first, else the first image manifest (attestations skipped) */
function pickPlatform(manifests: NonNullable<Manifest['manifests']>) {
  const images = manifests.filter((m) => m.annotations?.['vnd.docker.reference.type'] !== 'attestation-manifest');
  return (
    images.find((m) => m.platform?.os === 'linux' && m.platform?.architecture === 'amd64') ??
    images.find((m) => m.platform?.os !== 'unknown') ??
    images[0]
  );
}
