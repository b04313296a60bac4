// The baseline of the convergence benchmarks: the same API server performing, directly with the client,
// the minimum writes a perfect controller (and the upstream stand-in) needs for every object: one chain of
// dependent writes per object, `concurrency` chains in flight, nothing watching. The payloads are the
// ones the real controllers wrote in the measured run (read back per field manager), so both runs move
// the same bytes through the same server code (create, server-side apply, status apply, merge patch).

import { KubeClient } from '@modelplane/runtime/client';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { type BenchServer, elapsed, type Instant, inPool, instant, rebindOwners } from './harness.ts';

export type Step =
  /** POST, as the user's kubectl create / the first apply would */
  | { op: 'create'; by: string; obj: KubeObject }
  /** server-side apply of the main resource (force, as the controllers do) */
  | { op: 'apply'; by: string; obj: KubeObject }
  /** server-side apply of the status subresource */
  | { op: 'applyStatus'; by: string; obj: KubeObject }
  /** JSON merge patch of metadata.finalizers with the resourceVersion as an optimistic lock */
  | { op: 'addFinalizer'; by: string; kind: KindRef<KubeObject>; name: string; namespace: string; finalizer: string };

export interface BaselineResult {
  time: Instant;
  writes: number;
}

/**
 * Runs every chain (steps in order, owners' uids filled in as they are created) with `concurrency` chains
 * in flight; `by` names the field manager and the user each step is written as.
 */
export async function runBaseline(
  server: BenchServer,
  chains: readonly Step[][],
  concurrency: number,
): Promise<BaselineResult> {
  const clients = new Map<string, KubeClient>();
  for (const step of chains.flat()) {
    if (!clients.has(step.by))
      clients.set(step.by, await KubeClient.create(await server.kubeconfigFor(step.by), { fieldManager: step.by }));
  }
  // connection setup and discovery of each kind happen before the clock starts, as the controllers' do
  for (const step of chains[0] ?? [])
    await clients.get(step.by)!.mapping(step.op === 'addFinalizer' ? step.kind : step.obj);
  let writes = 0;
  const t0 = instant();
  await inPool(chains.length, concurrency, async (i) => {
    const uids = new Map<string, string>();
    const versions = new Map<string, string>();
    const seen = (o: KubeObject) => {
      const key = `${o.kind}/${o.metadata.name}`;
      if (o.metadata.uid) uids.set(key, o.metadata.uid);
      if (o.metadata.resourceVersion) versions.set(key, o.metadata.resourceVersion);
    };
    for (const step of chains[i]!) {
      const client = clients.get(step.by)!;
      writes++;
      switch (step.op) {
        case 'create':
          seen(await client.create(rebindOwners(step.obj, uids)));
          break;
        case 'apply':
          seen(await client.apply(rebindOwners(step.obj, uids), { force: true }));
          break;
        case 'applyStatus':
          seen(await client.applyStatus(step.obj, { force: true }));
          break;
        case 'addFinalizer': {
          const resourceVersion = versions.get(`${step.kind.kind}/${step.name}`);
          seen(
            await client.patch(
              step.kind,
              step.name,
              step.namespace,
              { metadata: { resourceVersion, finalizers: [step.finalizer] } },
              'merge',
            ),
          );
          break;
        }
      }
    }
  });
  const time = elapsed(t0, instant());
  for (const c of clients.values()) c.close();
  return { time, writes };
}
