// CRUD for every resource: get, list, create, update, patch (merge, JSON, strategic, apply), delete and
// deletecollection, on the main resource and its status/scale subresources. Watch is in watch.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerCore } from '../core.ts';
import { errors } from '../errors.ts';
import { decodeBody, decodeObject, mediaType, readBody } from '../http/body.ts';
import type { RequestInfo } from '../http/request-info.ts';
import { objectJsonIfCached } from '../http/object-json.ts';
import { warningHeader, writeJson } from '../http/respond.ts';
import type { DeleteOptions, RequestContext } from '../objects/context.ts';
import { isPlainObject } from '../objects/meta.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { groupVersion } from '../registry/resource-type.ts';
import type { KubeObject, UserInfo } from '../types.ts';
import { deleteObject } from './delete.ts';
import { listObjects } from './list.ts';
import { dryRunParam, fieldManagerParam, fieldValidationParam } from './params.ts';
import { patchedObject } from './patch.ts';
import { readScale, scaleToCandidate } from './scale.ts';
import { negotiateShape, partialMetadata, table } from './table.ts';

export interface ResourceRequest {
  core: ServerCore;
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  rt: ResourceType;
}

export async function handleResource(r: ResourceRequest): Promise<number> {
  const { info, rt } = r;
  const sub = info.subresource;
  const finalize = sub === 'finalize' && rt.group === '' && rt.plural === 'namespaces';
  if (finalize && info.verb !== 'update') throw errors.methodNotAllowed('only PUT is supported on namespaces/finalize');
  if (sub && sub !== 'status' && sub !== 'scale' && !finalize) throw errors.notFoundPath(info.path);
  if (sub === 'status' && !rt.subresources.status) throw errors.notFoundPath(info.path);
  if (sub === 'scale' && !rt.subresources.scale) throw errors.notFoundPath(info.path);
  if (sub && (info.verb === 'delete' || info.verb === 'deletecollection' || info.verb === 'create')) {
    throw errors.methodNotAllowed(`${info.verb} is not supported on the ${sub} subresource`);
  }
  const verbs = rt.verbs;
  if (verbs && !verbs.includes(info.verb)) throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
  switch (info.verb) {
    case 'get':
      return getOne(r);
    case 'list':
      return listObjects(r);
    case 'create':
      return create(r);
    case 'update':
      return update(r);
    case 'patch':
      return patch(r);
    case 'delete':
      return deleteObject(r);
    case 'deletecollection':
      return deleteCollection(r);
    default:
      throw errors.methodNotAllowed(`the server does not allow this method on the requested resource`);
  }
}

export function namespaceOf(r: ResourceRequest): string | undefined {
  return r.rt.namespaced ? r.info.namespace : undefined;
}

export function context(r: ResourceRequest, applyPatch = false): RequestContext {
  const q = r.query;
  const fieldManager = fieldManagerParam(q, r.req.headers['user-agent'], applyPatch);
  return { user: r.user, dryRun: dryRunParam(q), fieldValidation: fieldValidationParam(q), warnings: [], ...(fieldManager ? { fieldManager } : {}) };
}

/** the stored object in the request's version, or a 404 */
export async function current(r: ResourceRequest): Promise<KubeObject> {
  const name = r.info.name!;
  const obj = r.core.store.get(r.rt.storageKey, namespaceOf(r), name);
  if (!obj) throw errors.notFound(r.rt.plural, r.rt.group, name);
  return r.core.convertOut(r.rt, obj, r.info.version);
}

/** Writes the object (or Table/PartialObjectMetadata) in the shape the client asked for. */
export function respondObject(r: ResourceRequest, code: number, obj: KubeObject, warnings: string[] = []): number {
  const headers: Record<string, string | string[]> = {};
  if (warnings.length) headers.Warning = warningHeader(warnings);
  const shape = negotiateShape(r.req.headers.accept);
  // (a text already shared by watchers and lists is reused; a write's response alone does not keep one)
  let body: unknown;
  if (shape === 'table' && r.info.subresource === undefined) body = table(r.rt, r.info.version, [obj], 'Metadata', { resourceVersion: obj.metadata.resourceVersion });
  else if (shape === 'partial') body = partialMetadata(obj);
  else body = objectJsonIfCached(obj);
  writeJson(r.res, code, body, headers);
  return code;
}

