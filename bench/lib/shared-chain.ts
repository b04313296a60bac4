// The writes that build objects many benchmark objects share (AIM's custom model, its templates, the template
// cache and its artifact, the artifact's PVC and Jobs with their pods), read back from what the controllers
// and the stand-in wrote: each object's server-side applies (main resource, then status) by every field
// manager that applied to it, its finalizers, and a create for an object nobody applied (the stand-in's
// pods). A baseline runs them once, in the first chain that needs them.
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import type { Step } from './baseline.ts';
import { appliedBy, type BenchServer } from './harness.ts';

/**
 * The steps that write every object of `kinds` in `namespace`, kinds in the order given (owners first).
 * Owner references to objects outside these kinds are dropped: the baseline writes no such owner.
 */
export async function sharedObjectsChain(
  server: BenchServer,
  namespace: string,
  kinds: readonly KindRef<KubeObject>[],
): Promise<Step[]> {
  const objects: KubeObject[] = [];
  for (const kind of kinds) objects.push(...(await server.admin.list(kind, { namespace })).items);
  const written = new Set(objects.map((o) => `${o.kind}/${o.metadata.name}`));
  const steps: Step[] = [];
  for (const obj of objects) steps.push(...objectSteps(withOwnersIn(obj, written)));
  return steps;
}

function withOwnersIn(obj: KubeObject, written: ReadonlySet<string>): KubeObject {
  const refs = obj.metadata.ownerReferences?.filter((r) => written.has(`${r.kind}/${r.name}`));
  const metadata = { ...obj.metadata };
  if (refs && refs.length > 0) metadata.ownerReferences = refs;
  else delete metadata.ownerReferences;
  return { ...obj, metadata };
}

function objectSteps(obj: KubeObject): Step[] {
  const entries = (obj.metadata.managedFields ?? []).filter((e) => e.operation === 'Apply');
  const main = entries.filter((e) => !e.subresource);
  const status = entries.filter((e) => e.subresource === 'status');
  const steps: Step[] = [];
  if (main.length === 0) {
    // nobody applied it (a stand-in's create): written as it is, without what the server set
    const { managedFields: _m, resourceVersion: _r, uid: _u, creationTimestamp: _c, ...metadata } = obj.metadata;
    steps.push({ op: 'create', by: 'bench-shared', obj: { ...obj, metadata, status: undefined } as KubeObject });
  }
  for (const e of main) {
    const applied = appliedBy(obj, e.manager ?? '');
    const metadata = { ...applied.metadata };
    // only owners the chain writes (withOwnersIn), whatever the manager's own configuration named
    if (obj.metadata.ownerReferences && applied.metadata.ownerReferences)
      metadata.ownerReferences = obj.metadata.ownerReferences;
    else delete metadata.ownerReferences;
    steps.push({ op: 'apply', by: e.manager ?? '', obj: { ...applied, metadata } });
  }
  for (const finalizer of obj.metadata.finalizers ?? []) {
    steps.push({
      op: 'addFinalizer',
      by: 'bench-shared',
      kind: { apiVersion: obj.apiVersion, kind: obj.kind } as KindRef<KubeObject>,
      name: obj.metadata.name ?? '',
      namespace: obj.metadata.namespace ?? '',
      finalizer,
    });
  }
  for (const e of status)
    steps.push({ op: 'applyStatus', by: e.manager ?? '', obj: appliedBy(obj, e.manager ?? '', 'status') });
  return steps;
}
