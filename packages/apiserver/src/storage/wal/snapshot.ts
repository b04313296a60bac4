// Snapshots: every object at one resourceVersion, so the log before it can be dropped. Layout (records
// framed by record-codec): a header {format, version, generation, rv, objects}, one {k, o} record per
// object (k = storage key), and a trailer {end: true, objects}. Written to a .tmp file, fsynced, renamed
// and the directory fsynced, so a snapshot file that exists is complete; a missing trailer is corruption.

import { readFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { KubeObject } from '../../types.ts';
import { fsyncDir, SNAPSHOT_MAGIC, snapshotPath } from './data-files.ts';
import {
  checkMagic,
  DataFileCorruptError,
  encodeRecord,
  parsePayload,
  type ScannedRecord,
  scanRecords,
} from './record-codec.ts';

const FORMAT = 'modelplane-snapshot';
const VERSION = 1;
/** how much serialised data is built before yielding to the event loop */
const CHUNK_BYTES = 256 * 1024;

export interface SnapshotState {
  rv: number;
  /** storage key → its objects (references: stored objects are never mutated) */
  tables: Array<[string, KubeObject[]]>;
}

export interface LoadedSnapshot {
  path: string;
  rv: number;
  objects: Array<{ storageKey: string; object: KubeObject }>;
}

/** Checks that a persisted object has what the store needs to index it. */
export function checkStoredObject(o: unknown, path: string, record: ScannedRecord): KubeObject {
  const meta = (o as KubeObject | undefined)?.metadata;
  if (typeof o !== 'object' || o === null || typeof meta !== 'object' || meta === null) {
    throw new DataFileCorruptError(path, record.offset, 'object has no metadata');
  }
  if (typeof meta.name !== 'string' || meta.name === '')
    throw new DataFileCorruptError(path, record.offset, 'object has no metadata.name');
  if (meta.namespace !== undefined && typeof meta.namespace !== 'string') {
    throw new DataFileCorruptError(path, record.offset, `object ${meta.name} has a non-string metadata.namespace`);
  }
  if (typeof meta.resourceVersion !== 'string' || !/^[1-9]\d*$/.test(meta.resourceVersion)) {
    throw new DataFileCorruptError(
      path,
      record.offset,
      `object ${meta.name} has metadata.resourceVersion ${JSON.stringify(meta.resourceVersion)}, expected a positive integer`,
    );
  }
  return o as KubeObject;
}

export async function writeSnapshot(
  dir: string,
  gen: number,
  state: SnapshotState,
): Promise<{ path: string; bytes: number }> {
  const path = snapshotPath(dir, gen);
  const tmp = `${path}.tmp`;
  const count = state.tables.reduce((n, [, objs]) => n + objs.length, 0);
  const handle = await open(tmp, 'w');
  let bytes = 0;
  try {
    let chunk: Buffer[] = [];
    let chunkBytes = 0;
    const add = async (value: unknown, magic?: Buffer) => {
      const b = magic ?? encodeRecord(Buffer.from(JSON.stringify(value)));
      chunk.push(b);
      chunkBytes += b.length;
      if (chunkBytes >= CHUNK_BYTES) await flushChunk();
    };
    const flushChunk = async () => {
      const data = Buffer.concat(chunk);
      chunk = [];
      chunkBytes = 0;
      await handle.write(data);
      bytes += data.length;
    };
    await add(undefined, SNAPSHOT_MAGIC);
    await add({ format: FORMAT, version: VERSION, generation: gen, rv: state.rv, objects: count });
    for (const [k, objs] of state.tables) for (const o of objs) await add({ k, o });
    await add({ end: true, objects: count });
    await flushChunk();
    await handle.datasync();
  } catch (e) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
  await handle.close();
  await rename(tmp, path);
  fsyncDir(dir);
  return { path, bytes };
}

export function readSnapshot(dir: string, gen: number): LoadedSnapshot {
  const path = snapshotPath(dir, gen);
  const buf = readFileSync(path);
  checkMagic(buf, SNAPSHOT_MAGIC, path);
  const { records, validEnd } = scanRecords(buf, path, false);
  const first = records[0];
  if (!first) throw new DataFileCorruptError(path, validEnd, 'snapshot has no header record');
  const header = parsePayload(first, path);
  if (header.format !== FORMAT || header.version !== VERSION) {
    throw new DataFileCorruptError(
      path,
      first.offset,
      `snapshot header has format ${JSON.stringify(header.format)} version ${JSON.stringify(header.version)}, expected ${FORMAT} version ${VERSION}`,
    );
  }
  if (!Number.isSafeInteger(header.rv) || (header.rv as number) < 0)
    throw new DataFileCorruptError(
      path,
      first.offset,
      `snapshot header has resourceVersion ${JSON.stringify(header.rv)}`,
    );
  const last = records.at(-1)!;
  const trailer = records.length > 1 ? parsePayload(last, path) : undefined;
  if (trailer?.end !== true)
    throw new DataFileCorruptError(path, validEnd, 'snapshot ends without its trailer record (truncated)');
  const objects: LoadedSnapshot['objects'] = [];
  for (const record of records.slice(1, -1)) {
    const entry = parsePayload(record, path);
    if (typeof entry.k !== 'string')
      throw new DataFileCorruptError(path, record.offset, 'snapshot record has no storage key');
    const object = checkStoredObject(entry.o, path, record);
    if (Number(object.metadata.resourceVersion) > (header.rv as number)) {
      throw new DataFileCorruptError(
        path,
        record.offset,
        `object ${entry.k} ${object.metadata.name} has resourceVersion ${object.metadata.resourceVersion}, newer than the snapshot's ${header.rv}`,
      );
    }
    objects.push({ storageKey: entry.k, object });
  }
  if (trailer.objects !== objects.length || header.objects !== objects.length) {
    throw new DataFileCorruptError(
      path,
      last.offset,
      `snapshot holds ${objects.length} objects but its header says ${header.objects} and its trailer ${trailer.objects}`,
    );
  }
  return { path, rv: header.rv as number, objects };
}
