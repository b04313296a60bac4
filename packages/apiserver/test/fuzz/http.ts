// Raw HTTPS requests for the fuzzer: any method, headers and body bytes, with a deadline so a hung
// request is reported instead of stalling the run. Watch streams are read for a bounded time.
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';

export interface RawRequest {
  method: string;
  /** path and query, sent as-is */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** send the body with chunked transfer encoding instead of a Content-Length */
  chunked?: boolean;
  /** a streaming response (watch): headers must arrive in time, the body is read until `streamMs` */
  stream?: boolean;
  /** slow-loris: the body trickles out in this many pieces, `delayMs` apart (the server may answer first) */
  slow?: { pieces: number; delayMs: number };
}

export type Outcome =
  | { kind: 'response'; status: number; headers: IncomingHttpHeaders; body: Buffer; ms: number; cutOff: boolean }
  | { kind: 'timeout'; phase: 'headers' | 'body'; ms: number }
  | { kind: 'error'; message: string; ms: number }
  /** Node refused to send the request at all: a bug in the generator, not a server finding */
  | { kind: 'unsendable'; message: string };

export interface TargetServer {
  host: string;
  port: number;
  caPem: string;
  token: string;
}

const ignore = () => {};

export class RawClient {
  readonly agent: Agent;

  constructor(
    private readonly target: TargetServer,
    maxSockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets, ca: target.caPem });
  }

  send(r: RawRequest, timeoutMs: number, streamMs = 3_000): Promise<Outcome> {
    const start = performance.now();
    const elapsed = () => Math.round(performance.now() - start);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (o: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(o);
      };
      const headers: Record<string, string | number> = { Authorization: `Bearer ${this.target.token}`, ...r.headers };
      // Node frames a body as chunked by default only for POST/PUT/PATCH: say so for every method
      if (r.body) headers[r.chunked ? 'Transfer-Encoding' : 'Content-Length'] = r.chunked ? 'chunked' : r.body.length;
      let req: ReturnType<typeof request>;
      try {
        req = request({
          host: this.target.host,
          port: this.target.port,
          method: r.method,
          path: r.path,
          headers,
          agent: this.agent,
          ca: this.target.caPem,
        });
      } catch (e) {
        settled = true;
        resolve({ kind: 'unsendable', message: (e as Error).message });
        return;
      }
      let phase: 'headers' | 'body' = 'headers';
      const timer: NodeJS.Timeout = setTimeout(() => {
        settle({ kind: 'timeout', phase, ms: elapsed() });
        req.destroy();
      }, timeoutMs);
      // a keep-alive socket can fail after its request settled (the server answered early and reset it)
      req.on('socket', (sock) => {
        if (!sock.listeners('error').includes(ignore)) sock.on('error', ignore);
      });
      req.on('error', (e) =>
        settle({
          kind: 'error',
          message: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}`.trim(),
          ms: elapsed(),
        }),
      );
      req.on('response', (res) => {
        phase = 'body';
        const chunks: Buffer[] = [];
        let streamTimer: NodeJS.Timeout | undefined;
        const done = (cutOff: boolean) => {
          clearTimeout(streamTimer);
          settle({
            kind: 'response',
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: elapsed(),
            cutOff,
          });
        };
        if (r.stream && res.statusCode === 200) {
          streamTimer = setTimeout(() => {
            done(true);
            req.destroy();
          }, streamMs);
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(false));
        res.on('error', (e) => settle({ kind: 'error', message: `response stream: ${e.message}`, ms: elapsed() }));
        res.on('aborted', () => settle({ kind: 'error', message: 'response aborted by the server', ms: elapsed() }));
      });
      if (r.body && r.slow) {
        const body = r.body;
        const size = Math.max(1, Math.ceil(body.length / r.slow.pieces));
        const delayMs = r.slow.delayMs;
        let at = 0;
        const trickle = () => {
          if (req.destroyed) return;
          // answered before the body was done: hang up, as such a client would (the socket is no use half-sent)
          if (settled) {
            req.destroy();
            return;
          }
          req.write(body.subarray(at, at + size));
          at += size;
          if (at < body.length) setTimeout(trickle, delayMs);
          else req.end();
        };
        trickle();
        return;
      }
      if (r.body) {
        // Write in pieces so large bodies are streamed and a server that answers early is not blocked on.
        const piece = 256 * 1024;
        for (let i = 0; i < r.body.length; i += piece) req.write(r.body.subarray(i, i + piece));
      }
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
