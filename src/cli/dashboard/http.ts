// The dashboard server's HTTP plumbing: who may talk to it (loopback by default; a token when bound
// elsewhere; a Host check against DNS rebinding; JSON-only writes against cross-site forms), static files,
// JSON replies and Server-Sent Event streams. docs/dashboard.md explains the rules.
import { timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { HttpError } from '@modelplane/runtime/serve';

export const TOKEN_COOKIE = 'modelplane_dashboard_token';
/** the largest request body the dashboard accepts (a ModelDeployment form is a few hundred bytes) */
export const DASHBOARD_MAX_BODY_BYTES = 1 << 20;
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
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
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
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Why a write may not proceed, or undefined: it must be JSON (no HTML form can send that without CORS) and,
 * when the browser names its origin, come from this very page: `Origin: null` (sandboxed frames, file: pages,
 * redirects) and anything that is not a URL are foreign.
 */
export function writeRefusal(req: IncomingMessage): string | undefined {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type))
    return `writes must be JSON: send "Content-Type: application/json" (got ${JSON.stringify(type || 'none')})`;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `writes must come from the dashboard's own page (Sec-Fetch-Site: ${site})`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let host: string | undefined;
  try {
    const parsed = new URL(origin);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') host = parsed.host;
  } catch {
    host = undefined;
  }
  if (host === undefined || host !== req.headers.host)
    return `writes must come from the dashboard's own page, not from Origin ${JSON.stringify(origin.slice(0, 200))}`;
  return undefined;
}

export interface AccessPolicy {
  /**
   * checks a presented token (the random one printed at start, or a user's Kubernetes token reviewed by the
   * API server); unset: no token is needed (loopback)
   */
  verify?: (token: string) => Promise<boolean>;
  /** what a 401 tells the person to present */
  tokenHint?: string;
  /** loopback binding: only these Host header values are served */
  loopbackHosts?: Set<string>;
}

/** a static token's check, in constant time */
export function staticToken(token: string): (given: string) => Promise<boolean> {
  return async (given) => sameToken(given, token);
}

/**
 * Whether the request may proceed, and with which token. A `?token=` on a page load becomes an HttpOnly
 * cookie and the browser is redirected to the same URL without it, so the token does not linger in history
 * or the Referer.
 */
export async function admit(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  policy: AccessPolicy,
): Promise<{ token?: string } | undefined> {
  if (policy.loopbackHosts && !policy.loopbackHosts.has(req.headers.host ?? '')) {
    sendJson(res, 421, { error: `this dashboard answers only to ${[...policy.loopbackHosts].join(', ')}` });
    return undefined;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const refused = writeRefusal(req);
    if (refused) {
      sendJson(res, 403, { error: refused });
      return undefined;
    }
  }
  if (!policy.verify) return {};
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const presented = bearer ?? cookie(req, TOKEN_COOKIE);
  if (presented && (await policy.verify(presented))) return { token: presented };
  const query = url.searchParams.get('token') ?? undefined;
  if (query && req.method === 'GET' && (await policy.verify(query))) {
    url.searchParams.delete('token');
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      'Set-Cookie': `${TOKEN_COOKIE}=${encodeURIComponent(query)}; HttpOnly; SameSite=Strict; Path=/`,
      Location: `${url.pathname}${url.search}`,
    });
    res.end();
    return undefined;
  }
  sendJson(res, 401, {
    error:
      policy.tokenHint ??
      'this dashboard needs the token printed when it started: open the URL it printed, or send "Authorization: Bearer TOKEN"',
  });
  return undefined;
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

/** a Server-Sent Events stream: `send(event, data)`, a keep-alive comment, and cleanup when the browser leaves */
export function openEventStream(
  _req: IncomingMessage,
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
  // the response's close is the browser leaving (the request's own close fires once its body is read)
  res.on('close', () => {
    clearInterval(keepAlive);
    onClose();
  });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** serves a file of the built front end; unknown paths get index.html (the app routes in the browser) */
export function serveStatic(res: ServerResponse, root: string, pathname: string): void {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    throw new HttpError(400, `the path ${JSON.stringify(pathname.slice(0, 200))} is not valid percent-encoding`);
  }
  const rel = normalize(decoded).replace(/^([/\\])+/, '');
  let file = join(root, rel);
  if (!file.startsWith(root + sep) || !existsSync(file) || statSync(file).isDirectory())
    file = join(root, 'index.html');
  const immutable = rel.startsWith('assets/');
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  // a file that vanished between the check and the read ends this response, not the process
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}
