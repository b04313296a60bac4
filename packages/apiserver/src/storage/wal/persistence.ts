// Crash-safe persistence for the object store (`--data-dir`): a write-ahead log of every committed write
// plus periodic snapshots. Usage:
//
//   const p = openPersistence(dir);          // claims the directory (LOCK)
//   p.load(store);                           // snapshot + logs → store, counter moved on, history compacted,
//                                            // store.sink = p.sink
//   store.commit(...); await p.flush();      // acknowledge the write only after flush() resolves
//   await p.close();
//
// Durability: sink.write() appends synchronously before commit() returns, so a committed write survives
// the process being killed. flush() resolves once the write is also fdatasynced (survives power loss); in
// 'batch' mode one fdatasync covers every write made while the previous one ran (group commit).
//
// Writes are visible to readers and watchers before flush() resolves, so in 'batch' mode a crash can take
// back a resourceVersion someone saw. load() therefore moves the counter past every resourceVersion that
// could have been handed out (at most maxPendingWrites beyond the last durable one), records that, and
// compacts the store: a watch resumed from any earlier resourceVersion gets 410 and relists, and no
// resourceVersion is ever reused for different content.
import type { ObjectStore, StoredEvent, WriteSink } from '../store.ts';
import { acquireLock, logPath, removeFiles, snapshotPath } from './data-files.ts';
import { type Durability, LogWriter } from './log-writer.ts';
import { type LogEntry, recoverInto } from './recovery.ts';
import { type SnapshotState, writeSnapshot } from './snapshot.ts';

export { DataDirError } from './data-files.ts';
export type { Durability } from './log-writer.ts';
export { DataFileCorruptError } from './record-codec.ts';

export interface PersistenceOptions {
  /** 'batch' (default): flush() waits for a shared fdatasync; 'always': every write is fdatasynced inside commit() */
  durability?: Durability;
  /** start a snapshot once this much log has been written since the last one (default 64 MiB) */
  snapshotAfterBytes?: number;
  /** … or this many writes (default 100,000) */
  snapshotAfterWrites?: number;
  /** 'batch' mode: writes not yet fdatasynced never exceed this; reaching it syncs inside commit() (default 4,096) */
  maxPendingWrites?: number;
  /** torn-tail and failed-snapshot reports (default: console.warn) */
  warn?: (message: string) => void;
}

export interface LoadReport {
  dir: string;
  objects: number;
  /** the highest resourceVersion found on disk */
  persistedRv: number;
  /** the store's counter after load: the next write gets this + 1 */
  rv: number;
  snapshot?: string;
  logRecords: number;
  /** an incomplete last record that was cut off (a crash mid-append; never acknowledged) */
  tornTail?: { path: string; offset: number; bytes: number; reason: string };
}

export interface Persistence {
  readonly dir: string;
  /** what load() attaches as store.sink; throws once persistence has failed or closed */
  readonly sink: WriteSink;
  /** Loads the directory into an empty store and attaches the sink. Throws DataFileCorruptError / DataDirError. */
  load(store: ObjectStore): LoadReport;
  /** Resolves when every write committed before the call is on disk; rejects if persistence failed. */
  flush(): Promise<void>;
  /** Writes a snapshot now and drops the log it replaces (also triggered automatically). */
  snapshot(): Promise<void>;
  /** Finishes a running snapshot, syncs and closes the log, releases the directory. */
  close(): Promise<void>;
}

const DEFAULTS = {
  durability: 'batch',
  snapshotAfterBytes: 64 * 1024 * 1024,
  snapshotAfterWrites: 100_000,
  maxPendingWrites: 4096,
} as const;

export function openPersistence(dir: string, options: PersistenceOptions = {}): Persistence {
  return new WalPersistence(dir, options);
}

class WalPersistence implements Persistence {
  readonly sink: WriteSink;
  private readonly durability: Durability;
  private readonly snapshotAfterBytes: number;
  private readonly snapshotAfterWrites: number;
  private readonly maxPendingWrites: number;
  private readonly warn: (message: string) => void;
  private readonly releaseLock: () => void;
  private store: ObjectStore | undefined;
  private log: LogWriter | undefined;
  /** generation of the live log, and the oldest generation whose files are still needed */
  private gen = 0;
  private oldestGen = 1;
  private writesSinceSnapshot = 0;
  private bytesSinceSnapshot = 0;
  private snapshotting: Promise<void> | undefined;
  private snapshotScheduled = false;
  private closing: Promise<void> | undefined;

  constructor(
    readonly dir: string,
    options: PersistenceOptions,
  ) {
    this.durability = options.durability ?? DEFAULTS.durability;
    this.snapshotAfterBytes = options.snapshotAfterBytes ?? DEFAULTS.snapshotAfterBytes;
    this.snapshotAfterWrites = options.snapshotAfterWrites ?? DEFAULTS.snapshotAfterWrites;
    this.maxPendingWrites = Math.max(1, options.maxPendingWrites ?? DEFAULTS.maxPendingWrites);
    this.warn = options.warn ?? ((m) => console.warn(m));
    this.releaseLock = acquireLock(dir);
    this.sink = { write: (event, rv) => this.append(event, rv) };
  }

