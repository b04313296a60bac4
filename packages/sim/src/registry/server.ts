// The simulated registry over HTTP: the OCI Distribution API a real registry serves (the catalog and tag
// lists paginated by `n`/`last` with Link headers, manifests: an image index pointing at a linux/amd64
// image manifest whose config blob carries the image labels), behind the Bearer token flow (a 401 challenge
// naming the token endpoint; anonymous tokens see public repositories, tokens issued for the credentials
// below see the private ones too). `modelplane dev` points the operator's registry client at it, so dev and
// a real cluster share one client (docs/aim.md, "Registries").
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveGuarded } from '@modelplane/runtime/serve';
import { SIM_LLAMA_STACK_IMAGES, SIM_MODEL_IMAGES, type SimModelImage, simImageLabels } from './index.ts';

/** the account the simulated registry accepts (a pull secret with these reads the private images) */
export const SIM_REGISTRY_USERNAME = 'modelplane';
export const SIM_REGISTRY_PASSWORD = 'sim-registry';
const SERVICE = 'modelplane-sim-registry';
/** the registry serves reads only: a request carries no body worth more than this */
export const SIM_REGISTRY_MAX_BODY_BYTES = 64 * 1024;

const INDEX = 'application/vnd.oci.image.index.v1+json';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const CONFIG = 'application/vnd.oci.image.config.v1+json';

interface Blob {
  mediaType: string;
  body: string;
}

const digestOf = (body: string) => `sha256:${createHash('sha256').update(body).digest('hex')}`;

/** a repository the registry serves, with the labels of each tag's image */
export interface SimRegistryImage {
  repository: string;
  tags: Record<string, Record<string, string>>;
  private?: boolean;
}

/**
 * Every manifest and blob, by digest, and the index digest of each repository:tag. Content-addressed:
 * setting a tag to other labels gives it a new digest (the old blobs stay, as in a real registry).
 */
class Content {
  readonly blobs = new Map<string, Blob>();
  readonly tags = new Map<string, string>();
  readonly repositories = new Map<string, { private: boolean; tags: Set<string> }>();

  private put(mediaType: string, value: unknown) {
    const body = JSON.stringify(value);
    const digest = digestOf(body);
    this.blobs.set(digest, { mediaType, body });
    return { mediaType, digest, size: Buffer.byteLength(body) };
  }

  /** `repository:tag` now names an image with these labels; returns its digest */
  setImage(repository: string, tag: string, labels: Record<string, string>, isPrivate = false): string {
    const config = this.put(CONFIG, {
      architecture: 'amd64',
      os: 'linux',
      config: { Labels: labels },
      rootfs: { type: 'layers', diff_ids: [] },
    });
    const manifest = this.put(MANIFEST, { schemaVersion: 2, mediaType: MANIFEST, config, layers: [] });
    const index = this.put(INDEX, {
      schemaVersion: 2,
      mediaType: INDEX,
      manifests: [{ ...manifest, platform: { os: 'linux', architecture: 'amd64' } }],
    });
    const repo = this.repositories.get(repository) ?? { private: isPrivate, tags: new Set<string>() };
    repo.tags.add(tag);
    this.repositories.set(repository, repo);
    this.tags.set(`${repository}:${tag}`, index.digest);
    return index.digest;
  }
}

function buildContent(models: readonly SimModelImage[], images: readonly SimRegistryImage[]): Content {
  const content = new Content();
  for (const image of models)
    for (const tag of image.tags) content.setImage(image.repository, tag, simImageLabels(image, tag), image.private);
  for (const image of images)
    for (const [tag, labels] of Object.entries(image.tags))
      content.setImage(image.repository, tag, labels, image.private);
  return content;
}

export interface SimRegistryServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** requests served, by path (tests count them) */
  requests: string[];
  /** points `repository:tag` at an image with these labels (a new digest when they differ); returns the digest */
  setImage(repository: string, tag: string, labels: Record<string, string>): string;
  /** false: every request is answered 503, as a registry in an outage (true again to recover) */
  setAvailable(available: boolean): void;
  close(): Promise<void>;
}

/** one page of a sorted list: `n` entries after `last`, and the Link to the next page */
function page(list: readonly string[], url: URL, maxPageSize: number): { items: string[]; link?: string } {
  const n = Math.max(1, Math.min(maxPageSize, Number(url.searchParams.get('n')) || maxPageSize));
  const last = url.searchParams.get('last');
  const start = last ? list.findIndex((x) => x > last) : 0;
  const items = start < 0 ? [] : list.slice(start, start + n);
  const more = start >= 0 && start + n < list.length;
  return more
    ? { items, link: `<${url.pathname}?n=${n}&last=${encodeURIComponent(items[items.length - 1]!)}>; rel="next"` }
    : { items };
}

export interface SimRegistryServerOptions {
  /** the AIM model images (default: the dev catalogue) */
  images?: readonly SimModelImage[];
  /** other images, by repository (default: the Llama Stack distribution images, see llamaStackImages) */
  otherImages?: readonly SimRegistryImage[];
  /** the most entries one catalog or tags page holds, whatever `n` asks (default 1000; tests page with less) */
  maxPageSize?: number;
}

/** what the registry serves and remembers: its content, the tokens it issued and its own origin */
interface RegistryState {
  content: Content;
  maxPageSize: number;
  /** false: every request is answered 503 (an outage) */
  available: boolean;
  /** issued tokens: whether they were issued for the registry account */
  tokens: Map<string, { authenticated: boolean }>;
  /** the server's own origin: the token realm never echoes a request's Host header */
  origin: string;
}

