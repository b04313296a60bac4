// Helpers shared by the persistence tests and the crash-test child process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectStore } from '../../src/storage/store.ts';
import { LOG_MAGIC } from '../../src/storage/wal/data-files.ts';
import { type ScannedRecord, scanRecords } from '../../src/storage/wal/record-codec.ts';
import type { KubeObject } from '../../src/types.ts';

export const CONFIGMAPS = '/configmaps';
export const NAMESPACES = '/namespaces';

const created: string[] = [];
process.on('exit', () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed when the test process exits. */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-wal-'));
  created.push(dir);
  return dir;
}

/** A ConfigMap whose data is about `bytes` long, like the 2 KiB objects of the API server benchmark. */
export function configMap(name: string, payload: string, bytes = 2048): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'wal-test' } },
    data: { payload, filler: 'x'.repeat(Math.max(0, bytes - payload.length - 200)) },
  };
}

export function namespace(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, uid: `uid-ns-${name}` },
    status: { phase: 'Active' },
  };
}

/** storage key → name → resourceVersion, the part of a store the crash test compares. */
export function rvIndex(store: ObjectStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const k of store.storageKeys()) {
    for (const o of store.list(k))
      out.set(`${k} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, o.metadata.resourceVersion!);
  }
  return out;
}

/** Every object in the store, for exact comparisons after a reload. */
export function dump(store: ObjectStore): Record<string, KubeObject[]> {
  const out: Record<string, KubeObject[]> = {};
  for (const k of store.storageKeys().sort()) if (store.count(k) > 0) out[k] = store.list(k);
  return out;
}

export function logRecords(path: string): ScannedRecord[] {
  const buf = readFileSync(path);
  if (!buf.subarray(0, LOG_MAGIC.length).equals(LOG_MAGIC)) throw new Error(`${path} is not a write-ahead log`);
  return scanRecords(buf, path, false).records;
}
