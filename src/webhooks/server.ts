// The HTTPS server: webhook paths (POST, JSON, bounded bodies) plus /healthz, /readyz and /metrics, behind
// the error boundary every modelplane server shares (@modelplane/runtime/serve, docs/security.md): bodies
// past the limit, targets that are not URLs and handler failures are answered there, as a Kubernetes Status.
// The serving certificate is swapped with setSecureContext, so a rotation takes effect on the next TLS
// handshake without dropping a connection or a request. HTTP/2 stays off, as in controller-runtime.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type GuardedRequest, serveGuarded } from '@modelplane/runtime/serve';
import type { Converter } from './conversion.ts';
import {
  type AdmissionWebhookSpec,
  type ConversionWebhookSpec,
  type Dispatched,
  dispatchAdmission,
  dispatchConversion,
  type Route,
  rejectBody,
} from './dispatch.ts';
import type { WebhookMetrics } from './metrics.ts';
import type { Mutator, Validator } from './review.ts';

/** controller-runtime's limit; kube-apiserver's own request limit is 3 MiB, so a real review never gets near it */
export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;
const RESERVED = new Set(['/healthz', '/readyz', '/metrics']);
const QUALIFIED_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;

export interface WebhookHttpServerOptions {
  cert: string;
  key: string;
  metrics: WebhookMetrics;
  logger: Logger;
  maxBodyBytes?: number;
  /** how long a handler may take before the request is refused with a 500 (default 9 s, under kube's default 10 s) */
  handlerTimeoutMs?: number;
  /** idle keep-alive connections are closed after this (node's default 5 s) */
  keepAliveTimeoutMs?: number;
  /** why the server is not ready, or undefined when it is */
  notReady?: () => string | undefined;
}

/** The registration surface shared by the server and the handle startWebhookServer returns. */
export interface WebhookRegistry {
  validating<T extends KubeObject = KubeObject>(path: string, spec: AdmissionWebhookSpec, handler: Validator<T>): void;
  mutating<T extends KubeObject = KubeObject>(path: string, spec: AdmissionWebhookSpec, handler: Mutator<T>): void;
  conversion(path: string, spec: ConversionWebhookSpec, converter: Converter): void;
  /** every registration, in order */
  routes(): Route[];
}

export class WebhookHttpServer implements WebhookRegistry {
  readonly server: Server;
  private readonly table = new Map<string, Route>();
  private readonly maxBody: number;
  private readonly timeoutMs: number;

  constructor(private readonly opts: WebhookHttpServerOptions) {
    this.maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.timeoutMs = opts.handlerTimeoutMs ?? 9_000;
    this.server = serveGuarded(
      createServer({ cert: opts.cert, key: opts.key, minVersion: 'TLSv1.2' }),
      {
        name: 'the webhook server',
        maxBodyBytes: this.maxBody,
        // a header block within 10 s; the whole review within a minute (kube gives up after 30 s at most)
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 60_000,
        sendError: (res, status, message) => this.refuse(res, status, message),
        onError: (err, req) =>
          opts.logger.error('webhook server failed to answer a request', { path: pathOf(req), error: err }),
      },
      (req, res, ctx) => this.handle(req, res, ctx),
    );
    if (opts.keepAliveTimeoutMs !== undefined) this.server.keepAliveTimeout = opts.keepAliveTimeoutMs;
    this.server.on('tlsClientError', (err) => opts.logger.debug('TLS handshake failed', { error: err }));
  }

  validating<T extends KubeObject = KubeObject>(path: string, spec: AdmissionWebhookSpec, handler: Validator<T>): void {
    this.add({ type: 'validating', path, spec: checkSpec(path, spec), handler });
  }

  mutating<T extends KubeObject = KubeObject>(path: string, spec: AdmissionWebhookSpec, handler: Mutator<T>): void {
    this.add({ type: 'mutating', path, spec: checkSpec(path, spec), handler });
  }

  conversion(path: string, spec: ConversionWebhookSpec, converter: Converter): void {
    this.add({ type: 'conversion', path, spec, handler: converter });
  }

