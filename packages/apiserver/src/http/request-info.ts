// Parses a request path the way kube-apiserver's RequestInfoFactory does, into the resource, namespace,
// name, subresource and verb that authorization, audit and the handlers work from. The path is the decoded
// one (Go's URL.Path: `%2F` is a slash like any other); leading and trailing slashes are trimmed but empty
// segments inside are kept, so `/api/v1/namespaces//pods` addresses pods in namespace "" (all namespaces).

export interface RequestInfo {
  isResourceRequest: boolean;
  /** the decoded path */
  path: string;
  verb: string;
  apiPrefix?: 'api' | 'apis';
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** the segments from the resource on (`resource/name/subresource/…`), or all of them for non-resource paths */
  parts: string[];
  /** the deprecated `/watch/` path form was used */
  watchPath?: boolean;
}

const methodVerbs: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
  GET: 'get',
  HEAD: 'get',
};

/** strings.Split(strings.Trim(path, "/"), "/"), and nothing for the root */
export function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** strconv.ParseBool, for the boolean query parameters kube-apiserver decodes */
export function goBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  return undefined;
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const all = splitPath(path);
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: (method || 'GET').toLowerCase(),
    group: '',
    version: '',
    parts: all,
  };
  if (all.length < 3 || (all[0] !== 'api' && all[0] !== 'apis')) return info;
  let rest: string[];
  if (all[0] === 'api') {
    info.apiPrefix = 'api';
    info.version = all[1]!;
    rest = all.slice(2);
  } else {
    if (all.length < 4) return info; // /apis/g/v is discovery
    info.apiPrefix = 'apis';
    info.group = all[1]!;
    info.version = all[2]!;
    rest = all.slice(3);
  }
  info.isResourceRequest = true;
  let verb = methodVerbs[method] ?? '';
  if (rest[0] === 'watch' && rest.length >= 2) {
    verb = 'watch';
    info.watchPath = true;
    rest = rest.slice(1);
  }
  // `namespaces/{ns}/{resource}…` addresses a namespaced resource; `namespaces/{name}[/status|/finalize]` the Namespace itself.
  if (rest[0] === 'namespaces') {
    if (rest.length > 1) {
      info.namespace = rest[1];
      if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
    }
  }
  info.parts = rest;
  info.resource = rest[0];
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 3) info.subresource = rest[2];
  if (!info.name && verb === 'get') verb = 'list';
  if (!info.name && verb === 'delete') verb = 'deletecollection';
  if (verb === 'list' && goBool(query.get('watch') ?? '') === true) verb = 'watch';
  info.verb = verb;
  return info;
}
