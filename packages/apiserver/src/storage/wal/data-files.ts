// The data directory's layout and the file operations that keep it crash-consistent.
//
//   wal-<G>.log        write-ahead log of generation G (records after snapshot G)
//   snapshot-<G>.snap  every object as of the start of wal-<G>.log (generation 1 has none: empty)
//   *.tmp              a file being written; never read, removed on open
//   LOCK               pid of the process using the directory
//
// Recovery reads the newest snapshot K and replays wal-K, wal-K+1, … in order. Older files are only removed
// after a newer snapshot is durable, so a crash at any point leaves a readable chain.
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export const LOG_MAGIC = Buffer.from('MPWAL\x00\x01\n', 'latin1');
export const SNAPSHOT_MAGIC = Buffer.from('MPSNP\x00\x01\n', 'latin1');
const LOCK_FILE = 'LOCK';

/** The data directory cannot be used as it is (missing files, held by another process). */
export class DataDirError extends Error {
  constructor(
    readonly dir: string,
    detail: string,
  ) {
    super(`data directory ${dir}: ${detail}`);
    this.name = 'DataDirError';
  }
}

const pad = (gen: number) => String(gen).padStart(10, '0');
export const logPath = (dir: string, gen: number) => join(dir, `wal-${pad(gen)}.log`);
export const snapshotPath = (dir: string, gen: number) => join(dir, `snapshot-${pad(gen)}.snap`);

export interface RecoveryPlan {
  /** newest snapshot, if any */
  snapshotGen?: number;
  /** logs to replay after the snapshot, oldest first; the last one is the live log */
  logGens: number[];
  /** superseded data files and leftovers of interrupted writes */
  obsolete: string[];
}

export function planRecovery(dir: string): RecoveryPlan {
  const snapshots: number[] = [];
  const logs: number[] = [];
  const obsolete: string[] = [];
  for (const name of readdirSync(dir)) {
    const m = /^(wal|snapshot)-(\d{10})\.(log|snap)$/.exec(name);
    if (m && (m[1] === 'wal') === (m[3] === 'log')) (m[1] === 'wal' ? logs : snapshots).push(Number(m[2]));
    else if (name.endsWith('.tmp')) obsolete.push(join(dir, name));
  }
  snapshots.sort((a, b) => a - b);
  logs.sort((a, b) => a - b);
  const snapshotGen = snapshots.at(-1);
  const first = snapshotGen ?? 1;
  for (const g of snapshots) if (g !== snapshotGen) obsolete.push(snapshotPath(dir, g));
  for (const g of logs) if (g < first) obsolete.push(logPath(dir, g));
  const logGens = logs.filter((g) => g >= first);
  if (logGens.length === 0 && snapshotGen !== undefined) {
    throw new DataDirError(
      dir,
      `${logPath(dir, snapshotGen)} is missing (it must exist next to ${snapshotPath(dir, snapshotGen)})`,
    );
  }
  for (let i = 0; i < logGens.length; i++) {
    if (logGens[i] !== first + i) {
      const missing = logPath(dir, first + i);
      const why =
        snapshotGen === undefined
          ? 'and no snapshot covers it'
          : `and ${snapshotPath(dir, snapshotGen)} does not cover it`;
      throw new DataDirError(
        dir,
        `${missing} is missing but ${logPath(dir, logGens[i]!)} exists, ${why}: objects would be lost`,
      );
    }
  }
  return { ...(snapshotGen !== undefined ? { snapshotGen } : {}), logGens, obsolete };
}

/** Makes renames, creations and removals in `dir` durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes a whole file so that after a crash it either exists complete or not at all. */
export function writeFileAtomically(path: string, dir: string, data: Buffer): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    let done = 0;
    while (done < data.length) done += writeSync(fd, data, done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDir(dir);
}

export function removeFiles(dir: string, paths: string[]): void {
  if (paths.length === 0) return;
  for (const p of paths) rmSync(p, { force: true });
  fsyncDir(dir);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims the directory for this process. A LOCK left by a process that no longer runs (killed) is taken
 * over; one held by a live process is refused, since two writers would interleave their logs.
 */
export function acquireLock(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  let holder: number | undefined;
  try {
    holder = Number.parseInt(readFileSync(path, 'utf8'), 10);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (holder !== undefined && Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
    throw new DataDirError(dir, `in use by process ${holder} (${path}); stop it first`);
  }
  writeFileSync(path, `${process.pid}\n`);
  return () => {
    try {
      if (Number.parseInt(readFileSync(path, 'utf8'), 10) === process.pid) rmSync(path, { force: true });
    } catch {
      // already gone: nothing to release
    }
  };
}
