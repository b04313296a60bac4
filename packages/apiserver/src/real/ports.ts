// Free loopback ports for the control plane's listeners and HTTPS readiness probes against it.
import { request } from 'node:https';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ProbeTarget {
  url: string;
  caPem?: string;
  token?: string;
}

/** one GET; resolves with the status code and body, or undefined when the server is not answering */
export function probe(target: ProbeTarget, timeoutMs = 2_000): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const url = new URL(target.url);
    const headers: Record<string, string> = target.token ? { authorization: `Bearer ${target.token}` } : {};
    const lib = url.protocol === 'https:' ? request : undefined;
    if (!lib) {
      fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
        .then(async (res) => resolve({ status: res.status, body: await res.text() }))
        .catch(() => resolve(undefined));
      return;
    }
    const req = lib(url, { method: 'GET', headers, ca: target.caPem, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** polls until `ready` accepts a probe result; throws `describe()` after the deadline or when `alive()` turns false */
export async function waitUntil(
  what: string,
  target: ProbeTarget,
  ready: (r: { status: number; body: string }) => boolean,
  opts: { timeoutMs: number; alive: () => boolean; describe: () => string },
): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!opts.alive()) throw new Error(`${what}: the process exited before it was ready\n${opts.describe()}`);
    const r = await probe(target);
    if (r && ready(r)) return;
    if (r) last = `HTTP ${r.status}: ${r.body.slice(0, 300)}`;
    await sleep(100);
  }
  throw new Error(`${what}: not ready after ${opts.timeoutMs} ms (last: ${last})\n${opts.describe()}`);
}
