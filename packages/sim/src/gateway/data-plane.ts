// The simulated Gateway's data plane in `modelplane dev` (docs/kubeairunway.md, "Gateway on the dev
// cluster"): each programmed Gateway of the simulated class gets its own loopback address in the cluster's
// pod network (`<podNetwork>.255.<n>`) and an HTTP server on each HTTP listener's port there. A request is
// routed as a Gateway with a body-based router routes it: the body's `model` becomes the
// X-Gateway-Model-Name header, the accepted HTTPRoutes' rules pick a backendRef (by weight), and the request
// is proxied, streamed both ways, to a ready pod behind that Service or InferencePool. A port the process
// may not bind (80 without privileges) is served on a free port of the same address instead, reported as
// the address `sim.modelplane.io/HostPort` (`ip:port`) so clients still find it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { serveGuarded } from '@modelplane/runtime/serve';
import type { Listener } from '../operators/gateway-attach.ts';
import { BackendResolver, type LocalServiceRegistry } from './backends.ts';
import { EndpointPicker, type EndpointPickerOptions } from './endpoint-picker.ts';
import { HeldRequests } from './hold.ts';
import {
  MODEL_NAME_HEADER,
  modelOfBody,
  pickBackend,
  type RoutedRequest,
  rewrittenPath,
  routeRequest,
} from './routing.ts';

export const HOST_PORT_ADDRESS_TYPE = 'sim.modelplane.io/HostPort';
/**
 * the answer names the pod it came from (ip:port), as the Inference Extension's picker names the endpoint
 * it chose to the proxy, so a client (or a test) sees which deployment served it
 */
export const DESTINATION_ENDPOINT_HEADER = 'x-gateway-destination-endpoint';
/** the largest request body a Gateway listener accepts (413 past it) */
export const GATEWAY_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** hop-by-hop headers end at the proxy; the body goes on with its own Content-Length */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'content-length',
]);

export interface GatewayAddress {
  type: string;
  value: string;
}

/** what the simulated Gateway controller asks of a data plane */
export interface GatewayAddressSource {
  /** serves the Gateway's HTTP listeners (once per listener set) and returns its status addresses */
  addresses(namespace: string, name: string, listeners: readonly Listener[]): Promise<GatewayAddress[]>;
  release(namespace: string, name: string): Promise<void>;
}

interface Served {
  signature: string;
  servers: http.Server[];
  addresses: GatewayAddress[];
}

export interface GatewayDataPlaneOptions {
  /** the dev cluster's 127.N pod network; Gateways get 127.N.255.1, .2, … */
  podNetwork: string;
  local?: LocalServiceRegistry;
  log?: Logger;
  /** how long a request for a model without a Ready endpoint is held (default 120 s) */
  holdMs?: number;
  /**
   * how an InferencePool's endpoint is chosen: 'load' (default) by queue depth and KV-cache use, as the
   * Inference Extension's picker does; 'round-robin' as a Service's
   */
  poolPicking?: 'load' | 'round-robin';
  picker?: EndpointPickerOptions;
}

export class GatewayDataPlane implements GatewayAddressSource {
  private readonly served = new Map<string, Promise<Served>>();
  private readonly ips = new Map<string, string>();
  private readonly backends: BackendResolver;
  private readonly log: Logger | undefined;
  private roundRobin = 0;
  /** requests waiting for a Ready endpoint, and their queue metric */
  readonly held: HeldRequests;
  private readonly picker: EndpointPicker | undefined;

  constructor(
    mgr: Pick<Manager, 'cache'>,
    private readonly opts: GatewayDataPlaneOptions,
  ) {
    this.backends = new BackendResolver(mgr, opts.local);
    this.log = opts.log;
    this.held = new HeldRequests(opts.holdMs);
    this.picker = opts.poolPicking === 'round-robin' ? undefined : new EndpointPicker(opts.picker);
  }

  async addresses(namespace: string, name: string, listeners: readonly Listener[]): Promise<GatewayAddress[]> {
    const key = `${namespace}/${name}`;
    const served = listeners.filter((l) => l.protocol === 'HTTP');
    const signature = JSON.stringify(served.map((l) => [l.name, l.port]));
    const current = await this.served.get(key)?.catch(() => undefined);
    if (current?.signature === signature) return current.addresses;
    if (current) await closeAll(current.servers);
    const p = this.serve(namespace, name, served, signature);
    this.served.set(key, p);
    return (await p).addresses;
  }

  async release(namespace: string, name: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const current = await this.served.get(key)?.catch(() => undefined);
    this.served.delete(key);
    if (current) await closeAll(current.servers);
  }

  async close(): Promise<void> {
    await this.held.close();
    this.picker?.close();
    const all = await Promise.allSettled([...this.served.values()]);
    this.served.clear();
    await Promise.all(all.map((r) => (r.status === 'fulfilled' ? closeAll(r.value.servers) : undefined)));
  }

  private ipFor(key: string): string {
    let ip = this.ips.get(key);
    if (!ip) {
      ip = `${this.opts.podNetwork}.255.${this.ips.size + 1}`;
      this.ips.set(key, ip);
    }
    return ip;
  }

