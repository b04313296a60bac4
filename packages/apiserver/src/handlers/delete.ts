// DELETE of one object. Custom resources and pods answer with the object (as kube-apiserver does for
// kinds that return the deleted object); other kinds answer with a Success Status unless finalizers
// keep the object, in which case the marked object is returned.
import { readDeleteOptions } from './delete-options.ts';
import { checkObjectKey, context, namespaceOf, type ResourceRequest } from './request.ts';
import { respondObject, respondOther } from './respond.ts';

export async function deleteObject(r: ResourceRequest): Promise<number> {
  const options = (await readDeleteOptions(r)) ?? {};
  const ctx = context(r);
  if (options.dryRun?.includes('All')) ctx.dryRun = true;
  checkObjectKey(r);
  const result = await r.core.deleter.delete(r.rt, namespaceOf(r), r.info.name!, options, ctx);
  const obj = await r.core.convertOut(r.rt, result.object, r.info.version);
  const returnsObject = !r.rt.builtin || r.rt.plural === 'pods' || !result.deleted;
  if (returnsObject) return respondObject(r, 200, obj, ctx.warnings);
  return respondOther(r, 200, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: obj.metadata.name,
      ...(r.rt.group ? { group: r.rt.group } : {}),
      kind: r.rt.plural,
      uid: obj.metadata.uid,
    },
  });
}
