// The error boundary every HTTP server modelplane runs goes through (docs/security.md): a request target
// that is not a URL is a 400, a body past the server's stated limit a 413 (declared or streamed), a handler
// that throws or rejects answers 500 instead of ending the process, and slow or endless requests are cut
// off by header and request deadlines. Handlers get the parsed URL and the whole body, already bounded.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';

/** an error whose status is the answer (e.g. a 400 for a body that is not JSON, a 404) */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface GuardedRequest {
  /** the request target, resolved against the server's own origin */
  url: URL;
  /** the request body, at most `maxBodyBytes` long */
  body: Buffer;
}

export type GuardedHandler = (req: IncomingMessage, res: ServerResponse, ctx: GuardedRequest) => unknown;

export interface ServeOptions {
  /** names the server in the 413 message and in logs */
  name: string;
  /** the largest request body it accepts; a larger one (by Content-Length or as it streams in) gets 413 */
  maxBodyBytes: number;
  /** a client must send its whole header block within this (default 10 s), else 408 */
  headersTimeoutMs?: number;
  /** ... and its whole request, body included, within this (default 30 s) */
  requestTimeoutMs?: number;
  /** headers past this count are ignored (default 100) */
  maxHeadersCount?: number;
  /** connections past this many open at once are closed on arrival (default 1024), so a flood of idle or
   * streaming connections cannot exhaust the process's file descriptors */
  maxConnections?: number;
  /** writes an error answer in the server's own format (default `{"error": message}` as JSON) */
  sendError?: (res: ServerResponse, status: number, message: string) => void;
  /** told about handler failures (5xx), e.g. to log them */
  onError?: (err: unknown, req: IncomingMessage) => void;
}

export function sendJsonError(res: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({ error: message });
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

const ignore = () => {};

/** how deep JSON bodies may nest: deeper ones are refused before any recursive code walks them */
export const MAX_JSON_DEPTH = 100;

/** the deepest nesting of arrays and objects in JSON text (strings skipped) */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return max;
}

/** parses JSON the handler was given, as a 400 naming the problem when it is not JSON or nests too deep */
export function parseJsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'the request body is empty: send a JSON object');
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new HttpError(400, `the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function targetOf(req: IncomingMessage): URL | undefined {
  const target = req.url ?? '/';
  if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return undefined;
  try {
    return new URL(target.startsWith('//') ? `/${target.replace(/^\/+/, '')}` : target, 'http://localhost');
  } catch {
    return undefined;
  }
}

/** the body length a request announces (0 when it announces none) */
function declaredLength(req: IncomingMessage): number {
  return Number(req.headers['content-length'] ?? 0);
}

function readBounded(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        // the rest is read and dropped while the 413 goes out, so the client sees the answer instead of
        // a reset; the connection is closed shortly after
        req.resume();
        resolve('too-large');
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    // the client left (or a deadline cut it off) before the body was complete: nobody to answer
    req.once('error', () => resolve('aborted'));
    req.once('close', () => resolve(req.complete ? Buffer.concat(chunks) : 'aborted'));
  });
}

function fail(res: ServerResponse, status: number, message: string, opts: ServeOptions, close = false): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  if (close) res.setHeader('Connection', 'close');
  try {
    (opts.sendError ?? sendJsonError)(res, status, message);
  } catch {
    res.destroy();
  }
}

function tooLarge(opts: ServeOptions): string {
  return `the request body is larger than ${opts.name}'s limit of ${opts.maxBodyBytes} bytes`;
}

/** the request listener: bounded body, parsed URL, and every failure of the handler turned into an answer */
export function guardedListener(opts: ServeOptions, handler: GuardedHandler) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // a client that goes away mid-request must not surface as an unhandled 'error' event
    req.on('error', ignore);
    res.on('error', ignore);
    const url = targetOf(req);
    if (!url) return fail(res, 400, `the request target ${JSON.stringify(req.url)} is not a URL path`, opts, true);
    if (declaredLength(req) > opts.maxBodyBytes) return fail(res, 413, tooLarge(opts), opts, true);
    try {
      const body = await readBounded(req, opts.maxBodyBytes);
      if (body === 'too-large') {
        res.once('finish', () => setTimeout(() => req.socket.destroy(), 1_000).unref());
        return fail(res, 413, tooLarge(opts), opts, true);
      }
      if (body === 'aborted') return void res.destroy();
      await handler(req, res, { url, body });
    } catch (err) {
      if (err instanceof HttpError) return fail(res, err.status, err.message, opts);
      if (err instanceof SyntaxError) return fail(res, 400, err.message, opts);
      opts.onError?.(err, req);
      fail(res, 500, `${opts.name} failed to answer: ${(err as Error)?.message ?? String(err)}`, opts);
    }
  };
}

/**
 * Puts `handler` behind the error boundary on `server` (created without a request listener) and sets its
 * deadlines. Node's own answers to unparseable requests (400, 431 for header floods, 408 for slow
 * headers) stay as they are.
 */
export function serveGuarded<S extends Server | HttpsServer>(
  server: S,
  opts: ServeOptions,
  handler: GuardedHandler,
): S {
  server.headersTimeout = opts.headersTimeoutMs ?? 10_000;
  server.requestTimeout = opts.requestTimeoutMs ?? 30_000;
  server.maxHeadersCount = opts.maxHeadersCount ?? 100;
  server.maxConnections = opts.maxConnections ?? 1024;
  // how often those deadlines are checked (node's default, 30 s, would let a slow client hold on that long)
  (server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.min(
    1_000,
    server.headersTimeout,
  );
  const listener = guardedListener(opts, handler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => void listener(req, res));
  // `Expect: 100-continue`: node would say 100 to any body; a client announcing one past the limit gets
  // the 413 instead, without ever being invited to send it
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (declaredLength(req) <= opts.maxBodyBytes) res.writeContinue();
    void listener(req, res);
  });
  return server;
}