  private async serve(namespace: string, name: string, listeners: Listener[], signature: string): Promise<Served> {
    const ip = this.ipFor(`${namespace}/${name}`);
    const servers: http.Server[] = [];
    const addresses: GatewayAddress[] = [];
    for (const l of listeners) {
      const server = serveGuarded(
        http.createServer(),
        {
          name: `Gateway ${namespace}/${name}`,
          maxBodyBytes: GATEWAY_MAX_BODY_BYTES,
          sendError: (res, status, message) => sendError(res, status, message, 'BadRequestError'),
        },
        (req, res, { url, body }) => this.handle(namespace, name, req, res, url, body),
      );
      const bound = await listen(server, l.port, ip);
      servers.push(server);
      const port = (server.address() as AddressInfo).port;
      const host = (server.address() as AddressInfo).address;
      if (bound === 'asked') addresses.push({ type: 'IPAddress', value: host });
      else addresses.push({ type: HOST_PORT_ADDRESS_TYPE, value: `${host}:${port}` });
      this.log?.info('gateway listener serving', {
        gateway: `${namespace}/${name}`,
        listener: l.name,
        url: `http://${host}:${port}`,
      });
    }
    // one address per distinct value: the first listener's says where the Gateway is
    const unique = addresses.filter((a, i) => addresses.findIndex((b) => b.value === a.value) === i);
    return { signature, servers, addresses: unique };
  }

  private async handle(
    namespace: string,
    name: string,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    body: Buffer,
  ) {
    try {
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const model = modelOfBody(body, headers['content-type']);
      if (model !== undefined) headers[MODEL_NAME_HEADER] = model;
      const request: RoutedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        headers,
        query: url.searchParams,
        ...(headers.host ? { host: headers.host } : {}),
      };
      const decision = routeRequest(await this.backends.attachedRoutes(namespace, name), request);
      const what = `${request.method} ${request.path}${model !== undefined ? ` (model "${model}")` : ''}`;
      if (!decision)
        return sendError(res, 404, `no HTTPRoute on Gateway ${namespace}/${name} matches ${what}`, 'NotFoundError');
      const ref = pickBackend(decision.rule.backendRefs ?? [], Math.random());
      const route = `HTTPRoute ${decision.route.namespace}/${decision.route.name}`;
      if (!ref) return sendError(res, 500, `${route} has no backend for ${what}`, 'InternalServerError');
      const resolve = () => this.backends.resolve(ref, decision.route.namespace);
      let targets = await resolve();
      // no Ready endpoint (a model at zero): hold the request in the queue the autoscaler reads
      if (targets.length === 0 && model !== undefined) {
        const gone = new AbortController();
        res.once('close', () => gone.abort());
        targets = await this.held.hold({ namespace: decision.route.namespace, model }, resolve, gone.signal);
      }
      if (targets.length === 0)
        return sendError(
          res,
          503,
          `${route}: no ready endpoint behind ${ref.kind ?? 'Service'} ${ref.name}`,
          'ServiceUnavailableError',
        );
      // an InferencePool's endpoint is picked by load (endpoint-picker.ts); a Service's, round robin
      const picked =
        ref.kind === 'InferencePool' && this.picker
          ? this.picker.pick(targets)
          : { target: targets[this.roundRobin++ % targets.length]!, done: () => undefined };
      res.once('close', picked.done);
      proxy(req, res, `${rewrittenPath(decision, url.pathname)}${url.search}`, body, headers, picked.target);
    } catch (err) {
      sendError(res, 502, `gateway error: ${(err as Error).message}`, 'BadGatewayError');
    }
  }
}

/** 'asked' when bound to the port asked for; 'free' when that was refused and a free one was taken */
async function listen(server: http.Server, port: number, ip: string): Promise<'asked' | 'free'> {
  const attempt = (p: number, host: string) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await attempt(port, ip);
    return 'asked';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // no 127.N alias on this machine (macOS): any free port of 127.0.0.1
    await attempt(0, code === 'EADDRNOTAVAIL' ? '127.0.0.1' : ip);
    return 'free';
  }
}

function proxy(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  path: string,
  body: Buffer,
  headers: Record<string, string | undefined>,
  target: string,
): void {
  const t = new URL(target);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  out.host = t.host;
  out['content-length'] = String(body.length);
  const upstream = http.request(
    { hostname: t.hostname, port: t.port, method: req.method, path, headers: out },
    (up) => {
      up.on('error', () => res.destroy());
      res.writeHead(up.statusCode ?? 502, { ...up.headers, [DESTINATION_ENDPOINT_HEADER]: t.host });
      up.pipe(res);
    },
  );
  upstream.on('error', (err) => sendError(res, 502, `backend ${target}: ${err.message}`, 'BadGatewayError'));
  // a client that leaves mid-answer ends the upstream request too
  res.on('close', () => upstream.destroy());
  upstream.end(body);
}

function sendError(res: http.ServerResponse, status: number, message: string, type: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, code: status } }));
}

function closeAll(servers: http.Server[]): Promise<void> {
  return Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        }),
    ),
  ).then(() => undefined);
}
