// In-process fixture for the lifecycle tests: an embedded API server driven through its own write and
// delete paths (no HTTP), with helpers that wait for the in-server controllers to settle.
import assert from 'node:assert/strict';
import type { AssemblyOptions } from '../../src/assembly.ts';
import { ADMIN_USER } from '../../src/auth/types.ts';
import { partsOf, startServer } from '../../src/handle.ts';
import type { ApiServer } from '../../src/index.ts';
import type { DeleteOptions, RequestContext } from '../../src/objects/context.ts';
import type { ResourceType } from '../../src/resource-types/resource-type.ts';
import type { KubeObject, OwnerReference } from '../../src/types.ts';

export interface Lab {
  server: ApiServer;
  /** creates an object of the given apiVersion/kind (metadata.namespace selects the namespace) */
  create(obj: Record<string, unknown>): Promise<KubeObject>;
  /** replaces the object with `change` applied to its latest version */
  update(
    kind: string,
    namespace: string | undefined,
    name: string,
    change: (o: KubeObject) => void,
  ): Promise<KubeObject>;
  del(
    kind: string,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): Promise<{ deleted: boolean; warnings: string[] }>;
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  /** waits until the garbage collector, namespace and ServiceAccount controllers have nothing left to do */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export function adminContext(): RequestContext {
  return { user: ADMIN_USER, dryRun: false, fieldValidation: 'Strict', warnings: [], fieldManager: 'lifecycle-test' };
}

export async function startLab(opts: Pick<AssemblyOptions, 'wrapAdmission'> = {}): Promise<Lab> {
  const server = await startServer({ port: 0, ...opts });
  const { core } = partsOf(server);
  const typeOf = (apiVersionOrKind: string, kind?: string): ResourceType => {
    const group = kind && apiVersionOrKind.includes('/') ? apiVersionOrKind.split('/')[0]! : '';
    const k = kind ?? apiVersionOrKind;
    const rt = kind ? core.registry.byKind(group, k) : core.registry.all().find((t) => t.kind === k);
    assert.ok(rt, `kind ${k} is served`);
    return rt;
  };
  const version = (rt: ResourceType) => rt.versions.find((v) => v.storage)!.name;
  const lab: Lab = {
    server,
    async create(obj) {
      const o = obj as unknown as KubeObject;
      const rt = typeOf(o.apiVersion, o.kind);
      const ctx = adminContext();
      const r = await core.lifecycle.write({
        rt,
        version: version(rt),
        namespace: rt.namespaced ? o.metadata.namespace : undefined,
        ctx,
        candidate: o,
        recordManagedFields: core.managedFieldsRecorder(rt, version(rt), ctx, undefined),
      });
      return r.object;
    },
    async update(kind, namespace, name, change) {
      const rt = typeOf(kind);
      const old = core.store.get(rt.storageKey, namespace, name);
      assert.ok(old, `${kind} ${namespace}/${name} exists`);
      const candidate = structuredClone(old);
      change(candidate);
      const ctx = adminContext();
      const r = await core.lifecycle.write({
        rt,
        version: version(rt),
        namespace,
        ctx,
        candidate,
        old,
        recordManagedFields: core.managedFieldsRecorder(rt, version(rt), ctx, undefined),
      });
      return r.object;
    },
    async del(kind, namespace, name, options = {}) {
      const ctx = adminContext();
      const r = await core.deleter.delete(typeOf(kind), namespace, name, options, ctx);
      return { deleted: r.deleted, warnings: ctx.warnings };
    },
    get(kind, namespace, name) {
      return core.store.get(typeOf(kind).storageKey, namespace, name);
    },
    settle: () => partsOf(server).controllers.idle(),
    close: () => server.close(),
  };
  return lab;
}

export function ownerRef(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    ...extra,
  };
}

export function configMap(
  namespace: string,
  name: string,
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...meta }, data: { k: name } };
}

/** names of the objects of `kind` in `namespace`, sorted, without the ones every namespace gets */
export function names(lab: Lab, kind: string, namespace: string): string[] {
  const rt = partsOf(lab.server)
    .core.registry.all()
    .find((t) => t.kind === kind)!;
  return partsOf(lab.server)
    .core.store.list(rt.storageKey, namespace)
    .map((o) => o.metadata.name!)
    .filter((n) => n !== 'kube-root-ca.crt' && !(kind === 'ServiceAccount' && n === 'default'))
    .sort();
}
