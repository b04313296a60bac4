// Which resource paths exist and which methods they take, as kube-apiserver routes them. Built-in kinds are
// go-restful routes: a path that matches none is a 404, a method the route lacks a 405, an Accept that names
// none of its media types a 406 (all with go-restful's messages). Custom resources go through the CRD
// handler instead, which routes on the parsed request info alone: an unknown subresource is a NotFound for
// the object, an unsupported verb "<verb> is not supported on resources of kind …", and trailing segments
// after a known subresource are ignored.
import { errors, qualifiedResource, StatusError } from '../errors.ts';
import type { EndpointCapabilities } from '../http/negotiate.ts';
import { responseMessage } from '../http/protobuf/encode.ts';
import type { RequestInfo } from '../http/request-info.ts';
import { groupVersion, type ResourceType } from '../resource-types/resource-type.ts';

const capabilities = new WeakMap<ResourceType, Map<string, EndpointCapabilities>>();

/** What a resource endpoint can answer in: custom resources (and CRDs, whose descriptors kubectl lacks) no protobuf. */
export function endpointCapabilities(rt: ResourceType, version: string): EndpointCapabilities {
  let byVersion = capabilities.get(rt);
  if (!byVersion) capabilities.set(rt, (byVersion = new Map()));
  let caps = byVersion.get(version);
  if (!caps) {
    caps = {
      protobuf: rt.builtin && responseMessage(groupVersion(rt.group, version), rt.kind) !== undefined,
      conversions: true,
    };
    byVersion.set(version, caps);
  }
  return caps;
}

