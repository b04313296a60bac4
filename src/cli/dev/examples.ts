// Applies a folder of example manifests (every *.yaml, in name order, multi-document) with server-side
// apply, as `kubectl apply --server-side -f DIR` would, and reports what it applied.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import { parseAllDocuments } from 'yaml';

export interface AppliedRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  file: string;
}

export function readManifests(dir: string): Array<{ obj: KubeObject; file: string }> {
  const out: Array<{ obj: KubeObject; file: string }> = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'))
    .sort()) {
    const path = join(dir, f);
    for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
      if (doc.errors.length) throw new Error(`${path}: ${doc.errors[0]!.message}`);
      const obj = doc.toJS() as KubeObject | null;
      if (!obj) continue;
      if (!obj.apiVersion || !obj.kind || !obj.metadata?.name)
        throw new Error(`${path}: every document needs apiVersion, kind and metadata.name`);
      out.push({ obj, file: path });
    }
  }
  return out;
}

/** how many objects are applied at once: the API server admits them independently */
const APPLY_CONCURRENCY = 8;

/**
 * Cluster-scoped objects (the Namespace) are applied first, in file order: namespaced objects need them. The
 * namespaced ones follow concurrently (the controllers converge whatever order they arrive in, as after
 * `kubectl apply -f DIR`); applied one by one they made `modelplane dev` wait several seconds on a busy
 * machine before the last example (the autoscaling one) even existed. The result keeps file order, and the
 * first failure in file order is the one reported.
 */
export async function applyManifests(
  client: KubeClient,
  dir: string,
  fieldManager = 'modelplane-dev',
): Promise<AppliedRef[]> {
  const c = client.withFieldManager(fieldManager);
  const manifests = readManifests(dir);
  const applyOne = async ({ obj, file }: { obj: KubeObject; file: string }): Promise<AppliedRef> => {
    try {
      await c.apply(obj);
    } catch (e) {
      throw new Error(
        `applying ${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name} from ${file}: ${(e as Error).message}`,
      );
    }
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name!,
      file,
    };
  };
  const results = new Map<number, PromiseSettledResult<AppliedRef>>();
  const namespaced: number[] = [];
  for (const [i, m] of manifests.entries()) {
    if (m.obj.metadata.namespace) namespaced.push(i);
    else results.set(i, { status: 'fulfilled', value: await applyOne(m) });
  }
  let next = 0;
  const worker = async () => {
    while (next < namespaced.length) {
      const i = namespaced[next++]!;
      results.set(
        i,
        await applyOne(manifests[i]!).then(
          (value) => ({ status: 'fulfilled', value }),
          (reason: unknown) => ({ status: 'rejected', reason }),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(APPLY_CONCURRENCY, namespaced.length) }, worker));
  return manifests.map((_, i) => {
    const r = results.get(i)!;
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
}
