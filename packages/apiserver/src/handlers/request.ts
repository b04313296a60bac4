// What every resource handler receives, and the request-level helpers they share: the request's namespace,
// the object key checks, the write context and the stored object in the request's version.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerCore } from '../core.ts';
import { errors } from '../errors.ts';
import type { Negotiated } from '../http/negotiate.ts';
import type { RequestInfo } from '../http/request-info.ts';
import type { RequestContext } from '../objects/context.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject, UserInfo } from '../types.ts';
import { checkPathSegmentName } from './route.ts';
import { type OptionsKind, writeOptions } from './write-options.ts';

export interface ResourceRequest {
  core: ServerCore;
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  rt: ResourceType;
  /** the response format the Accept header negotiated */
  out: Negotiated;
  /** filled by admission, written into the request's audit record */
  auditAnnotations?: Record<string, string>;
}

/** The request's namespace; for a namespaced kind, "" (from `namespaces//…`) and none both mean all namespaces. */
export function namespaceOf(r: ResourceRequest): string | undefined {
  return r.rt.namespaced ? r.info.namespace || undefined : undefined;
}

/**
 * The checks kube-apiserver's storage key functions make on the URL's namespace and name before touching an
 * object: a namespaced object needs a namespace, and a name may not be `.`/`..` nor contain `/` or `%`.
 */
export function checkObjectKey(r: ResourceRequest): void {
  if (r.rt.namespaced && !r.info.namespace) throw errors.badRequest('Namespace parameter required.');
  checkPathSegmentName(r.info.name ?? '');
}

/** The request context of a write, its options validated; deletes take theirs from readDeleteOptions. */
export function context(r: ResourceRequest, kind?: OptionsKind, patchType?: string): RequestContext {
  const audit = r.auditAnnotations ? { auditAnnotations: r.auditAnnotations } : {};
  if (!kind)
    return {
      user: r.user,
      dryRun: r.query.getAll('dryRun').includes('All'),
      fieldValidation: 'Warn',
      warnings: [],
      ...audit,
    };
  const o = writeOptions(r.query, kind, r.req.headers['user-agent'], patchType);
  return {
    user: r.user,
    dryRun: o.dryRun,
    fieldValidation: o.fieldValidation,
    warnings: [],
    fieldManager: o.fieldManager,
    ...audit,
  };
}

/** the stored object in the request's version, or a 404 */
export async function current(r: ResourceRequest): Promise<KubeObject> {
  checkObjectKey(r);
  const name = r.info.name!;
  const obj = r.core.store.get(r.rt.storageKey, namespaceOf(r), name);
  if (!obj) throw errors.notFound(r.rt.plural, r.rt.group, name);
  return r.core.convertOut(r.rt, obj, r.info.version);
}