  routes(): Route[] {
    return [...this.table.values()];
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** new TLS handshakes use this certificate; established connections keep theirs */
  setCertificate(cert: string, key: string): void {
    this.server.setSecureContext({ cert, key, minVersion: 'TLSv1.2' });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private add(route: Route): void {
    if (!route.path.startsWith('/') || route.path.includes('?') || route.path.includes('#'))
      throw new Error(`webhook path ${JSON.stringify(route.path)} must start with / and have no query`);
    if (RESERVED.has(route.path))
      throw new Error(`webhook path ${route.path} is reserved for the server's own endpoint`);
    if (this.table.has(route.path))
      throw new Error(`webhook path ${route.path} is already registered (${this.table.get(route.path)!.type})`);
    this.table.set(route.path, route);
  }

  private async handle(req: IncomingMessage, res: ServerResponse, ctx: GuardedRequest): Promise<void> {
    const path = ctx.url.pathname;
    if (req.method === 'GET' && RESERVED.has(path)) return await this.serveOwn(path, res);
    const route = this.table.get(path);
    if (!route) return send(res, rejectBodyWith(404, 'NotFound', `no webhook is registered at ${path}`));
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return send(res, rejectBodyWith(405, 'MethodNotAllowed', `webhook ${path} accepts POST, not ${req.method}`));
    }
    await this.serveWebhook(route, req, res, ctx.body);
  }

  /** the boundary's own refusals (400, 413, 500) as a Status; one aimed at a webhook is counted under it */
  private refuse(res: ServerResponse, status: number, message: string): void {
    const out = rejectBodyWith(status, REASONS[status] ?? 'BadRequest', message);
    send(res, out);
    const route = this.table.get(pathOf(res.req));
    if (route) this.count(route, out, 0);
  }

  private async serveOwn(path: string, res: ServerResponse): Promise<void> {
    if (path === '/metrics') {
      const text = await this.opts.metrics.registry.metrics();
      res.writeHead(200, { 'Content-Type': this.opts.metrics.registry.contentType });
      res.end(text);
      return;
    }
    const why = path === '/readyz' ? this.opts.notReady?.() : undefined;
    res.writeHead(why ? 503 : 200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(why ? `not ready: ${why}\n` : 'ok\n');
  }

  private async serveWebhook(route: Route, req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const m = this.opts.metrics;
    m.inFlight.inc({ webhook: route.path });
    try {
      const started = performance.now();
      const contentType = String(req.headers['content-type'] ?? '');
      const out =
        route.type === 'conversion'
          ? await dispatchConversion(route, body, contentType, this.timeoutMs)
          : await dispatchAdmission(route, body, contentType, this.timeoutMs);
      send(res, out);
      this.count(route, out, (performance.now() - started) / 1000);
    } finally {
      m.inFlight.dec({ webhook: route.path });
    }
  }

  private count(route: Route, out: Dispatched, seconds: number): void {
    const m = this.opts.metrics;
    m.requests.inc({ webhook: route.path, code: String(out.code) });
    m.results.inc({ webhook: route.path, result: out.result });
    m.latency.observe({ webhook: route.path, result: out.result }, seconds);
    const fields = {
      webhook: route.path,
      result: out.result,
      code: out.code,
      durationMs: Math.round(seconds * 1000),
      ...out.info,
    };
    if (out.result === 'error') this.opts.logger.warn('webhook request failed', fields);
    else this.opts.logger.debug('webhook request', fields);
  }
}

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  413: 'RequestEntityTooLarge',
  500: 'InternalError',
};

/** the path of a request, for routing a refusal the boundary wrote (its target may not even be a URL) */
function pathOf(req: IncomingMessage | undefined): string {
  return (req?.url ?? '/').split('?')[0]!;
}

function rejectBodyWith(code: number, reason: string, message: string): Dispatched {
  const d = rejectBody(code, message);
  return { ...d, body: { ...(d.body as object), reason } };
}

function send(res: ServerResponse, out: Dispatched): void {
  const text = JSON.stringify(out.body);
  res.writeHead(out.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function checkSpec(path: string, spec: AdmissionWebhookSpec): AdmissionWebhookSpec {
  if (!QUALIFIED_NAME.test(spec.name ?? ''))
    throw new Error(
      `webhook ${path}: name ${JSON.stringify(spec.name)} must be a fully qualified name of at least three lowercase segments, e.g. vmodeldeployment.kubeairunway.ai`,
    );
  if (!Array.isArray(spec.rules) || spec.rules.length === 0)
    throw new Error(`webhook ${spec.name}: rules must name at least one resource`);
  for (const [i, r] of spec.rules.entries()) {
    for (const f of ['operations', 'apiGroups', 'apiVersions', 'resources'] as const) {
      if (!Array.isArray(r[f]) || r[f].length === 0)
        throw new Error(`webhook ${spec.name}: rules[${i}].${f} must be a non-empty list`);
    }
  }
  return spec;
}
