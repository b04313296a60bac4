// Kubernetes' CEL URL library: url(), isURL() and getScheme/getHost/getHostname/getPort/getEscapedPath/
// getQuery. kube parses with Go's url.ParseRequestURI, which accepts only an absolute URI with a
// hierarchical part (`scheme:/...`) or an absolute path (`/...`), keeps any `#` in the path or query (no
// fragment split) and rejects control characters, bad %-escapes, bad hosts and non-numeric ports.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';

export class CelURL {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawQuery: string,
  ) {}

  hostname(): string {
    const h = this.host;
    if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
    const colon = h.lastIndexOf(':');
    return colon >= 0 ? h.slice(0, colon) : h;
  }

  port(): string {
    const h = this.host;
    const close = h.startsWith('[') ? h.indexOf(']') : -1;
    const colon = h.lastIndexOf(':');
    return colon > close ? h.slice(colon + 1) : '';
  }

  escapedPath(): string {
    return this.path;
  }

  query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (!this.rawQuery) return out;
    for (const pair of this.rawQuery.split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const eq = pair.indexOf('=');
      const key = unescapeQuery(eq < 0 ? pair : pair.slice(0, eq));
      const value = unescapeQuery(eq < 0 ? '' : pair.slice(eq + 1));
      if (key === undefined || value === undefined) continue;
      const list = out.get(key);
      if (list) list.push(value);
      else out.set(key, [value]);
    }
    return out;
  }

  equals(other: unknown): boolean {
    return other instanceof CelURL && other.toString() === this.toString();
  }

  toString(): string {
    const authority = this.scheme ? `${this.scheme}:${this.host ? `//${this.host}` : ''}` : '';
    return `${authority}${this.path}${this.rawQuery ? `?${this.rawQuery}` : ''}`;
  }
}

function unescapeQuery(s: string): string | undefined {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

const BAD_ESCAPE = /%(?![0-9a-fA-F]{2})/;
const HOST_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/;

function checkHost(host: string): string | undefined {
  let name = host;
  let port = '';
  if (host.startsWith('[')) {
    const close = host.indexOf(']');
    if (close < 0) return "missing ']' in host";
    const after = host.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return `invalid port ${JSON.stringify(after)} after host`;
    port = after.slice(1);
    name = '';
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) [name, port] = [host.slice(0, colon), host.slice(colon + 1)];
  }
  if (!/^\d*$/.test(port)) return `invalid port ${JSON.stringify(`:${port}`)} after host`;
  if (!HOST_CHARS.test(name) || BAD_ESCAPE.test(name)) return `invalid character in host name ${JSON.stringify(name)}`;
  return undefined;
}

/** Go url.ParseRequestURI; returns the error text on failure */
export function parseURL(raw: string): CelURL | string {
  const fail = (why: string) => `parse ${JSON.stringify(raw)}: ${why}`;
  if (raw === '') return fail('empty url');
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  let rest = raw;
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = raw.slice(m[0].length);
  } else if (raw.startsWith(':')) {
    return fail('missing protocol scheme');
  }
  const q = rest.indexOf('?');
  const rawQuery = q >= 0 ? rest.slice(q + 1) : '';
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) return fail('invalid URI for request');
  let host = '';
  if (scheme && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
    host = authority.slice(authority.lastIndexOf('@') + 1);
    const bad = checkHost(host);
    if (bad) return fail(bad);
  }
  const badEscape = BAD_ESCAPE.exec(rest);
  if (badEscape) return fail(`invalid URL escape ${JSON.stringify(rest.slice(badEscape.index, badEscape.index + 3))}`);
  return new CelURL(scheme, host, rest, rawQuery);
}

function urlOrThrow(raw: string): CelURL {
  const u = parseURL(raw);
  if (typeof u === 'string') throw new EvaluationError(`URL parse error during conversion from string: ${u}`);
  return u;
}

export function registerURLLibrary(env: Environment): void {
  env.registerType('kubernetes.URL', CelURL);
  env.registerFunction('url(string): kubernetes.URL', urlOrThrow);
  env.registerFunction('isURL(string): bool', (s: string) => typeof parseURL(s) !== 'string');
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: CelURL) => u.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: CelURL) => u.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: CelURL) => u.hostname());
  env.registerFunction('kubernetes.URL.getPort(): string', (u: CelURL) => u.port());
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: CelURL) => u.escapedPath());
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelURL) => u.query());
  env.registerFunction('string(kubernetes.URL): string', (u: CelURL) => u.toString());
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: CelURL, b: CelURL) => a.equals(b));
}
