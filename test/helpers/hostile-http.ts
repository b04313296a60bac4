// Wire-level HTTP for security tests: `exchange` writes raw bytes to any plain or TLS port (requests no
// client library would send: a target that is not a URL, a duplicated Host, a truncated chunked body, a
// header block that never ends) and reports the status line, whether the server closed the connection and
// whether it went silent; `httpRequest` is an ordinary request with full control of headers and framing.
import { request as httpRequestRaw, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequestRaw } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface Target {
  host?: string;
  port: number;
  /** speak TLS; the server's certificate is not checked unless `ca` is given */
  tls?: { ca?: string; cert?: string; key?: string };
}

/** a piece of a raw request, or a pause between pieces */
export type Piece = string | Buffer | { pauseMs: number };

export interface ExchangeOutcome {
  /** the status of the first response, if one arrived */
  status?: number;
  /** what the server sent (the first 4 KiB) */
  head: string;
  /** the server ended or reset the connection */
  closed: boolean;
  /** neither an answer nor a close within the deadline */
  silent: boolean;
  /** a connection error (refused, TLS handshake failure …) */
  error?: string;
  ms: number;
}

function open(target: Target): Socket {
  const host = target.host ?? '127.0.0.1';
  if (!target.tls) return netConnect({ host, port: target.port });
  return tlsConnect({
    host,
    port: target.port,
    rejectUnauthorized: target.tls.ca !== undefined,
    ...(target.tls.ca ? { ca: target.tls.ca, servername: 'localhost' } : {}),
    ...(target.tls.cert ? { cert: target.tls.cert, key: target.tls.key } : {}),
  });
}

/**
 * Sends `pieces` (pausing where asked) and waits up to `timeoutMs` for the status line or a close.
 * `halfClose` ends the write side after the last piece, as a client that gives up mid-body does.
 */
export function exchange(
  target: Target,
  pieces: Piece | Piece[],
  opts: { timeoutMs?: number; halfClose?: boolean; waitForClose?: boolean } = {},
): Promise<ExchangeOutcome> {
  const list = Array.isArray(pieces) ? pieces : [pieces];
  const start = performance.now();
  return new Promise((resolve) => {
    const socket = open(target);
    let received = '';
    let done = false;
    const finish = (o: Partial<ExchangeOutcome>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1];
      resolve({
        head: received.slice(0, 4096),
        closed: false,
        silent: false,
        ms: Math.round(performance.now() - start),
        ...(status ? { status: Number(status) } : {}),
        ...o,
      });
    };
    const timer = setTimeout(() => finish({ silent: true }), opts.timeoutMs ?? 10_000);
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1');
      if (!opts.waitForClose && /^HTTP\/1\.[01] \d{3}/.test(received)) finish({});
    });
    socket.on('end', () => finish({ closed: true }));
    socket.on('close', () => finish({ closed: true }));
    socket.on('error', (e) => finish({ closed: true, error: e.message }));
    socket.once(target.tls ? 'secureConnect' : 'connect', async () => {
      for (const p of list) {
        if (done) return;
        if (typeof p === 'object' && !Buffer.isBuffer(p)) await new Promise((r) => setTimeout(r, p.pauseMs));
        else if (!socket.destroyed) socket.write(p);
      }
      if (opts.halfClose && !socket.destroyed) socket.end();
    });
  });
}

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** one ordinary request; `chunked` frames the body with Transfer-Encoding instead of a Content-Length */
export function httpRequest(r: {
  host?: string;
  port: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  chunked?: boolean;
  tls?: Target['tls'];
  timeoutMs?: number;
}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body !== undefined) {
      if (r.chunked) headers['Transfer-Encoding'] = 'chunked';
      else headers['Content-Length'] = Buffer.byteLength(r.body);
    }
    const send = r.tls ? httpsRequestRaw : httpRequestRaw;
    const req = send(
      {
        host: r.host ?? '127.0.0.1',
        port: r.port,
        method: r.method,
        path: r.path,
        headers,
        agent: false,
        ...(r.tls
          ? { rejectUnauthorized: r.tls.ca !== undefined, ca: r.tls.ca, cert: r.tls.cert, key: r.tls.key }
          : {}),
      },
      (res) => {
        let body = '';
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', done);
        // a server that answers 413 before reading the whole body closes while we may still write
        res.on('error', done);
        res.on('close', done);
      },
    );
    req.setTimeout(r.timeoutMs ?? 15_000, () => req.destroy(new Error(`${r.method} ${r.path} timed out`)));
    req.on('error', reject);
    if (r.body !== undefined) {
      if (r.chunked) for (let i = 0; i < r.body.length; i += 65_536) req.write(r.body.slice(i, i + 65_536));
      else req.write(r.body);
    }
    req.end();
  });
}
