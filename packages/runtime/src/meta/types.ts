// The object model the runtime works with: plain JSON as the API server sends it (timestamps stay strings).
// The Kubernetes types themselves are the shared set of @modelplane/apimachinery; this module adds the
// runtime's own: kind references, object keys and owner-reference helpers.
import type { KubeObject, ObjectMeta, OwnerReference } from '@modelplane/apimachinery';

export {
  type GroupVersion,
  type KubeList,
  type KubeObject,
  type ListMeta,
  type ManagedFieldsEntry,
  type ObjectMeta,
  type OwnerReference,
  parseApiVersion,
  type WatchEvent,
  type WatchEventType,
} from '@modelplane/apimachinery';

/**
 * Names a kind and carries its TypeScript type, so `client.get(ConfigMaps, …)` returns a ConfigMap.
 * The phantom `__type` field never exists at run time.
 */
export interface KindRef<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  readonly __type?: T;
}

export function kindRef<T extends KubeObject = KubeObject>(apiVersion: string, kind: string): KindRef<T> {
  return { apiVersion, kind };
}

/** namespace ('' for cluster-scoped) + name: what a reconcile request and a cache key identify */
export interface ObjectKey {
  namespace: string;
  name: string;
}

/** `namespace/name`, or just `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc) */
export function objectKeyString(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function keyOf(obj: { metadata: ObjectMeta }): string {
  return objectKeyString(obj.metadata.namespace, obj.metadata.name ?? '');
}

export function parseKey(key: string): ObjectKey {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** the ownerReference with `controller: true`, if any */
export function controllerOf(obj: { metadata: ObjectMeta }): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** builds a controller ownerReference pointing at `owner` (which must have been read from the server: it needs a uid) */
export function controllerRef(owner: KubeObject, opts: { blockOwnerDeletion?: boolean } = {}): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid)
    throw new Error(
      `controllerRef: ${owner.kind} ${owner.metadata.namespace ?? ''}/${name ?? '<no name>'} has no metadata.uid (read it from the server first)`,
    );
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: opts.blockOwnerDeletion ?? true,
  };
}
