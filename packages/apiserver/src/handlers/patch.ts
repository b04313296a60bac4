// Computes the object a PATCH produces, for each patch type kube-apiserver accepts. Server-side apply
// also returns the managed fields it computed; other patch types record ownership in the lifecycle.
import { errors } from '../errors.ts';
import type { RequestContext } from '../objects/context.ts';
import { isPlainObject } from '../objects/meta.ts';
import { applyJsonPatch, applyMergePatch, applyServerSide, applyStrategicMergePatch } from '../patch/index.ts';
import { groupVersion } from '../resource-types/resource-type.ts';
import type { KubeObject, ManagedFieldsEntry } from '../types.ts';
import { namespaceOf, type ResourceRequest } from './request.ts';
import { readScale, scaleToCandidate } from './scale.ts';

export interface PatchOutcome {
  object: KubeObject;
  managedFields?: ManagedFieldsEntry[];
}

export function patchedObject(
  r: ResourceRequest,
  type: string,
  body: unknown,
  old: KubeObject | undefined,
  ctx: RequestContext,
  force: boolean,
): PatchOutcome {
  const name = r.info.name!;
  if (type === 'application/apply-patch+yaml' || type === 'application/apply-patch+cbor')
    return apply(r, body, old, ctx, force);
  if (!old) throw errors.notFound(r.rt.plural, r.rt.group, name);
  // The scale subresource patches the Scale view and maps replicas back onto the object.
  const base: unknown = r.info.subresource === 'scale' ? readScale(r.rt, old) : old;
  let patched: unknown;
  switch (type) {
    case 'application/merge-patch+json':
      if (!isPlainObject(body)) throw errors.badRequest('a merge patch must be a JSON object');
      patched = applyMergePatch(base, body);
      break;
    case 'application/json-patch+json':
      if (!Array.isArray(body)) throw errors.badRequest('a JSON patch must be a JSON array of operations');
      patched = applyJsonPatch(base, body);
      break;
    case 'application/strategic-merge-patch+json': {
      const strategy = r.core.strategies.for(r.rt);
      if (!isPlainObject(body)) throw errors.badRequest('a strategic merge patch must be a JSON object');
      patched = applyStrategicMergePatch(
        base,
        body,
        r.info.subresource === 'scale' ? undefined : strategy.patchSchema(r.info.version),
      );
      break;
    }
    default:
      // (the handler admits only the endpoint's patch types)
      throw errors.unsupportedMediaType([type]);
  }
  if (!isPlainObject(patched)) throw errors.badRequest('the patch produced something that is not an object');
  if (r.info.subresource === 'scale') return { object: scaleToCandidate(r.rt, old, patched as KubeObject) };
  const obj = patched as KubeObject;
  if (!isPlainObject(obj.metadata)) throw errors.badRequest('the patch removed or replaced metadata');
  if (obj.metadata.name !== name)
    throw errors.badRequest(
      `the patch changed metadata.name from "${name}" to "${String(obj.metadata.name)}"; names are immutable`,
    );
  const rv = obj.metadata.resourceVersion;
  if (rv !== undefined && rv !== old.metadata.resourceVersion) {
    throw errors.conflict(
      r.rt.plural,
      r.rt.group,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  return { object: obj };
}

function apply(
  r: ResourceRequest,
  body: unknown,
  old: KubeObject | undefined,
  ctx: RequestContext,
  force: boolean,
): PatchOutcome {
  if (!isPlainObject(body)) throw errors.badRequest('an apply patch must be a YAML or JSON object');
  const applied = body as KubeObject;
  const gv = groupVersion(r.rt.group, r.info.version);
  if (applied.apiVersion !== gv)
    throw errors.badRequest(`apiVersion must be "${gv}" in an apply patch, got "${String(applied.apiVersion)}"`);
  if (applied.kind !== r.rt.kind)
    throw errors.badRequest(`kind must be "${r.rt.kind}" in an apply patch, got "${String(applied.kind)}"`);
  if (!isPlainObject(applied.metadata)) throw errors.badRequest('metadata must be set in an apply patch');
  if (applied.metadata.name !== undefined && applied.metadata.name !== r.info.name) {
    throw errors.badRequest(
      `the name of the object (${String(applied.metadata.name)}) does not match the name on the URL (${r.info.name})`,
    );
  }
  const ns = namespaceOf(r);
  if (ns && applied.metadata.namespace !== undefined && applied.metadata.namespace !== ns) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (r.info.subresource === 'scale')
    throw errors.unsupportedMediaType([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  if (r.info.subresource === 'status' && !old) throw errors.notFound(r.rt.plural, r.rt.group, r.info.name!);
  // a resourceVersion in the applied configuration is a precondition, as in any other write
  const rv = applied.metadata.resourceVersion;
  if (old && rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion) {
    throw errors.conflict(
      r.rt.plural,
      r.rt.group,
      r.info.name!,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  const strategy = r.core.strategies.for(r.rt);
  const result = applyServerSide({
    live: old,
    applied: { ...applied, metadata: { ...applied.metadata, name: r.info.name, ...(ns ? { namespace: ns } : {}) } },
    manager: ctx.fieldManager!,
    force,
    schema: strategy.patchSchema(r.info.version),
    ...(r.info.subresource === 'status' ? { subresource: 'status' } : {}),
    now: new Date(),
    apiVersion: gv,
    statusSubresource: r.rt.subresources.status,
    statusAnnotations: r.rt.statusWritesAnnotations === true,
  });
  return { object: result.object as KubeObject, managedFields: result.managedFields as ManagedFieldsEntry[] };
}
