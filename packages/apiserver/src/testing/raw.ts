// Raw HTTPS requests to the embedded API server, for tests that check wire-level behaviour (headers,
// status codes, watch streams) below what client libraries expose. Any server with a URL, a CA and an admin
// token will do: a started ApiServer or a test cluster of either backend.
import { request } from 'node:https';

/** where raw requests go: an ApiServer handle and a TestCluster both have these */
export interface RawTarget {
  readonly url: string;
  readonly caPem: string;
  readonly adminToken: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

export function raw(
  server: RawTarget,
  method: string,
  path: string,
  body?: unknown,
  opts: {
    contentType?: string;
    accept?: string;
    token?: string;
    timeoutMs?: number;
    headers?: Record<string, string>;
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const data =
      body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const req = request(
      `${server.url}${path}`,
      {
        method,
        ca: server.caPem,
        headers: {
          Authorization: `Bearer ${opts.token ?? server.adminToken}`,
          ...(data !== undefined ? { 'Content-Type': opts.contentType ?? 'application/json' } : {}),
          // a length unless the caller sends the body chunked: Node frames a DELETE's body neither way itself
          ...(data !== undefined && !opts.headers?.['Transfer-Encoding']
            ? { 'Content-Length': Buffer.byteLength(data) }
            : {}),
          ...(opts.accept ? { Accept: opts.accept } : {}),
          ...opts.headers,
        },
        timeout: opts.timeoutMs ?? 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request ${method} ${path} timed out`)));
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

export interface WatchEvent {
  type: string;
  object: any;
}

/** Opens a watch and collects events until `stop()` or the server ends the stream. */
export function openWatch(
  server: RawTarget,
  path: string,
  accept?: string,
): {
  events: WatchEvent[];
  ended: Promise<number>;
  stop(): void;
  next(pred: (e: WatchEvent) => boolean, timeoutMs?: number): Promise<WatchEvent>;
} {
  const events: WatchEvent[] = [];
  const waiters: Array<() => void> = [];
  let stopFn = () => {};
  const ended = new Promise<number>((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: 'GET',
        ca: server.caPem,
        headers: { Authorization: `Bearer ${server.adminToken}`, ...(accept ? { Accept: accept } : {}) },
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i);
            buf = buf.slice(i + 1);
            if (line.trim()) events.push(JSON.parse(line));
            for (const w of waiters.splice(0)) w();
          }
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('close', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(-1) : reject(e)));
    req.end();
    stopFn = () => req.destroy();
  });
  return {
    events,
    ended,
    stop: () => stopFn(),
    next(pred, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () =>
            reject(
              new Error(
                `no matching watch event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.type))}`,
              ),
            ),
          timeoutMs,
        );
        const check = () => {
          const found = events.find(pred);
          if (found) {
            clearTimeout(t);
            resolve(found);
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}
