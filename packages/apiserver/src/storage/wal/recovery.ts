// Startup: newest snapshot, then every log after it in order, into an empty store. Anything that would
// leave objects missing (a damaged record with intact data after it, a gap in the log chain, a snapshot
// without its trailer) throws an error naming the file and byte offset; only an incomplete last record of
// the newest log (a crash mid-append: never acknowledged) is dropped, and reported.
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../types.ts';
import type { ObjectStore } from '../store.ts';
import { LOG_MAGIC, logPath, planRecovery } from './data-files.ts';
import {
  checkMagic,
  DataFileCorruptError,
  parsePayload,
  type ScannedRecord,
  scanRecords,
  type TornTail,
} from './record-codec.ts';
import { checkStoredObject, readSnapshot } from './snapshot.ts';

/** One write-ahead log record: an object stored, an object removed, or the counter moved on at startup. */
export type LogEntry =
  | { t: 'put'; k: string; rv: number; o: unknown }
  | { t: 'del'; k: string; rv: number; ns?: string; n: string }
  | { t: 'rv'; rv: number };

export interface RecoveredState {
  /** the highest resourceVersion found */
  rv: number;
  objects: number;
  snapshot?: string;
  snapshotGen?: number;
  logRecords: number;
  torn?: TornTail & { path: string };
  /** the newest log, to continue appending to */
  live?: { gen: number; path: string; validEnd: number };
  /** the generation the next new log gets if there is no live one */
  nextGen: number;
  obsolete: string[];
}

function readEntry(record: ScannedRecord, path: string): LogEntry {
  const e = parsePayload(record, path);
  if (!Number.isSafeInteger(e.rv) || (e.rv as number) <= 0)
    throw new DataFileCorruptError(path, record.offset, `log record has resourceVersion ${JSON.stringify(e.rv)}`);
  if (e.t === 'rv') return e as LogEntry;
  if (typeof e.k !== 'string' || e.k === '')
    throw new DataFileCorruptError(path, record.offset, 'log record has no storage key');
  if (e.t === 'put') {
    const o = checkStoredObject(e.o, path, record);
    if (o.metadata.resourceVersion !== String(e.rv)) {
      throw new DataFileCorruptError(
        path,
        record.offset,
        `object ${e.k} ${o.metadata.name} has resourceVersion ${o.metadata.resourceVersion} but its log record says ${e.rv}`,
      );
    }
    return e as LogEntry;
  }
  if (e.t === 'del') {
    if (typeof e.n !== 'string' || e.n === '' || (e.ns !== undefined && typeof e.ns !== 'string')) {
      throw new DataFileCorruptError(path, record.offset, `delete record for ${e.k} has no object name`);
    }
    return e as LogEntry;
  }
  throw new DataFileCorruptError(path, record.offset, `log record has unknown type ${JSON.stringify(e.t)}`);
}

/** Loads the directory's state into `store`, which must be empty. */
export function recoverInto(dir: string, store: ObjectStore): RecoveredState {
  if (store.currentRv() !== 0 || store.storageKeys().some((k) => store.count(k) > 0)) {
    throw new Error(
      `cannot load ${dir} into a store that already holds objects (resourceVersion ${store.currentRv()})`,
    );
  }
  const plan = planRecovery(dir);
  const out: RecoveredState = {
    rv: 0,
    objects: 0,
    logRecords: 0,
    nextGen: plan.snapshotGen ?? 1,
    obsolete: plan.obsolete,
  };
  if (plan.snapshotGen !== undefined) {
    const snap = readSnapshot(dir, plan.snapshotGen);
    for (const { storageKey, object } of snap.objects) store.load(storageKey, object);
    out.rv = snap.rv;
    out.snapshot = snap.path;
    out.snapshotGen = plan.snapshotGen;
  }
  plan.logGens.forEach((gen, i) => {
    const path = logPath(dir, gen);
    const isLive = i === plan.logGens.length - 1;
    const buf = readFileSync(path);
    checkMagic(buf, LOG_MAGIC, path);
    const scan = scanRecords(buf, path, isLive);
    for (const record of scan.records) {
      const e = readEntry(record, path);
      if (e.rv <= out.rv) {
        throw new DataFileCorruptError(
          path,
          record.offset,
          `log record has resourceVersion ${e.rv}, not after the preceding ${out.rv}`,
        );
      }
      out.rv = e.rv;
      if (e.t === 'put') store.load(e.k, e.o as KubeObject);
      else if (e.t === 'del') store.unload(e.k, e.ns, e.n);
      out.logRecords++;
    }
    if (scan.torn) out.torn = { ...scan.torn, path };
    if (isLive) out.live = { gen, path, validEnd: scan.validEnd };
  });
  out.nextGen = (out.live?.gen ?? out.nextGen - 1) + 1;
  out.objects = store.storageKeys().reduce((n, k) => n + store.count(k), 0);
  return out;
}
