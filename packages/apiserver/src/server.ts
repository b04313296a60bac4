// The HTTP front: authentication, authorization, fault hooks, routing to discovery/OpenAPI/resource
// handlers, error shaping and the audit record of every request. Never lets an exception escape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseGoDuration } from '@modelplane/apimachinery';
import type { AuditLog } from './audit.ts';
import { authorizationAttributes } from './auth/attributes.ts';
import { forbidden } from './auth/forbidden.ts';
import { type Authenticator, type Authorizer, type AuthUser, allowAll } from './auth/types.ts';
import type { ServerCore } from './core.ts';
import { errors, StatusError } from './errors.ts';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  negotiateAggregated,
} from './handlers/discovery.ts';
import { handlePodLog } from './handlers/log.ts';
import { KUBE_VERSION } from './handlers/openapi.ts';
import { serveOpenApiV2 } from './handlers/openapi-v2.ts';
import type { ResourceRequest } from './handlers/request.ts';
import { handleResource } from './handlers/resources.ts';
import { checkRoute, endpointCapabilities } from './handlers/route.ts';
import { handleWatch, type WatchRegistry } from './handlers/watch.ts';
import { decodeBody, readBody } from './http/body.ts';
import { negotiateOutput } from './http/negotiate.ts';
import { parseRequestInfo, type RequestInfo, splitPath } from './http/request-info.ts';
import { writeError, writeJson } from './http/respond.ts';
import type { UserInfo } from './types.ts';

/** Runs before a request is served; may delay it or throw an StatusError (fault injection). */
export type RequestInterceptor = (user: UserInfo, info: RequestInfo) => Promise<void> | void;

/** Handles resources that are not stored objects (reviews, token requests); returns undefined to pass. */
export type VirtualHandler = (r: ResourceRequest) => Promise<number> | undefined;

/** an admin-only non-resource endpoint such as /debug/faults */
export type AdminEndpoint = (req: IncomingMessage, res: ServerResponse, path: string, body: unknown) => Promise<number>;

export interface HttpFrontParts {
  core: ServerCore;
  authenticator: Authenticator;
  audit: AuditLog;
  /** host:port as clients reach the server (it is known only once the socket listens) */
  serverAddress: () => string;
  /** the open watches (fault injection closes and stalls them) */
  watches: WatchRegistry;
  authorizer?: Authorizer;
  /** turns the authenticated user into the effective one (impersonation headers); throws 403 when not allowed */
  impersonate?: (user: AuthUser, req: IncomingMessage) => AuthUser;
  interceptors?: RequestInterceptor[];
  virtualHandlers?: VirtualHandler[];
  /** path prefix → handler */
  adminEndpoints?: Record<string, AdminEndpoint>;
}

export class HttpFront {
  readonly core: ServerCore;
  readonly watches: WatchRegistry;
  private readonly authenticator: Authenticator;
  private readonly audit: AuditLog;
  private readonly serverAddress: () => string;
  private readonly authorizer: Authorizer;
  private readonly impersonate: (user: AuthUser, req: IncomingMessage) => AuthUser;
  private readonly interceptors: readonly RequestInterceptor[];
  private readonly virtualHandlers: readonly VirtualHandler[];
  private readonly adminEndpoints: ReadonlyArray<[string, AdminEndpoint]>;

