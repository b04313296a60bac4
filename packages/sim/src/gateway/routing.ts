// The Gateway data plane's routing decision, pure (docs/kubeairunway.md, "Gateway on the dev cluster"): which
// rule of which attached HTTPRoute a request matches, by the Gateway API's matching (path Exact/PathPrefix,
// headers and query parameters Exact, method; hostnames) and precedence (exact path, then the longest
// prefix, then method, then the most header and query matches, then the oldest route, then namespace/name,
// then rule order), and the body-based router's header: the request body's `model`.

import type { BackendRef as AttachBackendRef } from '../operators/gateway-attach.ts';

/** a rule's backendRef: the attachment rules' shape plus its weight */
export type BackendRef = AttachBackendRef & { weight?: number };

import { MODEL_NAME_HEADER as ROUTE_HEADER } from '@modelplane/apimachinery/wellknown';

/** the header the routes match, as Node spells request headers (lowercase) */
export const MODEL_NAME_HEADER = ROUTE_HEADER.toLowerCase();

export interface RouteMatch {
  path?: { type?: string; value?: string };
  headers?: Array<{ type?: string; name: string; value: string }>;
  queryParams?: Array<{ type?: string; name: string; value: string }>;
  method?: string;
}

/** a rule's filter; the data plane applies URLRewrite's path (the other filter types pass the request as is) */
export interface RouteFilter {
  type?: string;
  urlRewrite?: { path?: { type?: string; replacePrefixMatch?: string; replaceFullPath?: string } };
}

export interface RouteRule {
  matches?: RouteMatch[];
  backendRefs?: BackendRef[];
  filters?: RouteFilter[];
}

export interface AttachedRoute {
  namespace: string;
  name: string;
  /** RFC 3339; older routes win ties */
  creationTimestamp?: string;
  hostnames?: string[];
  rules: RouteRule[];
}

export interface RoutedRequest {
  method: string;
  path: string;
  /** header names lowercase */
  headers: Record<string, string | undefined>;
  query: URLSearchParams;
  host?: string;
}

export interface RouteDecision {
  route: AttachedRoute;
  rule: RouteRule;
  /** the match that selected the rule (a prefix rewrite replaces its path) */
  match: RouteMatch;
}

const DEFAULT_MATCH: RouteMatch = { path: { type: 'PathPrefix', value: '/' } };

function pathMatches(m: RouteMatch, path: string): boolean {
  const type = m.path?.type ?? 'PathPrefix';
  const value = m.path?.value ?? '/';
  if (type === 'Exact') return path === value;
  if (type !== 'PathPrefix') return false; // RegularExpression is implementation-specific: not supported
  const prefix = value.replace(/\/+$/, '');
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

function matches(m: RouteMatch, req: RoutedRequest): boolean {
  if (!pathMatches(m, req.path)) return false;
  if (m.method && m.method.toUpperCase() !== req.method.toUpperCase()) return false;
  for (const h of m.headers ?? [])
    if ((h.type ?? 'Exact') !== 'Exact' || req.headers[h.name.toLowerCase()] !== h.value) return false;
  for (const q of m.queryParams ?? [])
    if ((q.type ?? 'Exact') !== 'Exact' || req.query.get(q.name) !== q.value) return false;
  return true;
}

function hostnameMatches(hostnames: string[] | undefined, host: string | undefined): boolean {
  if (!hostnames?.length || host === undefined) return true;
  const h = host.replace(/:\d+$/, '').toLowerCase();
  return hostnames.some((n) => n === h || (n.startsWith('*.') && h.endsWith(n.slice(1))));
}

/** the Gateway API's precedence between two matching (route, match) pairs: negative = a wins */
function precedence(a: Candidate, b: Candidate): number {
  const exact = (c: Candidate) => ((c.match.path?.type ?? 'PathPrefix') === 'Exact' ? 1 : 0);
  const pathLength = (c: Candidate) => (c.match.path?.value ?? '/').length;
  return (
    exact(b) - exact(a) ||
    pathLength(b) - pathLength(a) ||
    (b.match.method ? 1 : 0) - (a.match.method ? 1 : 0) ||
    (b.match.headers?.length ?? 0) - (a.match.headers?.length ?? 0) ||
    (b.match.queryParams?.length ?? 0) - (a.match.queryParams?.length ?? 0) ||
    (a.route.creationTimestamp ?? '').localeCompare(b.route.creationTimestamp ?? '') ||
    `${a.route.namespace}/${a.route.name}`.localeCompare(`${b.route.namespace}/${b.route.name}`) ||
    a.ruleIndex - b.ruleIndex
  );
}

interface Candidate {
  route: AttachedRoute;
  rule: RouteRule;
  ruleIndex: number;
  match: RouteMatch;
}

/** the rule that serves `req`, or undefined (the Gateway answers 404) */
export function routeRequest(routes: readonly AttachedRoute[], req: RoutedRequest): RouteDecision | undefined {
  const candidates: Candidate[] = [];
  for (const route of routes) {
    if (!hostnameMatches(route.hostnames, req.host)) continue;
    route.rules.forEach((rule, ruleIndex) => {
      for (const match of rule.matches?.length ? rule.matches : [DEFAULT_MATCH])
        if (matches(match, req)) candidates.push({ route, rule, ruleIndex, match });
    });
  }
  const best = candidates.sort(precedence)[0];
  return best ? { route: best.route, rule: best.rule, match: best.match } : undefined;
}

/**
 * The path the backend gets: the rule's URLRewrite filter applied, as the Gateway API defines it.
 * ReplaceFullPath sets the whole path; ReplacePrefixMatch replaces the matched PathPrefix (on whole
 * segments) and keeps the rest, so `/ns/app/svc` rewritten to `/` sends `/ns/app/svc/v1/models` as
 * `/v1/models` and `/ns/app/svc` as `/`. Without a URLRewrite the path passes unchanged.
 */
export function rewrittenPath(decision: RouteDecision, path: string): string {
  const rewrite = decision.rule.filters?.find((f) => f.type === 'URLRewrite')?.urlRewrite?.path;
  if (rewrite?.type === 'ReplaceFullPath' && rewrite.replaceFullPath !== undefined) return rewrite.replaceFullPath;
  if (rewrite?.type !== 'ReplacePrefixMatch' || rewrite.replacePrefixMatch === undefined) return path;
  if ((decision.match.path?.type ?? 'PathPrefix') !== 'PathPrefix') return path;
  const prefix = (decision.match.path?.value ?? '/').replace(/\/+$/, '');
  const rest = path.slice(prefix.length);
  const joined = rewrite.replacePrefixMatch.replace(/\/+$/, '') + rest;
  return joined.startsWith('/') ? joined : `/${joined}`;
}

/** the body-based router: the `model` of a JSON request body, if any */
export function modelOfBody(body: Buffer, contentType: string | undefined): string | undefined {
  if (body.length === 0) return undefined;
  if (contentType && !/json/i.test(contentType)) return undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { model?: unknown };
    return typeof parsed?.model === 'string' ? parsed.model : undefined;
  } catch {
    return undefined;
  }
}

/** one backendRef by weight (`pick` in [0, 1)); weight 0 never serves */
export function pickBackend(backends: readonly BackendRef[], pick: number): BackendRef | undefined {
  const weighted = backends.filter((b) => (b.weight ?? 1) > 0);
  const total = weighted.reduce((n, b) => n + (b.weight ?? 1), 0);
  let at = pick * total;
  for (const b of weighted) {
    at -= b.weight ?? 1;
    if (at < 0) return b;
  }
  return weighted.at(-1);
}
