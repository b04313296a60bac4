// CRUD for every resource: get, list, create, update, patch (merge, JSON, strategic, apply), delete and
// deletecollection, on the main resource and its status/scale subresources. Watch is in watch.ts.
import { cause, errors } from '../errors.ts';
import { decodeBody, decodeObject, MalformedJson, mediaType, readBody } from '../http/body.ts';
import type { RequestContext } from '../objects/context.ts';
import { isPlainObject } from '../objects/meta.ts';
import { groupVersion } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';
import { deleteObject } from './delete.ts';
import { readDeleteOptions } from './delete-options.ts';
import { guaranteedUpdate } from './guaranteed-update.ts';
import { listObjects, selectObjects } from './list.ts';
import { boolParam } from './params.ts';
import { patchedObject } from './patch.ts';
import { checkObjectKey, context, current, namespaceOf, type ResourceRequest } from './request.ts';
import { respondObject, respondOther } from './respond.ts';
import { readScale, scaleToCandidate } from './scale.ts';
import type { OptionsKind } from './write-options.ts';

export async function handleResource(r: ResourceRequest): Promise<number> {
  const { info } = r;
  const sub = info.subresource;
  // (route.ts already refused paths, methods and subresources that have no route)
  if (sub && sub !== 'status' && sub !== 'scale' && sub !== 'finalize') throw errors.notFoundPath();
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

async function getOne(r: ResourceRequest): Promise<number> {
  const obj = await current(r);
  if (r.info.subresource === 'scale') return respondOther(r, 200, readScale(r.rt, obj));
  return respondObject(r, 200, obj);
}

/** decodes a body, rewording a JSON syntax error as kube-apiserver words it for what the body is */
function decodeAsKube<T>(decode: () => T, reword: (e: MalformedJson) => Error): T {
  try {
    return decode();
  } catch (e) {
    throw e instanceof MalformedJson ? reword(e) : e;
  }
}

/** kube's transformDecodeError for a body that is not JSON: the kind it had to be and the start of the body */
function unrecognizedObject(r: ResourceRequest, e: MalformedJson): Error {
  const summary = e.text.length > 30 ? `${e.text.slice(0, 30)} ...` : e.text;
  return errors.badRequest(
    `the object provided is unrecognized (must be of type ${r.rt.kind}): couldn't get version/kind; json parse error: ${e.goMessage} (${summary})`,
  );
}

/** the Go package kube's internal types of a group live in (core for the core group, apps, batch, rbac, …) */
const internalPackage = (group: string) => (group ? group.split('.')[0]! : 'core');

function checkTypeMeta(r: ResourceRequest, body: Record<string, unknown>): void {
  const gv = groupVersion(r.rt.group, r.info.version);
  const { apiVersion, kind } = body;
  // another built-in kind of the same group-version: kube's scheme decodes it, then cannot convert it
  if (
    r.rt.builtin &&
    apiVersion === gv &&
    typeof kind === 'string' &&
    kind !== r.rt.kind &&
    r.core.registry.byKind(r.rt.group, kind)?.builtin
  ) {
    const v = r.info.version;
    throw errors.badRequest(
      `${kind} in version "${v}" cannot be handled as a ${r.rt.kind}: converting (${v}.${kind}) to (${internalPackage(r.rt.group)}.${r.rt.kind}): unknown conversion`,
    );
  }
  if (apiVersion !== undefined && apiVersion !== gv) {
    throw errors.badRequest(
      `the API version in the data (${String(apiVersion)}) does not match the expected API version (${gv})`,
    );
  }
  if (kind !== undefined && kind !== r.rt.kind) {
    throw errors.badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${r.rt.kind})`);
  }
  if (body.metadata !== undefined && !isPlainObject(body.metadata))
    throw errors.badRequest('metadata must be an object');
}

/** what create and update bodies may be (kube-apiserver's serializers; no Content-Type means JSON) */
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * A create or update in kube-apiserver's order: the body's media type (415) and size (413), then the options
 * (422), then the body decoded and its type meta checked.
 */
async function readObject(r: ResourceRequest, kind: OptionsKind): Promise<{ ctx: RequestContext; obj: KubeObject }> {
  const contentType = r.req.headers['content-type'];
  // (built-in routes refuse other types before this; the CRD handler only when it picks a decoder)
  if (contentType && !OBJECT_MEDIA_TYPES.includes(mediaType(contentType)))
    throw errors.unsupportedMediaType(OBJECT_MEDIA_TYPES);
  const buf = await readBody(r.req);
  const ctx = context(r, kind);
  const body = decodeAsKube(
    () => decodeObject(buf, contentType),
    (e) => unrecognizedObject(r, e),
  );
  checkTypeMeta(r, body);
  const obj = body as unknown as KubeObject;
  obj.metadata ??= {};
  return { ctx, obj };
}

async function create(r: ResourceRequest): Promise<number> {
  if (r.info.subresource) throw errors.methodNotAllowed('create is not supported on this subresource');
  const { ctx, obj } = await readObject(r, 'CreateOptions');
  if (r.rt.namespaced && !r.info.namespace) {
    // the object's namespace is cleared to match the request's (none), which validation then requires
    throw errors.invalid(r.rt.kind, r.rt.group, String(obj.metadata.name ?? obj.metadata.generateName ?? ''), [
      { field: 'metadata.namespace', reason: 'FieldValueRequired', message: 'Required value' },
    ]);
  }
  const result = await r.core.lifecycle.write({
    rt: r.rt,
    version: r.info.version,
    namespace: namespaceOf(r),
    ctx,
    candidate: obj,
    owned: true,
    post: true,
    recordManagedFields: r.core.managedFieldsRecorder(r.rt, r.info.version, ctx, undefined),
  });
  return respondObject(r, 201, await r.core.convertOut(r.rt, result.object, r.info.version), ctx.warnings);
}

async function update(r: ResourceRequest): Promise<number> {
  const { ctx, obj: body } = await readObject(r, 'UpdateOptions');
  const scale = r.info.subresource === 'scale';
  const rv = body.metadata.resourceVersion;
  if (!scale) {
    if (body.metadata.name !== undefined && body.metadata.name !== r.info.name) {
      throw errors.badRequest(
        `the name of the object (${String(body.metadata.name)}) does not match the name on the URL (${r.info.name})`,
      );
    }
    // custom resources do not allow unconditional updates (the CRD registry's AllowUnconditionalUpdate is false)
    if (!r.rt.builtin && (rv === undefined || rv === '')) {
      throw errors.invalid(r.rt.plural, r.rt.group, r.info.name!, [
        cause('metadata.resourceVersion', 'FieldValueInvalid', 'Invalid value: 0x0: must be specified for an update'),
      ]);
    }
  }
  return guaranteedUpdate(ctx, async () => {
    const old = await current(r);
    // a scale candidate is built from the stored object (and checks the Scale's resourceVersion)
    if (scale) return commitUpdate(r, ctx, old, scaleToCandidate(r.rt, old, body), 200);
    if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) {
      throw errors.conflict(
        r.rt.plural,
        r.rt.group,
        r.info.name!,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    // With a precondition the body is used once (a retry fails the check above), so the write may take it;
    // an unconditional update needs it again on a retry, so the write copies it.
    const owned = rv !== undefined && rv !== '';
    return commitUpdate(r, ctx, old, body, 200, undefined, owned);
  });
}

async function commitUpdate(
  r: ResourceRequest,
  ctx: RequestContext,
  old: KubeObject,
  candidate: KubeObject,
  code: number,
  managedFields?: KubeObject['metadata']['managedFields'],
  owned = false,
): Promise<number> {
  const sub = r.info.subresource;
  const result = await r.core.lifecycle.write({
    rt: r.rt,
    version: r.info.version,
    namespace: namespaceOf(r),
    ctx,
    candidate,
    old,
    owned,
    ...(sub ? { subresource: sub } : {}),
    ...(managedFields
      ? { managedFields }
      : { recordManagedFields: r.core.managedFieldsRecorder(r.rt, r.info.version, ctx, r.info.subresource) }),
  });
  const out = await r.core.convertOut(r.rt, result.object, r.info.version);
  if (r.info.subresource === 'scale') return respondOther(r, code, readScale(r.rt, out), ctx.warnings);
  return respondObject(r, code, out, ctx.warnings);
}

async function patch(r: ResourceRequest): Promise<number> {
  const contentType = r.req.headers['content-type'] ?? '';
  // kube-apiserver compares the type up to any parameters, case and spaces included
  const type = contentType.split(';')[0]!;
  const supported = patchTypes(r);
  if (!supported.includes(type)) throw errors.unsupportedMediaType(supported);
  const buf = await readBody(r.req);
  const ctx = context(r, 'PatchOptions', type);
  const body = decodeAsKube(
    () => decodeBody(buf, contentType),
    (e) => errors.badRequest(`error decoding patch: ${e.goMessage}`),
  );
  const force = type === 'application/apply-patch+yaml' && boolParam(r.query, 'force');
  checkObjectKey(r);
  return guaranteedUpdate(ctx, async () => {
    const stored = r.core.store.get(r.rt.storageKey, namespaceOf(r), r.info.name!);
    const old = stored ? await r.core.convertOut(r.rt, stored, r.info.version) : undefined;
    const result = patchedObject(r, type, body, old, ctx, force);
    if (old) return commitUpdate(r, ctx, old, result.object, 200, result.managedFields);
    // server-side apply creates a missing object
    const created = await r.core.lifecycle.write({
      rt: r.rt,
      version: r.info.version,
      namespace: namespaceOf(r),
      ctx,
      candidate: result.object,
      ...(result.managedFields ? { managedFields: result.managedFields } : {}),
    });
    return respondObject(r, 201, await r.core.convertOut(r.rt, created.object, r.info.version), ctx.warnings);
  });
}

/** the patch types an endpoint takes: strategic merge only where the kind has a Go struct (built-ins) */
function patchTypes(r: ResourceRequest): string[] {
  const strategic = r.core.strategies.for(r.rt).strategicMerge;
  return [
    'application/json-patch+json',
    'application/merge-patch+json',
    ...(strategic ? ['application/strategic-merge-patch+json'] : []),
    'application/apply-patch+yaml',
  ];
}

async function deleteCollection(r: ResourceRequest): Promise<number> {
  const ns = namespaceOf(r);
  const options = (await readDeleteOptions(r)) ?? {};
  const ctx = context(r);
  const objs = await selectObjects(r, ns);
  for (const obj of objs) {
    await r.core.deleter.delete(r.rt, obj.metadata.namespace, obj.metadata.name!, options, ctx).catch((e: unknown) => {
      if ((e as { code?: number }).code !== 404) throw e;
    });
  }
  return respondOther(r, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
}
