// Parses a request path the way kube-apiserver's RequestInfoFactory does, into the resource, namespace,
// name, subresource and verb that authorization, audit and the handlers work from.

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix?: 'api' | 'apis';
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  parts: string[];
}

const methodVerbs: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete', GET: 'get', HEAD: 'get' };

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  const info: RequestInfo = { isResourceRequest: false, path, verb: (method || 'GET').toLowerCase(), group: '', version: '', parts };
  if (parts[0] !== 'api' && parts[0] !== 'apis') return info;
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length < 3) return info; // /api, /api/v1 are discovery
    info.apiPrefix = 'api';
    info.version = parts[1]!;
    rest = parts.slice(2);
  } else {
    if (parts.length < 4) return info; // /apis, /apis/g, /apis/g/v are discovery
    info.apiPrefix = 'apis';
    info.group = parts[1]!;
    info.version = parts[2]!;
    rest = parts.slice(3);
  }
  info.isResourceRequest = true;
  let verb = methodVerbs[method] ?? method.toLowerCase();
  // `namespaces/{ns}/{resource}…` addresses a namespaced resource; `namespaces/{name}[/status]` the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    info.namespace = rest[1];
    if (rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  info.resource = rest[0];
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 3) info.subresource = rest[2];
  if (verb === 'get' && !info.name) {
    verb = query.get('watch') === 'true' || query.get('watch') === '1' ? 'watch' : 'list';
  } else if (verb === 'delete' && !info.name) {
    verb = 'deletecollection';
  }
  if (verb === 'get' && (query.get('watch') === 'true' || query.get('watch') === '1')) verb = 'watch';
  info.verb = verb;
  return info;
}
