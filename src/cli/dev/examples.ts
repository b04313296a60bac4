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

export async function applyManifests(
  client: KubeClient,
  dir: string,
  fieldManager = 'modelplane-dev',
): Promise<AppliedRef[]> {
  const c = client.withFieldManager(fieldManager);
  const applied: AppliedRef[] = [];
  for (const { obj, file } of readManifests(dir)) {
    try {
      await c.apply(obj);
    } catch (e) {
      throw new Error(
        `applying ${obj.kind} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name} from ${file}: ${(e as Error).message}`,
      );
    }
    applied.push({
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name!,
      file,
    });
  }
  return applied;
}