  constructor(parts: HttpFrontParts) {
    this.core = parts.core;
    this.watches = parts.watches;
    this.authenticator = parts.authenticator;
    this.audit = parts.audit;
    this.serverAddress = parts.serverAddress;
    this.authorizer = parts.authorizer ?? allowAll;
    this.impersonate = parts.impersonate ?? ((user) => user);
    this.interceptors = parts.interceptors ?? [];
    this.virtualHandlers = parts.virtualHandlers ?? [];
    this.adminEndpoints = Object.entries(parts.adminEndpoints ?? {});
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    const start = process.hrtime.bigint();
    let info: RequestInfo | undefined;
    let user: UserInfo | undefined;
    let finished = false;
    let deadline: NodeJS.Timeout | undefined;
    const auditAnnotations: Record<string, string> = {};
    const finish = (code: number) => {
      // (a request past its deadline is answered, and recorded, once)
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      const latencyMs = Number(process.hrtime.bigint() - start) / 1e6;
      this.audit.record({
        time: new Date().toISOString(),
        user: user?.username ?? 'system:anonymous',
        ...((user as AuthUser | undefined)?.impersonatedBy
          ? { impersonatedBy: (user as AuthUser).impersonatedBy!.username }
          : {}),
        verb: info?.verb ?? (req.method ?? '').toLowerCase(),
        resource: info?.isResourceRequest
          ? `${info.resource}${info.subresource ? `/${info.subresource}` : ''}`
          : (info?.path ?? req.url ?? ''),
        group: info?.group ?? '',
        namespace: info?.namespace ?? '',
        name: info?.name ?? '',
        code,
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        ...(req.url ? { requestURI: req.url } : {}),
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
        ...(Object.keys(auditAnnotations).length > 0 ? { annotations: auditAnnotations } : {}),
      });
    };
    const note = (i: RequestInfo, u?: UserInfo) => {
      info = i;
      user = u;
    };
    const arm = (ms: number) => {
      deadline = setTimeout(() => {
        if (!res.headersSent)
          finish(
            writeError(
              res,
              new StatusError(
                504,
                'Timeout',
                'Timeout: request did not complete within requested timeout - context deadline exceeded',
                {},
              ),
            ),
          );
      }, ms);
      deadline.unref();
    };
    this.serve(req, res, note, arm, auditAnnotations)
      .then(finish)
      .catch((err: unknown) => finish(writeError(res, err)));
  };

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    note: (i: RequestInfo, u?: UserInfo) => void,
    arm: (ms: number) => void,
    auditAnnotations: Record<string, string>,
  ): Promise<number> {
    const url = parseRequestUrl(req.url ?? '/');
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    note(info);
    // watches and logs stream for as long as they like; everything else gets kube-apiserver's deadline
    if (info.verb !== 'watch' && info.subresource !== 'log') arm(requestTimeoutMs(url.searchParams));
    if (isHealthPath(url.pathname)) return this.health(res);
    const authenticated = this.authenticator.authenticate(req);
    if (!authenticated) throw errors.unauthorized();
    note(info, authenticated);
    const user = this.impersonate(authenticated, req);
    note(info, user);
    for (const i of this.interceptors) await i(user, info);
    const attrs = authorizationAttributes(info, url.searchParams);
    // the audit record names the object a fieldSelector pins a list or watch to, as kube-apiserver's does
    if (attrs.name && attrs.name !== info.name) note({ ...info, name: attrs.name }, user);
    const decision = this.authorizer.authorize(user, attrs);
    if (!decision.allowed) throw forbidden(user, attrs, decision.reason);
    if (info.isResourceRequest) return this.resource(req, res, info, url, user, auditAnnotations);
    const admin = this.adminEndpoints.find(
      ([prefix]) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`),
    );
    if (admin) {
      if (!user.groups.includes('system:masters'))
        throw errors.forbidden(`User "${user.username}" cannot access ${url.pathname}: admin only`);
      const buf = await readBody(req);
      const body = buf.length ? decodeBody(buf, req.headers['content-type'] ?? 'application/json') : undefined;
      return admin[1](req, res, url.pathname, body);
    }
    return this.nonResource(req, res, url);
  }

  /** healthz, livez and readyz: a server that answers at all is live and ready (it has no warm-up) */
  private health(res: ServerResponse): number {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('ok');
    return 200;
  }

  private nonResource(
    req: IncomingMessage,
    res: ServerResponse,
    url: { pathname: string; searchParams: URLSearchParams },
  ): number {
    // go-restful trims trailing slashes; an empty segment anywhere else matches no route
    const parts = splitPath(url.pathname);
    if (parts.includes('') || url.pathname.startsWith('//')) throw errors.notFoundPath();
    const p = `/${parts.join('/')}`;
    const accept = req.headers.accept;
    const reg = this.core.registry;
    // (written with WriteRawJSON, which indents, whatever the Accept header says)
    if (p === '/version')
      return json(
        res,
        JSON.stringify(
          {
            ...KUBE_VERSION,
            gitCommit: 'modelplane',
            gitTreeState: 'clean',
            buildDate: '2026-01-01T00:00:00Z',
            goVersion: 'go1.23.0',
            compiler: 'gc',
          },
          null,
          2,
        ),
      );
    if (p === '/api' || p === '/apis') {
      const agg = negotiateAggregated(accept);
      if (agg) {
        const body = aggregatedDiscovery(reg, p === '/api', agg);
        return json(res, body, `application/json;g=apidiscovery.k8s.io;v=${agg};as=APIGroupDiscoveryList`);
      }
      return json(res, p === '/api' ? apiVersions(this.serverAddress()) : apiGroupList(reg));
    }
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = apiResourceList(reg, '', parts[1]!);
      if (doc) return json(res, doc);
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = apiGroupDoc(reg, parts[1]!);
      if (doc) return json(res, doc);
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = apiResourceList(reg, parts[1]!, parts[2]!);
      if (doc) return json(res, doc);
    }
    if (p === '/openapi/v2') return serveOpenApiV2(req, res);
    if (p === '/openapi/v3') return json(res, this.core.openapi.index());
    if (parts[0] === 'openapi' && parts[1] === 'v3') {
      const doc = this.core.openapi.doc(parts.slice(2).join('/'));
      if (doc) {
        const immutable = url.searchParams.get('hash') === doc.hash;
        writeJson(res, 200, doc.body, {
          ETag: `"${doc.hash}"`,
          ...(immutable ? { 'Cache-Control': 'public, immutable' } : {}),
        });
        return 200;
      }
    }
    throw errors.notFoundPath();
  }

  private async resource(
    req: IncomingMessage,
    res: ServerResponse,
    info: RequestInfo,
    url: { searchParams: URLSearchParams; rawQuery: string },
    user: UserInfo,
    auditAnnotations: Record<string, string>,
  ): Promise<number> {
    // (a leading `//` never reaches the API handlers: no route prefix matches it)
    const rt = info.path.startsWith('//')
      ? undefined
      : this.core.registry.lookup(info.group, info.version, info.resource ?? '');
    if (!rt) throw errors.notFoundPath();
    checkRoute(info, rt, req.method ?? 'GET', req.headers);
    const negotiate = (accept: string | undefined) =>
      negotiateOutput(accept, endpointCapabilities(rt, info.version), {
        userAgent: req.headers['user-agent'],
        query: url.rawQuery,
      });
    // pods/log too: kube-apiserver negotiates before it streams the text/plain log, so a client must accept
    // one of the API's media types (kubectl sends `application/json, */*`) or get a 406
    const out = negotiate(req.headers.accept);
    const r: ResourceRequest = {
      core: this.core,
      req,
      res,
      info,
      query: url.searchParams,
      user,
      rt,
      out,
      auditAnnotations,
    };
    for (const v of this.virtualHandlers) {
      const handled = v(r);
      if (handled) return handled;
    }
    if (info.verb === 'watch') return handleWatch(r, this.watches);
    if (info.subresource === 'log' && rt.subresources.log && info.verb === 'get') return handlePodLog(r);
    return handleResource(r);
  }
}