async function getOne(r: ResourceRequest): Promise<number> {
  const obj = await current(r);
  if (r.info.subresource === 'scale') {
    writeJson(r.res, 200, readScale(r.rt, obj));
    return 200;
  }
  return respondObject(r, 200, obj);
}

function checkTypeMeta(r: ResourceRequest, body: Record<string, unknown>): void {
  const gv = groupVersion(r.rt.group, r.info.version);
  const { apiVersion, kind } = body;
  if (apiVersion !== undefined && apiVersion !== gv) {
    throw errors.badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (kind !== undefined && kind !== r.rt.kind) {
    throw errors.badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${r.rt.kind})`);
  }
  if (body.metadata !== undefined && !isPlainObject(body.metadata)) throw errors.badRequest('metadata must be an object');
}

async function readObject(r: ResourceRequest): Promise<KubeObject> {
  const body = decodeObject(await readBody(r.req), r.req.headers['content-type']);
  checkTypeMeta(r, body);
  const obj = body as unknown as KubeObject;
  obj.metadata ??= {};
  return obj;
}

async function create(r: ResourceRequest): Promise<number> {
  if (r.info.subresource) throw errors.methodNotAllowed('create is not supported on this subresource');
  const ctx = context(r);
  const obj = await readObject(r);
  const result = await r.core.lifecycle.write({
    rt: r.rt, version: r.info.version, namespace: namespaceOf(r), ctx, candidate: obj, owned: true,
    recordManagedFields: r.core.managedFieldsRecorder(r.rt, r.info.version, ctx, undefined),
  });
  return respondObject(r, 201, await r.core.convertOut(r.rt, result.object, r.info.version), ctx.warnings);
}

async function update(r: ResourceRequest): Promise<number> {
  const ctx = context(r);
  const body = await readObject(r);
  const old = await current(r);
  let candidate = body;
  const scale = r.info.subresource === 'scale';
  if (scale) {
    candidate = scaleToCandidate(r.rt, old, body);
  } else {
    if (body.metadata.name !== undefined && body.metadata.name !== r.info.name) {
      throw errors.badRequest(`the name of the object (${String(body.metadata.name)}) does not match the name on the URL (${r.info.name})`);
    }
    const rv = body.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) {
      throw errors.conflict(r.rt.plural, r.rt.group, r.info.name!, 'the object has been modified; please apply your changes to the latest version and try again');
    }
  }
  // a scale candidate is built from the stored object; a plain body is the request's own
  return commitUpdate(r, ctx, old, candidate, 200, undefined, !scale);
}

export async function commitUpdate(r: ResourceRequest, ctx: RequestContext, old: KubeObject, candidate: KubeObject, code: number, managedFields?: KubeObject['metadata']['managedFields'], owned = false): Promise<number> {
  const sub = r.info.subresource;
  const result = await r.core.lifecycle.write({
    rt: r.rt, version: r.info.version, namespace: namespaceOf(r), ctx, candidate, old, owned,
    ...(sub ? { subresource: sub } : {}),
    ...(managedFields ? { managedFields } : { recordManagedFields: r.core.managedFieldsRecorder(r.rt, r.info.version, ctx, r.info.subresource) }),
  });
  const out = await r.core.convertOut(r.rt, result.object, r.info.version);
  if (r.info.subresource === 'scale') {
    writeJson(r.res, code, readScale(r.rt, out), ctx.warnings.length ? { Warning: warningHeader(ctx.warnings) } : {});
    return code;
  }
  return respondObject(r, code, out, ctx.warnings);
}

async function patch(r: ResourceRequest): Promise<number> {
  const type = mediaType(r.req.headers['content-type']);
  const isApply = type === 'application/apply-patch+yaml' || type === 'application/apply-patch+cbor';
  const ctx = context(r, isApply);
  const body = decodeBody(await readBody(r.req), r.req.headers['content-type']);
  const force = r.query.get('force') === 'true';
  if (!isApply && r.query.has('force')) throw errors.badRequest('force: Forbidden: may not be specified for non-apply patch');
  const stored = r.core.store.get(r.rt.storageKey, namespaceOf(r), r.info.name!);
  const old = stored ? await r.core.convertOut(r.rt, stored, r.info.version) : undefined;
  const result = patchedObject(r, type, body, old, ctx, force);
  if (!old) {
    // server-side apply creates a missing object
    const created = await r.core.lifecycle.write({
      rt: r.rt, version: r.info.version, namespace: namespaceOf(r), ctx, candidate: result.object,
      ...(result.managedFields ? { managedFields: result.managedFields } : {}),
    });
    return respondObject(r, 201, await r.core.convertOut(r.rt, created.object, r.info.version), ctx.warnings);
  }
  return commitUpdate(r, ctx, old, result.object, 200, result.managedFields);
}

async function deleteCollection(r: ResourceRequest): Promise<number> {
  const ns = namespaceOf(r);
  const options = (await readDeleteOptions(r)) ?? {};
  const ctx = context(r);
  const { selectObjects } = await import('./list.ts');
  const objs = await selectObjects(r, ns);
  for (const obj of objs) {
    await r.core.deleter.delete(r.rt, obj.metadata.namespace, obj.metadata.name!, options, ctx).catch((e: unknown) => {
      if ((e as { code?: number }).code !== 404) throw e;
    });
  }
  writeJson(r.res, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
  return 200;
}

export async function readDeleteOptions(r: ResourceRequest): Promise<DeleteOptions | undefined> {
  const buf = await readBody(r.req);
  const opts: DeleteOptions = {};
  if (buf.length > 0 && buf.toString('utf8').trim() !== '') {
    const body = decodeBody(buf, r.req.headers['content-type']);
    if (!isPlainObject(body)) throw errors.badRequest('DeleteOptions must be a JSON object');
    checkDeleteOptions(body);
    Object.assign(opts, body);
  }
  const q = r.query;
  const pp = q.get('propagationPolicy');
  if (pp) opts.propagationPolicy = pp as DeleteOptions['propagationPolicy'];
  if (q.has('gracePeriodSeconds')) opts.gracePeriodSeconds = Number(q.get('gracePeriodSeconds'));
  if (opts.propagationPolicy && !['Background', 'Foreground', 'Orphan'].includes(opts.propagationPolicy)) {
    throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', [{ field: 'propagationPolicy', reason: 'FieldValueNotSupported', message: `Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan", "nil"` }]);
  }
  return opts;
}

