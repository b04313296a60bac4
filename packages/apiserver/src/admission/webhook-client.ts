// The HTTPS client kube-apiserver uses for admission and conversion webhooks: `url` or `service` client
// configs, `caBundle` verification against the URL host or the Service DNS name, a hard deadline that
// covers connect, TLS, request and response body, and client-go's error texts (kubectl users see them
// inside `failed calling webhook "x": …` and `conversion webhook for … failed: …`).
import type { ClientRequest } from 'node:http';
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import type { ServiceEndpoints } from './service-endpoints.ts';

export interface WebhookClientConfig {
  url?: string;
  service?: { namespace?: string; name?: string; path?: string; port?: number };
  /** base64 of PEM certificates; empty means the system trust roots */
  caBundle?: string;
}

/**
 * A webhook that could not be called or answered unusably. `stage` tells which of kube's wrappers applies:
 * `client` (`could not get REST client: …`) or `call` (`failed to call webhook: …`).
 */
export class WebhookCallError extends Error {
  constructor(
    readonly stage: 'client' | 'call',
    message: string,
  ) {
    super(message);
  }
}

export interface WebhookTarget {
  /** the URL as kube-apiserver prints it, `?timeout=` included */
  shownUrl: string;
  dialUrl: URL;
  servername: string | undefined;
  ca: string | undefined;
}

export interface ResolveDeps {
  endpoints: ServiceEndpoints;
  /** whether a Service object exists, for kube's "no endpoints" versus "not found" distinction */
  serviceExists?: (namespace: string, name: string) => boolean;
}

/** Keep-alive connections shared by every webhook; Node pools them per host, port, CA and server name. */
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Go's time.Duration String() for a whole number of seconds, as client-go writes `?timeout=`. */
function goSeconds(ms: number): string {
  return `${Math.max(1, Math.ceil(ms / 1000))}s`;
}

function decodeCaBundle(caBundle: string | undefined): string | undefined {
  if (!caBundle) return undefined;
  const pem = Buffer.from(caBundle, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new WebhookCallError('client', 'unable to load root certificates: unable to parse bytes as PEM block');
  }
  return pem;
}

/** Resolves a client config to the address dialled here and the URL kube would show. */
export function resolveTarget(cfg: WebhookClientConfig, timeoutMs: number, deps: ResolveDeps): WebhookTarget {
  const ca = decodeCaBundle(cfg.caBundle);
  const timeoutQuery = `timeout=${goSeconds(timeoutMs)}`;
  if (cfg.url) {
    let u: URL;
    try {
      u = new URL(cfg.url);
    } catch {
      throw new WebhookCallError('client', `parse "${cfg.url}": invalid URL`);
    }
    if (u.protocol !== 'https:')
      throw new WebhookCallError('client', `webhook URL ${JSON.stringify(cfg.url)} must use the https scheme`);
    u.search = u.search ? `${u.search}&${timeoutQuery}` : `?${timeoutQuery}`;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    return { shownUrl: u.toString(), dialUrl: u, servername: isIP(host) ? undefined : host, ca };
  }
  const svc = cfg.service;
  if (!svc?.name || !svc.namespace)
    throw new WebhookCallError('client', 'webhook clientConfig must set either url or service');
  const port = svc.port ?? 443;
  const host = `${svc.name}.${svc.namespace}.svc`;
  let path = svc.path ?? '';
  if (path && !path.startsWith('/')) path = `/${path}`;
  const shownUrl = `https://${host}:${port}${path || '/'}?${timeoutQuery}`;
  const base = deps.endpoints.resolve(svc.namespace, svc.name, port);
  if (!base) {
    const exists = deps.serviceExists?.(svc.namespace, svc.name) ?? false;
    const why = exists ? `no endpoints available for service "${svc.name}"` : `service "${svc.name}" not found`;
    throw new WebhookCallError('call', `Post "${shownUrl}": ${why}`);
  }
  let dialUrl: URL;
  try {
    dialUrl = new URL(base);
  } catch {
    throw new WebhookCallError(
      'client',
      `the address registered for service ${svc.namespace}/${svc.name}:${port} is not a URL: ${JSON.stringify(base)}`,
    );
  }
  if (dialUrl.protocol !== 'https:')
    throw new WebhookCallError(
      'client',
      `the address registered for service ${svc.namespace}/${svc.name}:${port} must use https, got ${JSON.stringify(base)}`,
    );
  dialUrl.pathname = path || '/';
  dialUrl.search = `?${timeoutQuery}`;
  return { shownUrl, dialUrl, servername: host, ca };
}

interface RawResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * POSTs a JSON body and decodes the JSON object answered, within `timeoutMs` all told. Throws
 * WebhookCallError with client-go's message for transport failures, error statuses and undecodable bodies.
 */
export async function postJson(
  target: WebhookTarget,
  body: unknown,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const payload = Buffer.from(JSON.stringify(body));
  const deadline = Date.now() + timeoutMs;
  let res: RawResponse;
  try {
    res = await send(target, payload, deadline);
  } catch (e) {
    const { error, reused } = e as { error: NodeJS.ErrnoException; reused: boolean };
    // A pooled connection the server closed while idle: Go's transport retries these, so do we.
    if (reused && isResetError(error) && Date.now() < deadline) {
      try {
        res = await send(target, payload, deadline);
      } catch (e2) {
        throw transportError(target, (e2 as { error: NodeJS.ErrnoException }).error);
      }
    } else {
      throw transportError(target, error);
    }
  }
  return decodeResponse(res);
}

