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

export interface ApplyOptions {
  fieldManager?: string;
  /** awaited before that object is applied (undefined: nothing to wait for) */
  gate?: (obj: KubeObject) => Promise<void> | undefined;
}

/**
 * Cluster-scoped objects (the Namespace) are applied first, in file order: namespaced objects need them. The
 * namespaced ones follow concurrently (the controllers converge whatever order they arrive in, as after
 * `kubectl apply -f DIR`), each after its gate; applied one by one they made `modelplane dev` wait several
 * seconds on a busy machine before the last example (the autoscaling one) even existed. The result keeps
 * file order, and the first failure in file order is the one reported, once every apply has ended.
 */
export async function applyManifests(client: KubeClient, dir: string, opts: ApplyOptions = {}): Promise<AppliedRef[]> {
  const c = client.withFieldManager(opts.fieldManager ?? 'modelplane-dev');
  const applyOne = async ({ obj, file }: { obj: KubeObject; file: string }): Promise<AppliedRef> => {
    try {
      await opts.gate?.(obj);
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
  const manifests = readManifests(dir);
  const results: Array<PromiseSettledResult<AppliedRef>> = [];
  for (const [i, m] of manifests.entries())
    if (!m.obj.metadata.namespace) results[i] = { status: 'fulfilled', value: await applyOne(m) };
  await Promise.all(
    manifests.map(async (m, i) => {
      if (!m.obj.metadata.namespace) return;
      results[i] = await applyOne(m).then(
        (value) => ({ status: 'fulfilled', value }),
        (reason: unknown) => ({ status: 'rejected', reason }),
      );
    }),
  );
  return results.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  });
}
