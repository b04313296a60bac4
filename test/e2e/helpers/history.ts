// Every version of the objects of one kind in one namespace, as a watch delivers them: tests that must
// assert what never happened (an InferenceService created too early, a generation bump, a service leaving
// Running for a moment) read the whole history instead of sampling the current state.

import { ListWatch } from '@modelplane/runtime/cache';
import { collectionPath, type KubeClient } from '@modelplane/runtime/client';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { waitFor } from '../../helpers/wait.ts';

export interface Version<T extends KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';
  object: T;
}

export interface History<T extends KubeObject> {
  /** every version seen so far, oldest first */
  readonly versions: ReadonlyArray<Version<T>>;
  /** the versions of one object, by name */
  of(name: string): Array<Version<T>>;
  /** waits until the watch has delivered at least the object's current resourceVersion */
  caughtUp(name: string): Promise<void>;
  stop(): Promise<void>;
}

export async function recordHistory<T extends KubeObject>(
  admin: KubeClient,
  kind: KindRef<T>,
  namespace: string,
): Promise<History<T>> {
  const versions: Array<Version<T>> = [];
  const mapping = await admin.mapper.mapping(kind.apiVersion, kind.kind);
  const lw = new ListWatch({
    transport: admin.transport,
    path: collectionPath(mapping, namespace),
    resource: `${kind.kind}-history`,
    handler: {
      replace: (items) => {
        for (const o of items) versions.push({ type: 'LISTED', object: o as T });
      },
      event: (type, o) => versions.push({ type, object: o as T }),
    },
  });
  lw.start();
  await waitFor(`the ${kind.kind} watch in ${namespace} to list`, () => lw.hasSynced);
  const of = (name: string) => versions.filter((v) => v.object.metadata.name === name);
  return {
    versions,
    of,
    async caughtUp(name) {
      const live = await admin.getOrUndefined(kind, name, namespace);
      const rv = live?.metadata.resourceVersion;
      await waitFor(`the ${kind.kind} watch to deliver ${namespace}/${name}@${rv ?? 'deleted'}`, () =>
        rv === undefined
          ? of(name).at(-1)?.type === 'DELETED' || of(name).length === 0
          : of(name).some((v) => v.object.metadata.resourceVersion === rv),
      );
    },
    stop: () => lw.stop(),
  };
}
