// A tiny in-process API server over node:http for unit tests of the runtime: discovery for ConfigMaps and
// one custom kind, list (with pagination), watch (with bookmarks), get/create/put/patch/delete, and the
// faults the list-watch must survive: stalled streams, abrupt closes, 410 expiry and 5xx bursts.
// It is deliberately simple (apply = merge of the body); the real server is tested in the integration tests.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, any>; [k: string]: any };

interface Resource {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export const STUB_RESOURCES: Resource[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  { apiVersion: 'test.modelplane.io/v1', kind: 'Widget', plural: 'widgets', namespaced: true },
  { apiVersion: 'test.modelplane.io/v1', kind: 'Cluster', plural: 'clusters', namespaced: false },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true },
  { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events', namespaced: true },
];

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: any;
}

interface Watcher {
  res: http.ServerResponse;
  plural: string;
  namespace?: string;
  stalled: boolean;
  partial: boolean;
}

export class StubApiServer {
  readonly requests: RecordedRequest[] = [];
  private server: http.Server;
  private rv = 100;
  /** events older than this resourceVersion are gone (watching from before it → 410) */
  private compactedBelow = 0;
  private readonly objects = new Map<string, Obj>();
  private readonly history: Array<{ rv: number; plural: string; type: string; obj: Obj }> = [];
  private readonly watchers = new Set<Watcher>();
  private failures: Array<{ status: number; match: (r: RecordedRequest) => boolean; retryAfter?: number }> = [];
  stallNewWatches = false;
  /** delay before answering non-watch requests */
  latencyMs = 0;
  private held: Array<() => void> = [];
  private holding = false;
  /** hold list responses (not watches) without answering; setting it back to false answers the held ones */
  get holdLists(): boolean {
    return this.holding;
  }
  set holdLists(on: boolean) {
    this.holding = on;
    if (!on) for (const release of this.held.splice(0)) release();
  }
  /** answer PartialObjectMetadata requests with whole objects (servers may) */
  ignorePartialAccept = false;
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  kubeconfig(token = 'stub-token'): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: stub, cluster: {server: "' + this.url + '"}}]',
      'users: [{name: stub, user: {token: ' + token + '}}]',
      'contexts: [{name: stub, context: {cluster: stub, user: stub}}]',
      'current-context: stub',
    ].join('\n');
  }

  async close(): Promise<void> {
    for (const w of this.watchers) w.res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- state manipulation (as if another client wrote) ----

  put(obj: Obj): Obj {
    const res = this.resourceFor(obj.apiVersion, obj.kind);
    const key = this.key(res.plural, obj.metadata.namespace, obj.metadata.name);
    const existing = this.objects.get(key);
    const stored: Obj = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.uid = existing?.metadata.uid ?? `uid-${obj.metadata.name}-${this.rv}`;
    stored.metadata.generation = existing
      ? (existing.metadata.generation ?? 1) + (JSON.stringify(existing.spec) !== JSON.stringify(obj.spec) ? 1 : 0)
      : 1;
    this.objects.set(key, stored);
    this.emit(res.plural, existing ? 'MODIFIED' : 'ADDED', stored);
    return stored;
  }

  remove(apiVersion: string, kind: string, name: string, namespace?: string): void {
    const res = this.resourceFor(apiVersion, kind);
    const key = this.key(res.plural, namespace, name);
    const existing = this.objects.get(key);
    if (!existing) return;
    this.objects.delete(key);
    const gone = structuredClone(existing);
    gone.metadata.resourceVersion = String(++this.rv);
    this.emit(res.plural, 'DELETED', gone);
  }

  getObject(apiVersion: string, kind: string, name: string, namespace?: string): Obj | undefined {
    return this.objects.get(this.key(this.resourceFor(apiVersion, kind).plural, namespace, name));
  }

  list(plural: string): Obj[] {
    return [...this.objects.entries()].filter(([k]) => k.startsWith(`${plural}|`)).map(([, o]) => o);
  }

  // ---- faults ----

  /** the next `count` requests matching `match` fail with `status` */
  failNext(
    count: number,
    status: number,
    match: (r: RecordedRequest) => boolean = () => true,
    retryAfter?: number,
  ): void {
    for (let i = 0; i < count; i++)
      this.failures.push({ status, match, ...(retryAfter !== undefined ? { retryAfter } : {}) });
  }

  /** destroys every open watch connection without a proper end (abrupt close) */
  closeWatchesAbruptly(): void {
    for (const w of this.watchers) w.res.socket?.destroy();
    this.watchers.clear();
  }

  /** ends every open watch gracefully (what the API server does at timeoutSeconds) */
  endWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }

  /** open watches stop receiving events (connection stays open) */
  stallWatches(): void {
    for (const w of this.watchers) w.stalled = true;
  }

  /** forgets history: resuming from any earlier resourceVersion gets 410 */
  compact(): void {
    this.compactedBelow = this.rv;
    this.history.length = 0;
  }

  /** sends a 410 ERROR event on every open watch (what kube does when history is compacted under a watcher) */
  expireOpenWatches(): void {
    for (const w of this.watchers) {
      w.res.write(
        JSON.stringify({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Expired',
            code: 410,
            message: 'too old resource version',
          },
        }) + '\n',
      );
      w.res.end();
    }
    this.watchers.clear();
    this.compact();
  }

  sendBookmark(): void {
    for (const w of this.watchers)
      if (!w.stalled)
        w.res.write(
          JSON.stringify({
            type: 'BOOKMARK',
            object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) } },
          }) + '\n',
        );
  }

  openWatches(plural?: string): number {
    return [...this.watchers].filter((w) => !plural || w.plural === plural).length;
  }

  countRequests(pred: (r: RecordedRequest) => boolean): number {
    return this.requests.filter(pred).length;
  }

  // ---- HTTP ----

  private key(plural: string, namespace: string | undefined, name: string): string {
    return `${plural}|${namespace ?? ''}|${name}`;
  }

  private resourceFor(apiVersion: string, kind: string): Resource {
    const r = STUB_RESOURCES.find((x) => x.apiVersion === apiVersion && x.kind === kind);
    if (!r) throw new Error(`stub: unknown kind ${apiVersion}/${kind}`);
    return r;
  }

  private emit(plural: string, type: string, obj: Obj): void {
    this.history.push({ rv: Number(obj.metadata.resourceVersion), plural, type, obj });
    for (const w of this.watchers) {
      if (w.plural !== plural || w.stalled) continue;
      if (w.namespace && obj.metadata.namespace !== w.namespace) continue;
      w.res.write(JSON.stringify({ type, object: w.partial ? partial(obj) : obj }) + '\n');
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : undefined;
    const rec: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    this.requests.push(rec);
    const failure = this.failures.findIndex((f) => f.match(rec));
    if (failure >= 0) {
      const f = this.failures.splice(failure, 1)[0]!;
      return this.status(
        res,
        f.status,
        f.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable',
        `injected ${f.status}`,
        f.retryAfter,
      );
    }
    const isWatch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    if (!isWatch && this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
    const disc = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(url.pathname);
    if (disc) {
      const apiVersion = disc[1] ?? `${disc[2]}/${disc[3]}`;
      const resources = STUB_RESOURCES.filter((r) => r.apiVersion === apiVersion).flatMap((r) => [
        {
          name: r.plural,
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { name: `${r.plural}/status`, namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] },
      ]);
      if (resources.length === 0)
        return this.status(res, 404, 'NotFound', 'the server could not find the requested resource');
      return this.json(res, 200, { kind: 'APIResourceList', groupVersion: apiVersion, resources });
    }
    const m = /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)(?:\/([^/]+))?(?:\/(status))?$/.exec(
      url.pathname,
    );
    if (!m) return this.status(res, 404, 'NotFound', `no route ${url.pathname}`);
    const [, namespace, plural, name, sub] = m;
    const resource = STUB_RESOURCES.find((r) => r.plural === plural);
    if (!resource) return this.status(res, 404, 'NotFound', `no resource ${plural}`);
    const partialWanted =
      !this.ignorePartialAccept && String(req.headers.accept ?? '').includes('as=PartialObjectMetadata');
    if (req.method === 'GET' && !name) {
      if (isWatch) return this.watch(res, url, plural!, namespace, partialWanted);
      if (this.holding) {
        this.held.push(() => this.listResponse(res, url, plural!, namespace, partialWanted));
        return;
      }
      return this.listResponse(res, url, plural!, namespace, partialWanted);
    }
    if (req.method === 'POST' && !name) {
      const k = this.key(plural!, namespace, body.metadata.name);
      if (this.objects.has(k))
        return this.status(res, 409, 'AlreadyExists', `${plural} "${body.metadata.name}" already exists`);
      if (url.searchParams.get('dryRun') === 'All') return this.json(res, 201, body);
      return this.json(res, 201, this.put({ ...body, metadata: { ...body.metadata, namespace } }));
    }
    const key = this.key(plural!, namespace, name!);
    const existing = this.objects.get(key);
    if (req.method === 'GET')
      return existing
        ? this.json(res, 200, existing)
        : this.status(res, 404, 'NotFound', `${plural} "${name}" not found`);
    if (req.method === 'DELETE') {
      if (!existing) return this.status(res, 404, 'NotFound', `${plural} "${name}" not found`);
      this.remove(resource.apiVersion, resource.kind, name!, namespace);
      return this.json(res, 200, { kind: 'Status', status: 'Success' });
    }
    if (req.method === 'PUT') {
      if (!existing) return this.status(res, 404, 'NotFound', `${plural} "${name}" not found`);
      if (body.metadata.resourceVersion && body.metadata.resourceVersion !== existing.metadata.resourceVersion) {
        return this.status(
          res,
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${plural} "${name}": the object has been modified`,
        );
      }
      const next = sub ? { ...existing, status: body.status } : { ...body, status: existing.status };
      return this.json(res, 200, this.put(next));
    }
    if (req.method === 'PATCH') {
      const base = existing ?? { apiVersion: resource.apiVersion, kind: resource.kind, metadata: { name, namespace } };
      if (!existing && req.headers['content-type'] !== 'application/apply-patch+yaml')
        return this.status(res, 404, 'NotFound', `${plural} "${name}" not found`);
      const merged = sub ? { ...base, status: merge(base.status, body.status) } : merge(base, body);
      if (url.searchParams.get('dryRun') === 'All') return this.json(res, 200, merged);
      return this.json(res, existing ? 200 : 201, this.put(merged));
    }
    return this.status(res, 405, 'MethodNotAllowed', `${req.method} not allowed`);
  }

  private listResponse(
    res: http.ServerResponse,
    url: URL,
    plural: string,
    namespace: string | undefined,
    partialWanted: boolean,
  ): void {
    let items = this.list(plural).filter((o) => !namespace || o.metadata.namespace === namespace);
    const selector = url.searchParams.get('labelSelector');
    if (selector) {
      const [k, v] = selector.split('=');
      items = items.filter((o) => o.metadata.labels?.[k!] === v);
    }
    items.sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
    const limit = Number(url.searchParams.get('limit') ?? 0);
    const start = Number(url.searchParams.get('continue') ?? 0);
    const page = limit > 0 ? items.slice(start, start + limit) : items;
    const cont = limit > 0 && start + limit < items.length ? String(start + limit) : undefined;
    // built-in list items come without apiVersion/kind, as from kube-apiserver
    const shaped = page.map((o) =>
      partialWanted ? partial(o) : o.apiVersion === 'v1' ? { ...o, apiVersion: undefined, kind: undefined } : o,
    );
    this.json(res, 200, {
      kind: partialWanted ? 'PartialObjectMetadataList' : 'List',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(this.rv), ...(cont ? { continue: cont } : {}) },
      items: shaped,
    });
  }

  private watch(
    res: http.ServerResponse,
    url: URL,
    plural: string,
    namespace: string | undefined,
    partialWanted: boolean,
  ): void {
    const from = Number(url.searchParams.get('resourceVersion') ?? 0);
    if (from && from < this.compactedBelow) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.write(
        JSON.stringify({
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: 'Expired',
            code: 410,
            message: `too old resource version: ${from}`,
          },
        }) + '\n',
      );
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const w: Watcher = {
      res,
      plural,
      ...(namespace ? { namespace } : {}),
      stalled: this.stallNewWatches,
      partial: partialWanted,
    };
    for (const h of this.history) {
      if (h.rv <= from || h.plural !== plural || (namespace && h.obj.metadata.namespace !== namespace)) continue;
      if (!w.stalled)
        res.write(JSON.stringify({ type: h.type, object: partialWanted ? partial(h.obj) : h.obj }) + '\n');
    }
    this.watchers.add(w);
    res.on('close', () => this.watchers.delete(w));
  }

  private json(res: http.ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private status(res: http.ServerResponse, code: number, reason: string, message: string, retryAfter?: number): void {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
    res.writeHead(code, headers);
    res.end(
      JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason, message, code }),
    );
  }
}

function partial(o: Obj): Obj {
  return { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: o.metadata };
}

function merge(base: any, patch: any): any {
  if (patch === undefined) return base;
  if (
    typeof patch !== 'object' ||
    patch === null ||
    Array.isArray(patch) ||
    typeof base !== 'object' ||
    base === null ||
    Array.isArray(base)
  )
    return structuredClone(patch);
  const out: any = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = v === null ? undefined : merge(base[k], v);
  return out;
}

/** polls `cond` every 10 ms until it is true or `timeoutMs` passed (then throws with `what`) */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
