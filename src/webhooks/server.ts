// The HTTPS server: webhook paths (POST, JSON, bounded bodies) plus /healthz, /readyz and /metrics. The
// serving certificate is swapped with setSecureContext, so a rotation takes effect on the next TLS
// handshake without dropping a connection or a request. HTTP/2 stays off, as in controller-runtime.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
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
    this.server = createServer(
      { cert: opts.cert, key: opts.key, minVersion: 'TLSv1.2' },
      (req, res) => void this.handle(req, res),
    );
    this.server.requestTimeout = 60_000;
    // a header block must arrive within 10 s, checked every second (node checks every 30 s by default)
    this.server.headersTimeout = 10_000;
    (this.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = 1_000;
    if (opts.keepAliveTimeoutMs !== undefined) this.server.keepAliveTimeout = opts.keepAliveTimeoutMs;
    this.server.on('tlsClientError', (err) => opts.logger.debug('TLS handshake failed', { error: err }));
    this.server.on('clientError', (err, socket) => {
      opts.logger.debug('malformed HTTP request', { error: err });
      socket.destroy();
    });
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    try {
      if (req.method === 'GET' && RESERVED.has(path)) return await this.serveOwn(path, res);
      const route = this.table.get(path);
      if (!route) return send(res, rejectBodyWith(404, 'NotFound', `no webhook is registered at ${path}`));
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        return send(res, rejectBodyWith(405, 'MethodNotAllowed', `webhook ${path} accepts POST, not ${req.method}`));
      }
      await this.serveWebhook(route, req, res);
    } catch (err) {
      this.opts.logger.error('webhook server failed to answer a request', { path, error: err });
      if (!res.headersSent)
        send(res, rejectBodyWith(500, 'InternalError', `the webhook server failed: ${(err as Error).message}`));
      else res.destroy();
    }
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

  private async serveWebhook(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = this.opts.metrics;
    m.inFlight.inc({ webhook: route.path });
    try {
      const body = await readBody(req, this.maxBody);
      const started = performance.now();
      let out: Dispatched;
      if (body === undefined) {
        out = rejectBody(413, `request body is larger than the limit of ${this.maxBody} bytes`);
        res.setHeader('Connection', 'close');
      } else {
        const contentType = String(req.headers['content-type'] ?? '');
        out =
          route.type === 'conversion'
            ? await dispatchConversion(route, body, contentType, this.timeoutMs)
            : await dispatchAdmission(route, body, contentType, this.timeoutMs);
      }
      send(res, out);
      const seconds = (performance.now() - started) / 1000;
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
    } finally {
      m.inFlight.dec({ webhook: route.path });
    }
  }
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

/** the body, or undefined once it exceeds `limit` (the rest is discarded, not buffered) */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        if (!over) resolve(undefined);
        over = true;
        chunks.length = 0;
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
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