type Headers = Record<string, string>;
type Session = { authenticated: boolean } | undefined;

/** the server's answers: a JSON (or given) body, or a Distribution API error */
function replies(res: http.ServerResponse) {
  const send = (status: number, body: unknown, headers: Headers = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      ...headers,
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  };
  const error = (status: number, code: string, message: string, headers: Headers = {}) =>
    send(status, { errors: [{ code, message }] }, headers);
  return { send, error };
}
type Replies = ReturnType<typeof replies>;

export async function startSimRegistryServer(opts: SimRegistryServerOptions = {}): Promise<SimRegistryServer> {
  const state: RegistryState = {
    content: buildContent(opts.images ?? SIM_MODEL_IMAGES, opts.otherImages ?? SIM_LLAMA_STACK_IMAGES),
    maxPageSize: opts.maxPageSize ?? 1000,
    available: true,
    tokens: new Map(),
    origin: '',
  };
  const requests: string[] = [];
  const sendError = (res: http.ServerResponse, status: number, message: string) =>
    replies(res).error(status, status === 413 ? 'SIZE_INVALID' : 'UNSUPPORTED', message);
  const server = serveGuarded(
    http.createServer(),
    { name: 'the simulated registry', maxBodyBytes: SIM_REGISTRY_MAX_BODY_BYTES, sendError },
    (req, res, { url }) => {
      requests.push(url.pathname);
      if (!state.available) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        return res.end('{"errors":[{"code":"UNAVAILABLE","message":"the registry is down"}]}');
      }
      const reply = replies(res);
      if (url.pathname === '/token') return issueToken(state, req, reply);
      if (!url.pathname.startsWith('/v2/')) return reply.error(404, 'NOT_FOUND', 'not found');
      const session = state.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const path = url.pathname.slice('/v2/'.length);
      if (path === '_catalog') return serveCatalog(state, session, url, reply);
      return serveRepository(state, session, path, url, reply);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.origin = `http://127.0.0.1:${port}`;
  return {
    url: state.origin,
    requests,
    setImage: (repository, tag, labels) => state.content.setImage(repository, tag, labels),
    setAvailable: (value) => {
      state.available = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** the 401 challenge naming the token endpoint and the scope to ask for */
function challenge(state: RegistryState, scope: string): Headers {
  return { 'www-authenticate': `Bearer realm="${state.origin}/token",service="${SERVICE}",scope="${scope}"` };
}

/** /token: an anonymous token, or with Basic credentials of the registry account one that sees private images */
function issueToken(state: RegistryState, req: http.IncomingMessage, reply: Replies) {
  const authorization = req.headers.authorization ?? '';
  let authenticated = false;
  if (authorization.startsWith('Basic ')) {
    const [user, ...pass] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':');
    if (user !== SIM_REGISTRY_USERNAME || pass.join(':') !== SIM_REGISTRY_PASSWORD)
      return reply.error(401, 'UNAUTHORIZED', 'incorrect username or password');
    authenticated = true;
  }
  const token = randomUUID();
  state.tokens.set(token, { authenticated });
  reply.send(200, { token, access_token: token, expires_in: 300 });
}

/** /v2/_catalog: the repositories the token may see, one page at a time */
function serveCatalog(state: RegistryState, session: Session, url: URL, reply: Replies) {
  if (!session)
    return reply.error(401, 'UNAUTHORIZED', 'authentication required', challenge(state, 'registry:catalog:*'));
  const visible = [...state.content.repositories]
    .filter(([, r]) => session.authenticated || !r.private)
    .map(([name]) => name)
    .sort();
  const { items, link } = page(visible, url, state.maxPageSize);
  reply.send(200, { repositories: items }, link ? { link } : {});
}

/** /v2/<repository>/tags/list, /manifests/<tag or digest> and /blobs/<digest>; private ones need the account */
function serveRepository(state: RegistryState, session: Session, path: string, url: URL, reply: Replies) {
  const m = /^(.+)\/(tags\/list|manifests\/[^/]+|blobs\/[^/]+)$/.exec(path);
  if (!m) return reply.error(404, 'NOT_FOUND', 'not found');
  const [repository, what] = [m[1]!, m[2]!];
  const repo = state.content.repositories.get(repository);
  if (!session || (!session.authenticated && repo?.private)) {
    const scope = `repository:${repository}:pull`;
    return reply.error(401, 'UNAUTHORIZED', 'authentication required', challenge(state, scope));
  }
  if (!repo) return reply.error(404, 'NAME_UNKNOWN', `repository name not known to registry: ${repository}`);
  if (what === 'tags/list') {
    const { items, link } = page([...repo.tags].sort(), url, state.maxPageSize);
    return reply.send(200, { name: repository, tags: items }, link ? { link } : {});
  }
  const ref = what.slice(what.indexOf('/') + 1);
  const digest = ref.startsWith('sha256:') ? ref : state.content.tags.get(`${repository}:${ref}`);
  const blob = digest ? state.content.blobs.get(digest) : undefined;
  if (!blob) {
    const code = what.startsWith('blobs') ? 'BLOB_UNKNOWN' : 'MANIFEST_UNKNOWN';
    return reply.error(404, code, `${ref} not found in ${repository}`);
  }
  reply.send(200, blob.body, { 'content-type': blob.mediaType, 'docker-content-digest': digest! });
}
