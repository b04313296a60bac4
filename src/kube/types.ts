// The object model the runtime works with: plain JSON as the API server sends it (timestamps stay strings).

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

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

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

export interface GroupVersion {
  group: string;
  version: string;
}

export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
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
  if (!name || !uid) throw new Error(`controllerRef: ${owner.kind} ${owner.metadata.namespace ?? ''}/${name ?? '<no name>'} has no metadata.uid (read it from the server first)`);
  return { apiVersion: owner.apiVersion, kind: owner.kind, name, uid, controller: true, blockOwnerDeletion: opts.blockOwnerDeletion ?? true };
}
