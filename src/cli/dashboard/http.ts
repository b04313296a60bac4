// The dashboard server's HTTP plumbing: who may talk to it (loopback by default; a token when bound
// elsewhere; a Host check against DNS rebinding; JSON-only writes against cross-site forms), static files,
// JSON replies and Server-Sent Event streams. docs/dashboard.md explains the rules.
import { timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

export const TOKEN_COOKIE = 'modelplane_dashboard_token';
const MAX_BODY = 1 << 20;
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export interface AccessPolicy {
  /** required when the server is not bound to loopback */
  token?: string;
  /** loopback binding: only these Host header values are served */
  loopbackHosts?: Set<string>;
}

/**
 * Whether the request may proceed. A `?token=` on a page load becomes an HttpOnly cookie and the browser is
 * redirected to the same URL without it, so the token does not linger in history or the Referer.
 */
export function admit(req: IncomingMessage, res: ServerResponse, url: URL, policy: AccessPolicy): boolean {
  if (policy.loopbackHosts && !policy.loopbackHosts.has(req.headers.host ?? '')) {
    sendJson(res, 421, { error: `this dashboard answers only to ${[...policy.loopbackHosts].join(', ')}` });
    return false;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const origin = req.headers.origin;
    if (
      !(req.headers['content-type'] ?? '').startsWith('application/json') ||
      (origin && new URL(origin).host !== req.headers.host)
    ) {
      sendJson(res, 403, { error: 'writes must be same-origin JSON requests' });
      return false;
    }
  }
  if (!policy.token) return true;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (sameToken(bearer, policy.token) || sameToken(cookie(req, TOKEN_COOKIE), policy.token)) return true;
  const query = url.searchParams.get('token') ?? undefined;
  if (sameToken(query, policy.token) && req.method === 'GET') {
    url.searchParams.delete('token');
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(policy.token)}; HttpOnly; SameSite=Strict; Path=/`,
      Location: `${url.pathname}${url.search}`,
    });
    res.end();
    return false;
  }
  sendJson(res, 401, {
    error:
      'this dashboard needs the token printed when it started: open the URL it printed, or send "Authorization: Bearer TOKEN"',
  });
  return false;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RangeError('request body larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
}

/** a Server-Sent Events stream: `send(event, data)`, a keep-alive comment, and cleanup when the browser leaves */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  onClose: () => void,
): (event: string, data: unknown) => void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write('retry: 2000\n\n');
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(keepAlive);
    onClose();
  });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** serves a file of the built front end; unknown paths get index.html (the app routes in the browser) */
export function serveStatic(res: ServerResponse, root: string, pathname: string): void {
  const rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  let file = join(root, rel);
  if (!file.startsWith(root + sep) || !existsSync(file) || statSync(file).isDirectory())
    file = join(root, 'index.html');
  const immutable = rel.startsWith('assets/');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  createReadStream(file).pipe(res);
}