/** Type checks a decoded DeleteOptions body (kube rejects mistyped fields when decoding). */
function checkDeleteOptions(body: Record<string, unknown>): void {
  const bad = (field: string, want: string) => errors.badRequest(`DeleteOptions.${field} must be ${want}`);
  if (body.dryRun !== undefined && (!Array.isArray(body.dryRun) || !body.dryRun.every((v) => typeof v === 'string'))) throw bad('dryRun', 'a list of strings');
  if (body.gracePeriodSeconds !== undefined && body.gracePeriodSeconds !== null && !Number.isInteger(body.gracePeriodSeconds)) throw bad('gracePeriodSeconds', 'an integer');
  if (body.propagationPolicy !== undefined && body.propagationPolicy !== null && typeof body.propagationPolicy !== 'string') throw bad('propagationPolicy', 'a string');
  if (body.orphanDependents !== undefined && body.orphanDependents !== null && typeof body.orphanDependents !== 'boolean') throw bad('orphanDependents', 'a boolean');
  if (body.preconditions !== undefined && body.preconditions !== null) {
    if (!isPlainObject(body.preconditions)) throw bad('preconditions', 'an object');
    for (const k of ['uid', 'resourceVersion']) {
      const v = body.preconditions[k];
      if (v !== undefined && v !== null && typeof v !== 'string') throw bad(`preconditions.${k}`, 'a string');
    }
  }
}