const ALL_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
/** media types a go-restful route produces (collection GETs also list the watch stream types) */
const PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const STREAM_PRODUCES = ['application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];

const SUBRESOURCE_METHODS: Record<string, string[]> = {
  status: ['GET', 'PUT', 'PATCH'],
  scale: ['GET', 'PUT', 'PATCH'],
  log: ['GET'],
  token: ['POST'],
  finalize: ['PUT'],
};

function hasSubresource(rt: ResourceType, sub: string): boolean {
  if (sub === 'finalize') return rt.group === '' && rt.plural === 'namespaces';
  if (sub === 'status') return rt.subresources.status;
  if (sub === 'scale') return rt.subresources.scale !== undefined;
  if (sub === 'log') return rt.subresources.log === true;
  if (sub === 'token') return rt.subresources.token === true;
  return false;
}

/** what go-restful routes consume: objects for POST/PUT, the patch types for PATCH (DELETE takes anything) */
const CONSUMES: Record<string, string[]> = {
  POST: PRODUCES,
  PUT: PRODUCES,
  PATCH: [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ],
};

/** go-restful's matchesContentType: a missing type only suits methods without a body; parameters are dropped. */
function routeConsumes(method: string, contentType: string | undefined): boolean {
  const consumes = CONSUMES[method];
  if (!consumes) return true;
  for (const entry of (contentType || 'application/octet-stream').split(',')) {
    if (consumes.includes(entry.split(';')[0]!.replace(/^ +| +$/g, ''))) return true;
  }
  return false;
}

const routeMethodNotAllowed = () =>
  new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

/** go-restful's matchesAccept: some Accept entry (parameters dropped) is one of the route's types, or `*` / `*`. */
function routeAccepts(accept: string | undefined, produces: string[]): boolean {
  if (!accept) return true;
  for (const entry of accept.split(',')) {
    const type = entry.split(';')[0]!.replace(/^ +| +$/g, '');
    if (type === '*/*' || produces.includes(type)) return true;
  }
  return false;
}

/** GET, HEAD… the route methods a built-in path offers, or undefined when no route matches the path. */
function builtinRouteMethods(
  info: RequestInfo,
  rt: ResourceType,
): { methods: string[]; collection: boolean } | undefined {
  const parts = info.parts;
  const isNamespaces = rt.group === '' && rt.plural === 'namespaces';
  // a namespaced path needs a namespaced kind (Namespaces' own paths look namespaced too)
  if (info.namespace !== undefined && !rt.namespaced && !isNamespaces) return undefined;
  const createOnly = rt.verbs !== undefined && !rt.verbs.includes('get');
  if (info.watchPath) {
    if (createOnly || parts.length > 2) return undefined;
    return { methods: ['GET'], collection: parts.length === 1 };
  }
  if (parts.length === 1) {
    if (createOnly)
      return info.namespace !== undefined || !rt.namespaced ? { methods: ['POST'], collection: true } : undefined;
    // across namespaces only list and watch
    if (rt.namespaced && info.namespace === undefined) return { methods: ['GET'], collection: true };
    return { methods: ['GET', 'POST', 'DELETE'], collection: true };
  }
  if (rt.namespaced && info.namespace === undefined) return undefined;
  if (createOnly) return undefined;
  if (parts.length === 2) return { methods: ['GET', 'PUT', 'PATCH', 'DELETE'], collection: false };
  if (parts.length === 3 && hasSubresource(rt, parts[2]!))
    return { methods: SUBRESOURCE_METHODS[parts[2]!]!, collection: false };
  return undefined;
}

/**
 * Throws the error kube-apiserver answers before any handler runs for a path/method/Accept combination that
 * has no route (404/405/406), or a 400 for an empty name where the route takes one.
 */
export function checkRoute(
  info: RequestInfo,
  rt: ResourceType,
  method: string,
  headers: { accept?: string; 'content-type'?: string; 'content-length'?: string },
): void {
  if (!rt.builtin) {
    checkCustomResourceRoute(info, rt);
    return;
  }
  const route = builtinRouteMethods(info, rt);
  if (!route) throw errors.notFoundPath();
  // (no HEAD routes: kube-apiserver answers HEAD on a resource with 405)
  if (!route.methods.includes(method)) throw routeMethodNotAllowed();
  if (!routeConsumes(method, headers['content-type']))
    // go-restful's words: a body of a known length is refused as such; a chunked or empty one only once no
    // route is left to produce an answer, with the (empty) list of representations those routes offer
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      Number(headers['content-length']) > 0
        ? '415: Unsupported Media Type'
        : '415: Unsupported Media Type\n\nAvailable representations: ',
      {},
    );
  const accept = headers.accept;
  const produces =
    info.subresource === 'log'
      ? ['text/plain', ...PRODUCES]
      : route.collection && route.methods.includes('GET')
        ? [...PRODUCES, ...STREAM_PRODUCES]
        : PRODUCES;
  if (!routeAccepts(accept, produces)) {
    throw new StatusError(
      406,
      'NotAcceptable',
      `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`,
      {},
    );
  }
  if (info.name === '' && !info.watchPath) throw errors.badRequest('name must be provided');
}

function checkCustomResourceRoute(info: RequestInfo, rt: ResourceType): void {
  if (info.namespace && !rt.namespaced) throw errors.notFoundPath();
  const sub = info.subresource;
  if (
    sub !== undefined &&
    sub !== '' &&
    !(sub === 'status' && rt.subresources.status) &&
    !(sub === 'scale' && rt.subresources.scale)
  ) {
    throw errors.notFound(rt.plural, rt.group, info.name ?? '');
  }
  const verbs = sub ? ['get', 'update', 'patch'] : ALL_VERBS;
  if (!verbs.includes(info.verb)) {
    throw new StatusError(
      405,
      'MethodNotAllowed',
      `${info.verb} is not supported on resources of kind "${qualifiedResource(rt.plural, rt.group)}"`,
      { group: rt.group, kind: rt.plural },
    );
  }
  // an update or patch of the collection itself reaches the handler without a name
  if (info.name === '' || (info.name === undefined && (info.verb === 'update' || info.verb === 'patch')))
    throw errors.badRequest('name must be provided');
}

/** IsValidPathSegmentName, as the storage key functions check a name from the URL. */
export function checkPathSegmentName(name: string): void {
  const problems: string[] = [];
  if (name === '.' || name === '..') problems.push(`may not be '${name}'`);
  for (const bad of ['/', '%']) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
  if (problems.length)
    throw errors.badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}