  load(store: ObjectStore): LoadReport {
    if (this.store) throw new Error(`persistence for ${this.dir} is already loaded`);
    if (this.closing) throw new Error(`persistence for ${this.dir} is closed`);
    const state = recoverInto(this.dir, store);
    if (state.torn) {
      const t = state.torn;
      this.warn(
        `${t.path}: cut off an incomplete last record at byte offset ${t.offset} (${t.bytes} bytes: ${t.reason}); a crash interrupted that write before it was acknowledged`,
      );
    }
    removeFiles(this.dir, state.obsolete);
    this.log = state.live
      ? LogWriter.reopen(state.live.path, state.live.validEnd, this.durability, this.maxPendingWrites)
      : LogWriter.create(this.dir, state.nextGen, this.durability, this.maxPendingWrites);
    this.gen = state.live?.gen ?? state.nextGen;
    this.oldestGen = state.snapshotGen ?? 1;
    this.writesSinceSnapshot = state.logRecords;
    this.bytesSinceSnapshot = this.log.bytes;

    let rv = state.rv;
    if (this.durability === 'batch' && rv > 0) {
      rv += this.maxPendingWrites;
      this.appendEntry({ t: 'rv', rv });
      this.log.syncNow();
    }
    store.setRv(rv);
    store.compact();
    this.store = store;
    store.sink = this.sink;
    const report: LoadReport = {
      dir: this.dir,
      objects: state.objects,
      persistedRv: state.rv,
      rv,
      logRecords: state.logRecords,
    };
    if (state.snapshot) report.snapshot = state.snapshot;
    if (state.torn)
      report.tornTail = {
        path: state.torn.path,
        offset: state.torn.offset,
        bytes: state.torn.bytes,
        reason: state.torn.reason,
      };
    return report;
  }

  flush(): Promise<void> {
    return this.log ? this.log.flush() : Promise.resolve();
  }

  snapshot(): Promise<void> {
    if (!this.store || !this.log)
      return Promise.reject(new Error(`persistence for ${this.dir}: snapshot() before load()`));
    this.snapshotting ??= this.writeSnapshot().finally(() => {
      this.snapshotting = undefined;
    });
    return this.snapshotting;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.snapshotting?.catch(() => {});
        await this.log?.close();
      } finally {
        this.releaseLock();
      }
    })();
    return this.closing;
  }

  private append(event: StoredEvent, rv: number): void {
    if (!this.log) throw new Error(`persistence for ${this.dir}: write of resourceVersion ${rv} before load()`);
    if (this.closing) throw new Error(`persistence for ${this.dir} is closed: write of resourceVersion ${rv} refused`);
    const meta = event.object.metadata;
    this.appendEntry(
      event.type === 'DELETED'
        ? { t: 'del', k: event.storageKey, rv, ...(meta.namespace ? { ns: meta.namespace } : {}), n: meta.name! }
        : { t: 'put', k: event.storageKey, rv, o: event.object },
    );
    if (!this.snapshotScheduled && !this.snapshotting && this.snapshotDue()) {
      // Not inside commit(): the caller is mid-write, and a snapshot needs a turn of its own.
      this.snapshotScheduled = true;
      setImmediate(() => {
        this.snapshotScheduled = false;
        if (this.closing || this.snapshotting || !this.snapshotDue()) return;
        this.snapshot().catch((e: Error) =>
          this.warn(`snapshot of ${this.dir} failed, the log is kept instead: ${e.message}`),
        );
      });
    }
  }

  private snapshotDue(): boolean {
    return this.writesSinceSnapshot >= this.snapshotAfterWrites || this.bytesSinceSnapshot >= this.snapshotAfterBytes;
  }

  private appendEntry(entry: LogEntry): void {
    const log = this.log!;
    const before = log.bytes;
    log.append(Buffer.from(JSON.stringify(entry)));
    this.bytesSinceSnapshot += log.bytes - before;
    this.writesSinceSnapshot++;
  }

  private async writeSnapshot(): Promise<void> {
    const store = this.store!;
    await this.log!.drain();
    // From here to the capture nothing yields, so the snapshot is exactly the sealed logs' content.
    // The old log is made durable before the new one exists: only the newest log may end in a torn record.
    const old = this.log!;
    old.seal();
    const gen = this.gen + 1;
    try {
      this.log = LogWriter.create(this.dir, gen, this.durability, this.maxPendingWrites);
    } catch (e) {
      this.log = LogWriter.reopen(old.path, old.bytes, this.durability, this.maxPendingWrites);
      throw e;
    }
    this.gen = gen;
    this.writesSinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
    const state: SnapshotState = { rv: store.currentRv(), tables: [] };
    for (const k of store.storageKeys()) if (store.count(k) > 0) state.tables.push([k, store.list(k)]);

    await writeSnapshot(this.dir, gen, state);
    const superseded: string[] = [];
    for (let g = this.oldestGen; g < gen; g++) superseded.push(logPath(this.dir, g), snapshotPath(this.dir, g));
    this.oldestGen = gen;
    removeFiles(this.dir, superseded);
  }
}
