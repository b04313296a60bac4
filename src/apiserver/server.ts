// The HTTP front: authentication, authorization, fault hooks, routing to discovery/OpenAPI/resource
// handlers, error shaping and the audit record of every request. Never lets an exception escape.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditLog } from './audit.ts';
import { type AuthUser, type Authenticator, type Authorizer, allowAll } from './auth/types.ts';
import { authorizationAttributes } from './auth/attributes.ts';
import { forbidden } from './auth/forbidden.ts';
import type { ServerCore } from './core.ts';
import { errors } from './errors.ts';
import { aggregatedDiscovery, apiGroupDoc, apiGroupList, apiResourceList, apiVersions, negotiateAggregated } from './handlers/discovery.ts';
import { handlePodLog } from './handlers/log.ts';
import { KUBE_VERSION } from './handlers/openapi.ts';
import { type ResourceRequest, handleResource } from './handlers/resources.ts';
import { WatchRegistry, handleWatch } from './handlers/watch.ts';
import { parseRequestInfo, type RequestInfo } from './http/request-info.ts';
import { decodeBody, readBody } from './http/body.ts';
import { writeError, writeJson } from './http/respond.ts';
import type { UserInfo } from './types.ts';

/** Runs before a request is served; may delay it or throw an ApiError (fault injection). */
export type RequestInterceptor = (user: UserInfo, info: RequestInfo) => Promise<void> | void;

/** Handles resources that are not stored objects (reviews, token requests); returns undefined to pass. */
export type VirtualHandler = (r: ResourceRequest) => Promise<number> | undefined;

export class HttpFront {
  readonly watches = new WatchRegistry();
  authorizer: Authorizer = allowAll;
  /** turns the authenticated user into the effective one (impersonation headers); throws 403 when not allowed */
  impersonate: (user: AuthUser, req: IncomingMessage) => AuthUser = (user) => user;
  interceptors: RequestInterceptor[] = [];
  virtualHandlers: VirtualHandler[] = [];
  /** admin-only non-resource endpoints such as /debug/faults */
  adminEndpoints = new Map<string, (req: IncomingMessage, res: ServerResponse, path: string, body: unknown) => Promise<number>>();
  ready = true;

