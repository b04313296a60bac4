// Where `modelplane dev`'s structured logs go: every JSON line to a file under .modelplane/logs/, and to the
// terminal only what a person should read there: warnings and errors (all levels with --verbose), each as
// one readable line. The file keeps the JSON (packages/runtime/src/log.ts) for filtering by field.
import { createWriteStream, mkdirSync, readdirSync, rmSync, type WriteStream } from 'node:fs';
import { join, relative } from 'node:path';
import type { LogSink } from '@modelplane/runtime/log';
import { fit } from './render.ts';

const LEVEL_RANK: Record<string, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const LEVEL_COLOR: Record<string, string> = { debug: '\x1b[2m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' };
const WHO = ['controller', 'component', 'manager'] as const;
/** not shown on the terminal: the header says them, or they differ on every line (the file keeps them) */
const SKIP = new Set(['ts', 'level', 'msg', 'reconcileID', ...WHO]);

function valueText(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (v !== null && typeof v === 'object' && 'message' in (v as object))
    return JSON.stringify(String((v as { message: unknown }).message));
  return JSON.stringify(v);
}

function parseRecord(line: string): Record<string, unknown> | undefined {
  try {
    const rec = JSON.parse(line) as unknown;
    return rec !== null && typeof rec === 'object' && !Array.isArray(rec)
      ? (rec as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What makes two log lines "the same message again" for the terminal: level, who, message and object,
 * never the time or the reconcile ID. Repeats of one key are shown as one line with a count.
 */
export function repeatKey(line: string): string {
  const rec = parseRecord(line);
  if (!rec) return line.trimEnd();
  const who = WHO.map((k) => rec[k]).find((v) => typeof v === 'string');
  return JSON.stringify([rec.level, who, rec.msg, rec.object, rec.reason, rec.error]);
}

/**
 * One readable line for a JSON log line: `23:59:01 WARN  controller-name: message key=value …`, cut to
 * `width` columns when given (the file keeps the whole line). A line that is not JSON is returned as it is
 * (trimmed), so nothing written to the log is ever lost from view.
 */
export function formatLogLine(line: string, opts: { color?: boolean; width?: number } = {}): string {
  const rec = parseRecord(line);
  if (!rec) return fit(line.trimEnd(), opts.width);
  const level = String(rec.level ?? 'info');
  const time = typeof rec.ts === 'string' ? rec.ts.slice(11, 19) : '';
  const who = WHO.map((k) => rec[k]).find((v) => typeof v === 'string');
  const fields = Object.entries(rec)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}=${valueText(v)}`);
  const tag = level.toUpperCase().padEnd(5);
  const text = fit(
    [time, tag, `${who ? `${who}: ` : ''}${String(rec.msg ?? '')}`, ...fields].filter((s) => s !== '').join(' '),
    opts.width,
  );
  if (!opts.color) return text;
  // the tag is coloured after cutting, so the escape codes never count as columns
  const at = time ? time.length + 1 : 0;
  return `${text.slice(0, at)}${LEVEL_COLOR[level] ?? ''}${text.slice(at, at + tag.length)}\x1b[0m${text.slice(at + tag.length)}`;
}

function levelOf(line: string): number {
  const m = /"level":"(\w+)"/.exec(line);
  return LEVEL_RANK[m?.[1] ?? ''] ?? LEVEL_RANK.info!;
}

export interface LogRouterOptions {
  /** the folder of log files (created); the file is named after the command and the start time */
  dir: string;
  command: string;
  /** how many earlier files of this command to keep (default 10): the folder does not grow without end */
  keep?: number;
  /** show every line on the terminal, not just warnings and errors */
  verbose: boolean;
  /** where readable lines go (the terminal view prints them above its live region); repeats share a key */
  show(line: string, repeatKey: string): void;
  color?: boolean;
  /** the terminal's width now: each shown line is cut to it, so one log line is one row */
  width?: () => number | undefined;
  now?: Date;
}

/** deletes all but the newest `keep` earlier log files of `command` (names sort by their start time) */
export function pruneOldLogs(dir: string, command: string, keep: number, current: string): void {
  const earlier = readdirSync(dir)
    .filter((f) => f.startsWith(`${command}-`) && f.endsWith('.jsonl') && join(dir, f) !== current)
    .sort();
  for (const f of earlier.slice(0, Math.max(0, earlier.length - keep))) rmSync(join(dir, f), { force: true });
}

/** a LogSink for setProcessLogSink: the file gets every line, the terminal the readable subset */
export class LogRouter implements LogSink {
  readonly path: string;
  private readonly file: WriteStream;

  constructor(private readonly opts: LogRouterOptions) {
    mkdirSync(opts.dir, { recursive: true });
    const stamp = (opts.now ?? new Date()).toISOString().replace(/[:.]/g, '-').slice(0, 19);
    this.path = join(opts.dir, `${opts.command}-${stamp}.jsonl`);
    this.file = createWriteStream(this.path, { flags: 'a' });
    pruneOldLogs(opts.dir, opts.command, opts.keep ?? 10, this.path);
  }

  /** the file's path relative to the working directory when it is inside it (what the user types) */
  displayPath(cwd = process.cwd()): string {
    const rel = relative(cwd, this.path);
    return rel.startsWith('..') ? this.path : rel;
  }

  write(line: string): void {
    this.file.write(line.endsWith('\n') ? line : `${line}\n`);
    if (this.opts.verbose || levelOf(line) >= LEVEL_RANK.warn!) {
      // five columns stay free for the view's repeat count (" ×123")
      const columns = this.opts.width?.();
      const width = columns ? Math.max(20, columns - 5) : undefined;
      this.opts.show(
        formatLogLine(line, { ...(this.opts.color ? { color: true } : {}), ...(width ? { width } : {}) }),
        repeatKey(line),
      );
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.file.end(resolve));
  }
}
