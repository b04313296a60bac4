// The live write-ahead log: appends are synchronous writes to the kernel (so they survive the process being
// killed as soon as they return), and durability against power loss comes from fdatasync, either after
// every append ('always') or in groups shared by every write made while the previous fdatasync ran ('batch').
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { LOG_MAGIC, logPath, writeFileAtomically } from './data-files.ts';
import { encodeRecord } from './record-codec.ts';

export type Durability = 'always' | 'batch';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class LogWriter {
  /** records appended / known durable, counted from when this writer was opened */
  private appended = 0;
  private durable = 0;
  private syncing = false;
  private draining = false;
  private waiters: Waiter[] = [];
  private idleWaiters: Array<() => void> = [];
  private failure: Error | undefined;
  private sealed = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    private size: number,
    private readonly durability: Durability,
    private readonly maxPendingWrites: number,
  ) {}

  /** Starts a new, empty log file (created whole or not at all). */
  static create(dir: string, gen: number, durability: Durability, maxPendingWrites: number): LogWriter {
    const path = logPath(dir, gen);
    writeFileAtomically(path, dir, LOG_MAGIC);
    return new LogWriter(path, openSync(path, 'a'), LOG_MAGIC.length, durability, maxPendingWrites);
  }

  /** Continues an existing log whose intact records end at `validEnd`; a torn tail after it is cut off. */
  static reopen(path: string, validEnd: number, durability: Durability, maxPendingWrites: number): LogWriter {
    const fd = openSync(path, 'a');
    try {
      if (fstatSync(fd).size !== validEnd) {
        ftruncateSync(fd, validEnd);
        fdatasyncSync(fd);
      }
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new LogWriter(path, fd, validEnd, durability, maxPendingWrites);
  }

  /** File size, magic included. */
  get bytes(): number {
    return this.size;
  }

  /** Appends one record; when this returns the record is in the kernel (and on disk for 'always'). */
  append(payload: Buffer): void {
    if (this.failure) throw this.failure;
    if (this.sealed) throw new Error(`write-ahead log ${this.path} is closed`);
    const frame = encodeRecord(payload);
    try {
      let done = 0;
      while (done < frame.length) done += writeSync(this.fd, frame, done);
    } catch (e) {
      // Cut the partial record off so the log stays readable; the write was never acknowledged.
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // the failure below already stops every later write
      }
      throw this.fail(`append to ${this.path} at byte offset ${this.size} failed`, e);
    }
    this.size += frame.length;
    this.appended++;
    if (this.durability === 'always' || this.appended - this.durable >= this.maxPendingWrites) this.syncInline();
  }

  /** Resolves once every record appended before the call is on disk. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.durable >= this.appended) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.appended, resolve, reject });
      this.startSync();
    });
  }

  /** Waits until no background fdatasync is running, and keeps new ones from starting until seal(). */
  async drain(): Promise<void> {
    this.draining = true;
    while (this.syncing) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /**
   * Makes everything durable and closes the file. Synchronous so that a caller switching to a new log can
   * do it with no write slipping in between; requires drain() first.
   */
  seal(): void {
    if (this.sealed) {
      if (this.failure) throw this.failure;
      return;
    }
    if (this.syncing)
      throw new Error(`write-ahead log ${this.path}: seal() while an fdatasync is running (call drain() first)`);
    try {
      if (!this.failure && this.durable < this.appended) this.syncInline();
    } finally {
      this.sealed = true;
      closeSync(this.fd);
      const failure = this.failure ?? new Error(`write-ahead log ${this.path} is closed`);
      for (const w of this.waiters.splice(0)) w.reject(failure);
    }
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await this.drain();
    this.seal();
  }

  /** fdatasync now, on the calling thread (startup records and tests). */
  syncNow(): void {
    if (this.failure) throw this.failure;
    if (this.syncing) throw new Error(`write-ahead log ${this.path}: syncNow() while an fdatasync is running`);
    this.syncInline();
  }

  private syncInline(): void {
    try {
      fdatasyncSync(this.fd);
    } catch (e) {
      throw this.fail(`fdatasync of ${this.path} failed`, e);
    }
    this.markDurable(this.appended);
  }

  private startSync(): void {
    if (this.syncing || this.draining || this.failure || this.waiters.length === 0) return;
    this.syncing = true;
    const target = this.appended;
    fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (err) this.fail(`fdatasync of ${this.path} failed`, err);
      else this.markDurable(target);
      for (const r of this.idleWaiters.splice(0)) r();
      this.startSync();
    });
  }

  private markDurable(seq: number): void {
    if (seq > this.durable) this.durable = seq;
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.seq <= this.durable) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * After a failed write or fdatasync the kernel may have dropped dirty pages, so retrying cannot prove
   * anything durable: every later write and flush fails instead.
   */
  private fail(what: string, cause: unknown): Error {
    this.failure ??= new Error(
      `${what}: ${(cause as Error).message}; persistence stopped, no further writes are accepted`,
      { cause },
    );
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
    return this.failure;
  }
}