  constructor(
    readonly core: ServerCore,
    readonly authenticator: Authenticator,
    readonly audit: AuditLog,
    private readonly serverAddress: () => string,
  ) {}

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    const start = process.hrtime.bigint();
    let info: RequestInfo | undefined;
    let user: UserInfo | undefined;
    const finish = (code: number) => {
      const latencyMs = Number(process.hrtime.bigint() - start) / 1e6;
      this.audit.record({
        time: new Date().toISOString(),
        user: user?.username ?? 'system:anonymous',
        ...((user as AuthUser | undefined)?.impersonatedBy ? { impersonatedBy: (user as AuthUser).impersonatedBy!.username } : {}),
        verb: info?.verb ?? (req.method ?? '').toLowerCase(),
        resource: info?.isResourceRequest ? `${info.resource}${info.subresource ? `/${info.subresource}` : ''}` : (info?.path ?? req.url ?? ''),
        group: info?.group ?? '',
        namespace: info?.namespace ?? '',
        name: info?.name ?? '',
        code,
        latencyMs: Math.round(latencyMs * 1000) / 1000,
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
      });
    };
    const note = (i: RequestInfo, u?: UserInfo) => {
      info = i;
      user = u;
    };
    this.serve(req, res, note)
      .then(finish)
      .catch((err: unknown) => finish(writeError(res, err)));
  };

  private async serve(req: IncomingMessage, res: ServerResponse, note: (i: RequestInfo, u?: UserInfo) => void): Promise<number> {
    const url = parseRequestUrl(req.url ?? '/');
    const info = parseRequestInfo(req.method ?? 'GET', url.pathname, url.searchParams);
    note(info);
    if (isHealthPath(url.pathname)) return this.health(url.pathname, res);
    const authenticated = this.authenticator.authenticate(req);
    if (!authenticated) throw errors.unauthorized();
    note(info, authenticated);
    const user = this.impersonate(authenticated, req);
    note(info, user);
    for (const i of this.interceptors) await i(user, info);
    const attrs = authorizationAttributes(info, url.searchParams);
    const decision = this.authorizer.authorize(user, attrs);
    if (!decision.allowed) throw forbidden(user, attrs, decision.reason);
    if (info.isResourceRequest) return this.resource(req, res, info, url.searchParams, user);
    const admin = [...this.adminEndpoints].find(([prefix]) => url.pathname === prefix || url.pathname.startsWith(`${prefix}/`));
    if (admin) {
      if (!user.groups.includes('system:masters')) throw errors.forbidden(`User "${user.username}" cannot access ${url.pathname}: admin only`);
      const buf = await readBody(req);
      const body = buf.length ? decodeBody(buf, req.headers['content-type'] ?? 'application/json') : undefined;
      return admin[1](req, res, url.pathname, body);
    }
    return this.nonResource(req, res, url);
  }

  private health(path: string, res: ServerResponse): number {
    const ok = path.startsWith('/readyz') ? this.ready : true;
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end(ok ? 'ok' : 'not ready');
    return ok ? 200 : 500;
  }

  private nonResource(req: IncomingMessage, res: ServerResponse, url: { pathname: string; searchParams: URLSearchParams }): number {
    const p = url.pathname.replace(/\/+$/, '') || '/';
    const accept = req.headers.accept;
    const reg = this.core.registry;
    if (p === '/version') return json(res, { ...KUBE_VERSION, gitCommit: 'modelplane', gitTreeState: 'clean', buildDate: '2026-01-01T00:00:00Z', goVersion: 'go1.23.0', compiler: 'gc' });
    if (p === '/api' || p === '/apis') {
      const agg = negotiateAggregated(accept);
      if (agg) {
        const body = aggregatedDiscovery(reg, p === '/api', agg);
        return json(res, body, `application/json;g=apidiscovery.k8s.io;v=${agg};as=APIGroupDiscoveryList`);
      }
      return json(res, p === '/api' ? apiVersions(this.serverAddress()) : apiGroupList(reg));
    }
    const parts = p.split('/').filter(Boolean);
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
    if (p === '/openapi/v3') return json(res, this.core.openapi.index());
    if (parts[0] === 'openapi' && parts[1] === 'v3') {
      const doc = this.core.openapi.doc(parts.slice(2).join('/'));
      if (doc) {
        const immutable = url.searchParams.get('hash') === doc.hash;
        writeJson(res, 200, doc.body, { ETag: `"${doc.hash}"`, ...(immutable ? { 'Cache-Control': 'public, immutable' } : {}) });
        return 200;
      }
    }
    throw errors.notFoundPath(p);
  }

  private async resource(req: IncomingMessage, res: ServerResponse, info: RequestInfo, query: URLSearchParams, user: UserInfo): Promise<number> {
    const rt = this.core.registry.lookup(info.group, info.version, info.resource ?? '');
    if (!rt) throw errors.notFoundPath(info.path);
    // A namespaced resource addressed without a namespace is only valid for list/watch across namespaces,
    // and a cluster-scoped one never takes a namespace (except Namespaces themselves).
    if (rt.namespaced && !info.namespace && info.name) throw errors.notFoundPath(info.path);
    if (rt.namespaced && !info.namespace && info.verb === 'create') throw errors.notFoundPath(info.path);
    if (!rt.namespaced && info.namespace && rt.plural !== 'namespaces') throw errors.notFoundPath(info.path);
    const r: ResourceRequest = { core: this.core, req, res, info, query, user, rt };
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
 * The path exactly as sent: WHATWG URL parsing would resolve `.`/`..` segments (also percent-encoded
 * ones), turning `…/configmaps/..` into the namespace itself. kube-apiserver refuses such paths.
 */
function parseRequestUrl(raw: string): { pathname: string; searchParams: URLSearchParams } {
  const q = raw.indexOf('?');
  const pathname = q >= 0 ? raw.slice(0, q) : raw;
  if (!pathname.startsWith('/')) throw errors.badRequest(`malformed request path: ${pathname}`);
  for (const seg of pathname.split('/')) {
    let decoded = seg;
    // (only a segment with a percent sign can decode to anything but itself)
    if (seg.includes('%')) {
      try {
        decoded = decodeURIComponent(seg);
      } catch {
        throw errors.badRequest(`malformed request path: invalid percent-encoding in "${seg}"`);
      }
    }
    if (decoded === '.' || decoded === '..') throw errors.badRequest(`invalid request path ${pathname}: "." and ".." segments are not allowed`);
  }
  return { pathname, searchParams: new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '') };
}

function isHealthPath(p: string): boolean {
  return /^\/(healthz|livez|readyz)(\/.*)?$/.test(p);
}

function json(res: ServerResponse, body: unknown, contentType = 'application/json'): number {
  writeJson(res, 200, body, {}, contentType);
  return 200;
}
