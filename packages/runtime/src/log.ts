// Structured logging: one JSON object per line on stderr, so logs from several controllers (and several
// processes in tests) can be filtered by field rather than by grepping prose.
//
// The level comes from MODELPLANE_LOG_LEVEL (debug|info|warn|error|silent, default info); the test runner
// sets it to `silent`. Child loggers carry bound fields (controller, object key, …) into every line.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;

export interface LogSink {
  write(line: string): void;
}

const stderrSink: LogSink = { write: (line) => process.stderr.write(line) };
let processSink: LogSink = stderrSink;

/**
 * Where loggers created without an explicit sink write: stderr unless a command redirects it (e.g.
 * `modelplane dev` sends the JSON lines to a file and shows only readable warnings). Loggers made before
 * the call follow the redirect too.
 */
export function setProcessLogSink(sink: LogSink | undefined): void {
  processSink = sink ?? stderrSink;
}

const defaultSink: LogSink = { write: (line) => processSink.write(line) };

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  return v in LEVEL_RANK ? (v as LogLevel) : fallback;
}

/** Turns an Error (or anything thrown) into something JSON.stringify keeps: Errors serialise to `{}` otherwise. */
function serialiseValue(value: unknown): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    for (const k of ['code', 'reason', 'cause'] as const) {
      const v = (value as unknown as Record<string, unknown>)[k];
      if (v !== undefined && typeof v !== 'object') out[k] = v;
    }
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export class Logger {
  readonly level: LogLevel;
  private readonly rank: number;

  constructor(
    private readonly fields: LogFields = {},
    level: LogLevel = parseLogLevel(process.env.MODELPLANE_LOG_LEVEL),
    private readonly sink: LogSink = defaultSink,
  ) {
    this.level = level;
    this.rank = LEVEL_RANK[level];
  }

  child(fields: LogFields): Logger {
    return new Logger({ ...this.fields, ...fields }, this.level, this.sink);
  }

  enabled(level: Exclude<LogLevel, 'silent'>): boolean {
    return LEVEL_RANK[level] >= this.rank;
  }

  debug(msg: string, fields?: LogFields): void {
    this.log('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.log('error', msg, fields);
  }

  private log(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void {
    if (LEVEL_RANK[level] < this.rank) return;
    const record: LogFields = { ts: new Date().toISOString(), level, msg };
    for (const [k, v] of Object.entries(this.fields)) record[k] = serialiseValue(v);
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = serialiseValue(v);
    let line: string;
    try {
      line = JSON.stringify(record);
    } catch {
      // circular structures in a field must not take the process down with them
      line = JSON.stringify({ ts: record.ts, level, msg, logError: 'fields not serialisable' });
    }
    this.sink.write(line + '\n');
  }
}

let root: Logger | undefined;

/** The process-wide root logger (created lazily so tests can set MODELPLANE_LOG_LEVEL first). */
export function rootLogger(): Logger {
  root ??= new Logger({});
  return root;
}
