// The simulated kubelets' HTTPS endpoint, for a real kube-apiserver: it serves `pods/log` by proxying to
// `https://<node InternalIP>:<status.daemonEndpoints.kubeletEndpoint.Port>/containerLogs/<ns>/<pod>/<container>`
// with the query `kubectl logs` sent. Each node listens on its own InternalIP with a certificate from the
// cluster CA and requires kube-apiserver's client certificate, as a kubelet does; the logs come from the
// PodLogStore the simulated kubelet writes. See docs/real-kubernetes.md.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { serveGuarded } from '@modelplane/runtime/serve';
import type { LogReadOptions, PodLogStore } from './pod-logs.ts';

/** log requests are GETs: a body past this is refused with 413 */
export const KUBELET_MAX_BODY_BYTES = 64 * 1024;

export interface KubeletTlsMaterial {
  certPem: string;
  keyPem: string;
  /** the CA of the clients the kubelet accepts (kube-apiserver's kubelet client certificate) */
  clientCaPem: string;
}

export interface KubeletEndpoints {
  /** the port node `name` listens on (its daemonEndpoints.kubeletEndpoint.Port) */
  port(node: string): number;
  stop(): Promise<void>;
}

/** a query integer as the kubelet parses it (strconv.ParseInt); undefined when absent */
function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw new Error(`${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function reply(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** GET /containerLogs/{namespace}/{pod}/{container}: the kubelet's container log endpoint */
export function serveContainerLogs(logs: PodLogStore, req: IncomingMessage, res: ServerResponse, url: URL): void {
  let parts: string[];
  try {
    parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
  } catch {
    reply(res, 400, `the path ${JSON.stringify(url.pathname.slice(0, 200))} is not valid percent-encoding\n`);
    return;
  }
  if (req.method !== 'GET' || parts.length !== 4 || parts[0] !== 'containerLogs') {
    reply(res, 404, '404 page not found\n');
    return;
  }
  const [, namespace, pod, container] = parts as [string, string, string, string];
  let opts: LogReadOptions;
  try {
    const previous = url.searchParams.get('previous');
    opts = {
      previous: previous !== null && previous !== 'false',
      tailLines: queryInt(url.searchParams, 'tailLines'),
      limitBytes: queryInt(url.searchParams, 'limitBytes'),
    };
  } catch (err) {
    reply(res, 400, (err as Error).message);
    return;
  }
  const text = logs.get(namespace, pod, container, opts);
  // the kubelet's messages for a container with no output of the kind asked for
  if (text === undefined && opts.previous)
    reply(res, 400, `previous terminated container "${container}" in pod "${pod}" not found`);
  else if (text === undefined)
    reply(res, 400, `container "${container}" in pod "${pod}" is waiting to start: ContainerCreating`);
  else reply(res, 200, text);
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

/** starts one kubelet endpoint per node, each on its InternalIP and a free port */
export async function startKubeletEndpoints(
  logs: PodLogStore,
  tls: KubeletTlsMaterial,
  nodes: ReadonlyArray<{ name: string; ip: string }>,
): Promise<KubeletEndpoints> {
  const servers: Server[] = [];
  const ports = new Map<string, number>();
  const stop = async () => {
    await Promise.all(
      servers.map((s) => {
        const closed = new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeAllConnections();
        return closed;
      }),
    );
  };
  try {
    for (const node of nodes) {
      const server = serveGuarded(
        createServer({
          cert: tls.certPem,
          key: tls.keyPem,
          ca: tls.clientCaPem,
          requestCert: true,
          rejectUnauthorized: true,
        }),
        {
          name: `the simulated kubelet of node ${node.name}`,
          maxBodyBytes: KUBELET_MAX_BODY_BYTES,
          sendError: (res, status, message) => reply(res, status, `${message}\n`),
        },
        (req, res, { url }) => serveContainerLogs(logs, req, res, url),
      );
      servers.push(server);
      ports.set(node.name, await listen(server, node.ip));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    port(node) {
      const port = ports.get(node);
      if (port === undefined) throw new Error(`no simulated kubelet endpoint for node ${node}`);
      return port;
    },
    stop,
  };
}
