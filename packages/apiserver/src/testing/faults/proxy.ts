// The fault proxy: a TLS reverse proxy in front of the real kube-apiserver, with a serving certificate from
// the cluster's own CA, so a kubeconfig pointed at it needs nothing else changed. It relays every request
// unchanged (bearer tokens as they came; a client-certificate user by impersonation, as the proxy cannot
// present the client's key), except those the faults in force answer itself — with the Status body
// kube-apiserver writes for that error — and it drops, stalls and expires the watches it relays. Faults are
// scoped by the user kube-apiserver would see (identity.ts). docs/real-kubernetes.md says how each fault
// maps onto the embedded server's.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors, type StatusError } from '../../errors.ts';
import { FaultSet } from '../../faults.ts';
import { parseRequestInfo, type RequestInfo } from '../../http/request-info.ts';
import type { RealControlPlane } from '../../real/index.ts';
import { createCA } from '../../tls.ts';
import { raw } from '../raw.ts';
import { type Caller, RealIdentities } from './identity.ts';
import { WatchStreams } from './watch-streams.ts';

/** headers that describe one hop's connection, never relayed */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te'];

function relayable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

function writeStatus(res: ServerResponse, err: StatusError): void {
  const body = JSON.stringify(err.toStatus());
  res.writeHead(err.code, { 'Content-Type': 'application/json', ...err.headers });
  res.end(body);
}

export class FaultProxy {
  readonly faults = new FaultSet();
  readonly watches = new WatchStreams();
  private readonly identities: RealIdentities;
  private readonly agent: Agent;
  private readonly upstream: URL;
  private server: Server | undefined;
  url = '';

  constructor(private readonly plane: RealControlPlane) {
    this.identities = new RealIdentities(plane.pki);
    this.upstream = new URL(plane.url);
    this.agent = new Agent({ keepAlive: true, ca: plane.caPem, maxSockets: Number.POSITIVE_INFINITY });
  }

  async listen(): Promise<void> {
    const ca = await createCA({ certPem: this.plane.pki.caPem, keyPem: this.plane.pki.caKeyPem });
    const serving = await ca.issue('modelplane-fault-proxy', ['localhost'], ['127.0.0.1']);
    // client certificates are asked for (and checked against the cluster's CA) but not required: most
    // callers present a bearer token
    const server = createServer(
      {
        cert: serving.certPem,
        key: serving.keyPem,
        ca: this.plane.caPem,
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => void this.handle(req, res).catch(() => res.destroy()),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.upstream);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      path = url.pathname;
    }
    const info = parseRequestInfo(req.method ?? 'GET', path, url.searchParams);
    const caller = this.identities.identify(req);
    const err = await this.faults.check(caller.username, info);
    if (err) {
      req.resume();
      writeStatus(res, err);
      return;
    }
    if (info.verb === 'watch') {
      const mark = await this.watches.expiredMark(url.searchParams.get('resourceVersion')).catch(() => undefined);
      if (mark !== undefined) {
        req.resume();
        this.answerExpired(res, caller, info, url.searchParams.get('resourceVersion')!, mark);
        return;
      }
    }
    this.forward(req, res, caller, info.verb === 'watch');
  }

  /** kube-apiserver's answer to a watch older than its history: 200, then one ERROR event with a 410 Status */
  private answerExpired(res: ServerResponse, caller: Caller, info: RequestInfo, rv: string, mark: bigint): void {
    const status = errors.gone(`too old resource version: ${rv} (${mark})`).toStatus();
    const resource = info.subresource ? `${info.resource}/${info.subresource}` : (info.resource ?? '');
    this.faults.record({ user: caller.username, verb: info.verb, resource, code: 410, info });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
  }

  private forward(req: IncomingMessage, res: ServerResponse, caller: Caller, watch: boolean): void {
    const headers = relayable(req.headers);
    if (caller.certificate) {
      headers.authorization = `Bearer ${this.plane.adminToken}`;
      headers['impersonate-user'] = caller.username;
      if (caller.certificate.groups.length > 0) headers['impersonate-group'] = caller.certificate.groups;
    }
    const upstream = httpsRequest({
      host: this.upstream.hostname,
      port: this.upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent: this.agent,
    });
    upstream.on('response', (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, relayable(upstreamRes.headers));
      if (watch && upstreamRes.statusCode === 200) {
        this.watches.relay(res, upstream, upstreamRes);
        return;
      }
      upstreamRes.pipe(res);
      upstreamRes.on('aborted', () => res.destroy());
      upstreamRes.on('error', () => res.destroy());
    });
    // kube-apiserver is away (restarting) or dropped the connection: the client's connection drops too,
    // which is what it would have seen talking to the server directly
    upstream.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  /** the cluster's current resourceVersion (an etcd revision), read with the admin token; retried while the server is away */
  async currentResourceVersion(timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const r = await raw(this.plane, 'GET', '/api/v1/namespaces?limit=1');
        if (r.status === 200) return r.json().metadata.resourceVersion as string;
        if (Date.now() > deadline) throw new Error(`HTTP ${r.status}: ${r.text.slice(0, 300)}`);
      } catch (err) {
        if (Date.now() > deadline)
          throw new Error(`fault proxy: reading the current resourceVersion failed: ${(err as Error).message}`);
      }
      await sleep(100);
    }
  }

  async close(): Promise<void> {
    this.faults.clear();
    this.watches.closeAll();
    this.agent.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function startFaultProxy(plane: RealControlPlane): Promise<FaultProxy> {
  const proxy = new FaultProxy(plane);
  await proxy.listen();
  return proxy;
}
