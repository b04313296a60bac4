// A thin HTTP layer over client-node's KubeConfig: client-node supplies TLS material and credentials
// (tokens, client certs, exec/OIDC plugins); requests go through node's own http/https with a keep-alive
// agent, because we need streaming watches, exact status codes, real timeouts and caller aborts, which
// client-node 1.4.0's fetch wrapper loses (see docs/runtime.md).

import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { type RuntimeMetrics, sharedMetrics } from '../metrics.ts';
import { ApiError } from './errors.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | undefined;

export interface HttpRequest {
  method: HttpMethod;
  /** absolute API path, e.g. /api/v1/namespaces/default/configmaps */
  path: string;
  query?: Record<string, QueryValue>;
  /** objects are sent as JSON */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** time allowed until the whole response (or, for streams, the response headers) arrived */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** parsed JSON when the server sent JSON, else the raw text */
  body: unknown;
}

export interface TransportOptions {
  metrics?: RuntimeMetrics;
  /** default timeout of non-streaming requests (client-go has none; controller-runtime users set 30 s) */
  timeoutMs?: number;
  userAgent?: string;
  /** how long credentials from the kubeconfig (which may run an exec plugin) are reused */
  authCacheMs?: number;
  /** act as this user (Kubernetes user impersonation): the API server authorizes every request as them */
  impersonate?: Impersonation;
}

/** who a client acts as: the user a TokenReview named, with their groups, uid and extra attributes */
export interface Impersonation {
  user: string;
  groups?: readonly string[];
  uid?: string;
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** the Impersonate-* headers of kube-apiserver's impersonation (extra keys percent-encoded as it expects) */
export function impersonationHeaders(who: Impersonation): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'Impersonate-User': who.user };
  if (who.groups?.length) headers['Impersonate-Group'] = [...who.groups];
  if (who.uid) headers['Impersonate-Uid'] = who.uid;
  for (const [key, values] of Object.entries(who.extra ?? {}))
    if (values.length) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = [...values];
  return headers;
}