/**
 * The request target split like Go's url.ParseRequestURI: the path percent-decoded as a whole (so `%2F` is a
 * separator, as kube-apiserver sees it), `.`/`..` kept as they are (never resolved: `…/configmaps/..` must not
 * address the namespace), the query left raw for URLSearchParams. A malformed escape is a 400.
 */
function parseRequestUrl(raw: string): { pathname: string; searchParams: URLSearchParams; rawQuery: string } {
  const q = raw.indexOf('?');
  const rawPath = q >= 0 ? raw.slice(0, q) : raw;
  const rawQuery = q >= 0 ? raw.slice(q + 1) : '';
  if (!rawPath.startsWith('/')) throw errors.badRequest(`malformed request path: ${rawPath}`);
  return {
    pathname: rawPath.includes('%') ? unescapePath(rawPath) : rawPath,
    searchParams: new URLSearchParams(rawQuery),
    rawQuery,
  };
}

function unescapePath(rawPath: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < rawPath.length; i++) {
    const c = rawPath.charCodeAt(i);
    if (c === 0x25) {
      const hex = rawPath.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        throw errors.badRequest(`malformed request path: invalid URL escape "%${hex}"`);
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(rawPath[i]!, 'latin1'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** kube-apiserver's --request-timeout default */
const REQUEST_TIMEOUT_MS = 60_000;

/** WithRequestDeadline: `?timeout=` shortens the deadline (never lengthens it); a malformed one is a 400. */
function requestTimeoutMs(query: URLSearchParams): number {
  const value = query.get('timeout');
  if (!value) return REQUEST_TIMEOUT_MS;
  const parsed = parseGoDuration(value);
  if ('error' in parsed) throw errors.badRequest(`invalid timeout specified in the request URL - ${parsed.error}`);
  const ms = Number(parsed.ns) / 1e6;
  return ms > 0 && ms < REQUEST_TIMEOUT_MS ? Math.max(ms, 1) : REQUEST_TIMEOUT_MS;
}

function isHealthPath(p: string): boolean {
  return /^\/(healthz|livez|readyz)(\/.*)?$/.test(p);
}

function json(res: ServerResponse, body: unknown, contentType = 'application/json'): number {
  writeJson(res, 200, body, {}, contentType);
  return 200;
}