class DeadlineExceeded extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

function send(target: WebhookTarget, payload: Buffer, deadline: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let reused = false;
    const fail = (error: Error) => reject({ error, reused });
    let req: ClientRequest;
    try {
      req = request(target.dialUrl, {
        method: 'POST',
        agent,
        ...(target.ca ? { ca: target.ca } : {}),
        ...(target.servername ? { servername: target.servername } : {}),
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, */*',
          'User-Agent': 'kube-apiserver-admission',
          'Content-Length': payload.length,
        },
      });
    } catch (e) {
      fail(e as Error);
      return;
    }
    const timer = setTimeout(() => req.destroy(new DeadlineExceeded()), Math.max(0, deadline - Date.now()));
    req.on('socket', () => {
      reused = req.reusedSocket;
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`response body larger than ${MAX_RESPONSE_BYTES} bytes`));
        else chunks.push(c);
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks),
        });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        fail(err);
      });
    });
    req.end(payload);
  });
}

function isResetError(e: NodeJS.ErrnoException): boolean {
  return e.code === 'ECONNRESET' || e.code === 'EPIPE' || e.message === 'socket hang up';
}

const UNKNOWN_AUTHORITY = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
]);

/** Node's transport errors in Go's words, wrapped as net/http wraps them: `Post "<url>": <cause>`. */
function transportError(
  target: WebhookTarget,
  e: NodeJS.ErrnoException & { cert?: { subjectaltname?: string } },
): WebhookCallError {
  const host = target.dialUrl.hostname;
  const port = target.dialUrl.port || '443';
  let cause: string;
  if (e instanceof DeadlineExceeded) cause = 'context deadline exceeded';
  else if (e.code === 'ECONNREFUSED') cause = `dial tcp ${host}:${port}: connect: connection refused`;
  else if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') cause = `dial tcp: lookup ${host}: no such host`;
  else if (e.code && UNKNOWN_AUTHORITY.has(e.code))
    cause = 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  else if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // Go lists the DNS names when checking a name and the IP addresses when checking an IP
    const wanted = target.servername ?? host;
    const prefix = isIP(wanted) ? 'IP Address:' : 'DNS:';
    const names = (e.cert?.subjectaltname ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.startsWith(prefix))
      .map((s) => s.slice(prefix.length));
    cause = `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${wanted}`;
  } else if (e.code === 'CERT_HAS_EXPIRED' || e.code === 'CERT_NOT_YET_VALID')
    cause = 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  else if (e.code === 'EPROTO' && /wrong version number|packet length too long/i.test(e.message))
    cause = 'http: server gave HTTP response to HTTPS client';
  else if (isResetError(e)) cause = 'EOF';
  else cause = e.message;
  return new WebhookCallError('call', `Post "${target.shownUrl}": ${cause}`);
}

/** client-go's NewGenericServerResponse texts for a non-2xx answer that is not a Status object. */
function genericStatusMessage(code: number, text: string): string {
  switch (code) {
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
      return 'the server does not allow access to the requested resource';
    case 404:
      return 'the server could not find the requested resource';
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 409:
      return 'the server reported a conflict';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    case 500:
      return `an error on the server (${JSON.stringify(text || 'unknown')}) has prevented the request from succeeding`;
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    default:
      return `the server responded with the status code ${code} but did not return more information`;
  }
}

function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === '' || media === 'application/json' || media.endsWith('+json');
}

/** Go's encoding/json error for text that is not JSON (the common cases). */
function goJsonError(text: string): string {
  const t = text.trimStart();
  if (t === '') return 'unexpected end of JSON input';
  const c = t[0]!;
  if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c}' looking for beginning of value`;
  return 'invalid JSON';
}

function decodeResponse(res: RawResponse): Record<string, unknown> {
  const text = res.body.toString('utf8');
  const json = isJsonType(res.contentType);
  if (res.status < 200 || res.status > 206) {
    if (json) {
      try {
        const status = JSON.parse(text) as Record<string, unknown>;
        if (status && status.kind === 'Status' && typeof status.message === 'string' && status.message) {
          throw new WebhookCallError('call', status.message);
        }
      } catch (e) {
        if (e instanceof WebhookCallError) throw e;
      }
    }
    throw new WebhookCallError('call', genericStatusMessage(res.status, text.trim()));
  }
  if (!json) throw new WebhookCallError('call', `serializer for ${res.contentType} doesn't exist`);
  if (res.body.length === 0)
    throw new WebhookCallError(
      'call',
      `0-length response with status code: ${res.status} and content type: ${res.contentType || 'application/json'}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WebhookCallError('call', `couldn't get version/kind; json parse error: ${goJsonError(text)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WebhookCallError(
      'call',
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const obj = parsed as Record<string, unknown>;
  if (typeof obj.kind !== 'string' || obj.kind === '')
    throw new WebhookCallError('call', `Object 'Kind' is missing in '${text.trim()}'`);
  return obj;
}