export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function abortError(): Error {
  return Object.assign(new Error('request aborted by the caller'), { code: 'ABORT_ERR', name: 'AbortError' });
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no response within ${ms} ms`), { code: 'ETIMEDOUT' });
}

export class Transport {
  readonly server: URL;
  readonly host: string;
  private readonly agent: http.Agent;
  private readonly metrics: RuntimeMetrics;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly authCacheMs: number;
  private readonly impersonation: Record<string, string | string[]>;
  private authHeaders: Record<string, string> | undefined;
  private authFetchedAt = 0;
  /** where requests go, taken apart once (a URL parsed per request was a measurable share of each one) */
  private readonly target: { protocol: string; hostname: string; port: string; basePath: string };

  private constructor(
    private readonly kc: KubeConfig,
    server: URL,
    agent: http.Agent,
    opts: TransportOptions,
  ) {
    this.server = server;
    this.host = server.host;
    this.agent = agent;
    this.metrics = opts.metrics ?? sharedMetrics();
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.userAgent = opts.userAgent ?? 'modelplane/0.1.0';
    this.authCacheMs = opts.authCacheMs ?? 10_000;
    this.impersonation = opts.impersonate ? impersonationHeaders(opts.impersonate) : {};
    // an IPv6 literal is bracketed in URLs, bare in request options
    this.target = {
      protocol: server.protocol,
      hostname: server.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: server.port,
      basePath: server.pathname.replace(/\/$/, ''),
    };
  }

  static async fromKubeConfig(kc: KubeConfig, opts: TransportOptions = {}): Promise<Transport> {
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`kubeconfig: current context "${kc.getCurrentContext()}" names no cluster`);
    const server = new URL(cluster.server);
    // client-node refuses to build options for plain-http servers (kubectl proxy, test stubs) unless TLS
    // verification is off; TLS settings mean nothing there, so hand it a view that says so
    if (server.protocol === 'http:') kc = withoutTlsVerification(kc);
    const tls: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(tls);
    // no socket limit: every informer holds one socket for its watch, and requests must never queue behind them
    const agentOpts: https.AgentOptions = { keepAlive: true };
    if (server.protocol === 'https:') {
      if (tls.ca) agentOpts.ca = tls.ca;
      if (tls.cert) agentOpts.cert = tls.cert;
      if (tls.key) agentOpts.key = tls.key;
      if (tls.rejectUnauthorized !== undefined) agentOpts.rejectUnauthorized = tls.rejectUnauthorized;
      if (tls.servername) agentOpts.servername = tls.servername;
    }
    const agent = server.protocol === 'https:' ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
    const t = new Transport(kc, server, agent, opts);
    await t.headersForAuth();
    return t;
  }

  /** sends a request and returns its response; non-2xx statuses and network failures throw ApiError */
  async request(req: HttpRequest): Promise<HttpResponse> {
    let res = await this.send(req, false);
    if (res.status === 401) {
      // credentials may have rotated (exec plugin, projected token): refresh once before giving up
      this.authHeaders = undefined;
      res = await this.send(req, false);
    }
    const body = await readBody(res.message, req, this.pathOf(req));
    if (res.status < 200 || res.status >= 300) {
      throw ApiError.fromResponse(
        req.method,
        this.pathOf(req),
        res.status,
        body,
        headerString(res.message.headers['retry-after']),
      );
    }
    return { status: res.status, headers: res.message.headers, body };
  }

  /** opens a streaming response (watch); resolves once a 2xx status arrived, the caller consumes the body */
  async stream(req: HttpRequest): Promise<http.IncomingMessage> {
    const res = await this.send(req, true);
    if (res.status < 200 || res.status >= 300) {
      const body = await readBody(res.message, req, this.pathOf(req));
      throw ApiError.fromResponse(
        req.method,
        this.pathOf(req),
        res.status,
        body,
        headerString(res.message.headers['retry-after']),
      );
    }
    return res.message;
  }

  close(): void {
    this.agent.destroy();
  }

  private pathOf(req: HttpRequest): string {
    return req.path + buildQuery(req.query);
  }

  private async headersForAuth(): Promise<Record<string, string>> {
    const now = Date.now();
    if (this.authHeaders && now - this.authFetchedAt < this.authCacheMs) return this.authHeaders;
    const opts: https.RequestOptions = { headers: {} };
    await this.kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {}))
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    this.authHeaders = headers;
    this.authFetchedAt = now;
    return headers;
  }

  private async send(req: HttpRequest, streaming: boolean): Promise<{ status: number; message: http.IncomingMessage }> {
    const pathWithQuery = this.pathOf(req);
    const fresh = this.authHeaders && Date.now() - this.authFetchedAt < this.authCacheMs;
    const auth = fresh ? this.authHeaders! : await this.headersForAuth();
    const headers: Record<string, string | string[]> = {
      ...auth,
      ...this.impersonation,
      'User-Agent': this.userAgent,
      Accept: req.accept ?? 'application/json',
    };
    let payload: Buffer | undefined;
    if (req.body !== undefined) {
      payload = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const { protocol, hostname, port, basePath } = this.target;
    const mod = protocol === 'https:' ? https : http;
    const started = performance.now();
    const record = (code: string) => {
      this.metrics.restRequests.inc({ code, method: req.method, host: this.host });
      this.metrics.restLatency.observe({ verb: req.method, host: this.host }, (performance.now() - started) / 1000);
    };
    return new Promise((resolve, reject) => {
      if (req.signal?.aborted) return reject(ApiError.fromNetwork(req.method, pathWithQuery, abortError()));
      let settled = false;
      const request = mod.request({
        protocol,
        hostname,
        ...(port ? { port } : {}),
        path: basePath + pathWithQuery,
        method: req.method,
        headers,
        agent: this.agent,
      });
      const timer = setTimeout(() => request.destroy(timeoutError(timeoutMs)), timeoutMs);
      const onAbort = () => request.destroy(abortError());
      req.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onAbort);
      };
      request.on('response', (message) => {
        settled = true;
        record(String(message.statusCode ?? 0));
        // a stream's consumer (the list-watch watchdog) judges inactivity from here on; a caller's abort
        // still tears the stream down until it closes
        if (streaming) clearTimeout(timer);
        message.once('close', cleanup);
        resolve({ status: message.statusCode ?? 0, message });
      });
      request.on('error', (err) => {
        if (settled) return;
        settled = true;
        cleanup();
        record('<error>');
        reject(ApiError.fromNetwork(req.method, pathWithQuery, err));
      });
      if (payload) request.end(payload);
      else request.end();
    });
  }
}

function withoutTlsVerification(kc: KubeConfig): KubeConfig {
  const view = new KubeConfig();
  const current = kc.getCurrentCluster()?.name;
  view.loadFromOptions({
    clusters: kc.getClusters().map((c) => (c.name === current ? { ...c, skipTLSVerify: true } : c)),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return view;
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** reads a whole response body; a connection dropped mid-body is a network error, not a parse error */
function readBody(message: http.IncomingMessage, req: HttpRequest, path: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (c: Buffer) => chunks.push(c));
    message.on('error', (err) => reject(ApiError.fromNetwork(req.method, path, err)));
    message.on('aborted', () =>
      reject(
        ApiError.fromNetwork(req.method, path, Object.assign(new Error('response aborted'), { code: 'ECONNRESET' })),
      ),
    );
    message.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const type = String(message.headers['content-type'] ?? '');
      if (text === '' || !type.includes('json')) return resolve(text);
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(
          new ApiError({
            code: message.statusCode ?? 0,
            reason: 'InvalidResponse',
            message: `response is not valid JSON (${(err as Error).message})`,
            verb: req.method,
            path,
          }),
        );
      }
    });
  });
}
