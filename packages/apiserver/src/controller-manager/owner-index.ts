// How the garbage collector names objects in its dependency graph (a ReverseIndex from owner uid to the
// objects whose ownerReferences name it, kept in step with the store by the collector's listener).

/** An object's place in the store: storage key, namespace and name (none of which can hold `\n`). */
export function objectId(storageKey: string, namespace: string | undefined, name: string): string {
  return `${storageKey}\n${namespace ?? ''}\n${name}`;
}

export function parseObjectId(id: string): { storageKey: string; namespace: string | undefined; name: string } {
  const [storageKey = '', namespace = '', name = ''] = id.split('\n');
  return { storageKey, namespace: namespace || undefined, name };
}
