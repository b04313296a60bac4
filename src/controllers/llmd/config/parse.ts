// Parsing and validating the autoscaler's ConfigMaps (docs/autoscaling.md, "Configuration"). Pure: a
// ConfigMap's data (and what the same ConfigMap gave last time) in, the usable entries and one problem per
// rejected entry out. A rejected entry keeps its last good version when it had one, else it is skipped;
// the others are used either way.
import { parse as parseYaml } from 'yaml';
import { parseIntervalMs } from './duration.ts';

/** the thresholds of one model (V1 saturation analysis) */
export interface SaturationConfig {
  /** a replica is saturated when its KV-cache use reaches this (0..1) */
  readonly kvCacheThreshold: number;
  /** …or when this many requests wait in its queue (>= 0) */
  readonly queueLengthThreshold: number;
  /** scale up when the average spare KV cache of the non-saturated replicas falls below this (0..1) */
  readonly kvSpareTrigger: number;
  /** scale up when their average spare queue falls below this (>= 0) */
  readonly queueSpareTrigger: number;
}

/** an entry other than `default`: applies to one model (optionally only in one namespace) */
export interface ModelOverride {
  readonly entry: string;
  readonly modelID: string;
  readonly namespace?: string;
  readonly config: SaturationConfig;
}

export interface ParsedSaturationConfig {
  readonly defaultConfig?: SaturationConfig;
  readonly overrides: readonly ModelOverride[];
}

export interface EntryProblem {
  /** the data key of the ConfigMap */
  entry: string;
  /** the field at fault (or "" when the entry is not YAML at all) */
  field: string;
  message: string;
  /** what happens instead: the last good version of the entry stays, or the entry is skipped */
  consequence: 'kept-last-good' | 'skipped';
}

/** used for the fields the `default` entry leaves out (the values of llm-d's sample ConfigMap) */
export const DOCUMENTED_DEFAULTS: SaturationConfig = Object.freeze({
  kvCacheThreshold: 0.8,
  queueLengthThreshold: 5,
  kvSpareTrigger: 0.1,
  queueSpareTrigger: 3,
});

const NUMBER_FIELDS = ['kvCacheThreshold', 'queueLengthThreshold', 'kvSpareTrigger', 'queueSpareTrigger'] as const;
/**
 * Fields of llm-d's ConfigMap that select parts we do not implement (the GPU limiter, the V2 token-based
 * analyzer). An entry that asks for them is refused with a Warning rather than run without them; the value
 * that means "off" is accepted.
 */
const UNIMPLEMENTED: Record<string, { off: (v: unknown) => boolean; what: string }> = {
  enableLimiter: { off: (v) => v === false, what: 'the GPU limiter is not implemented; remove it or set it to false' },
  analyzerName: {
    off: (v) => v === '' || v === null,
    what: 'only the V1 saturation analysis is implemented; remove it or set it to ""',
  },
  scaleUpThreshold: {
    off: () => false,
    what: 'it is used only by the V2 analyzer, which is not implemented; remove it',
  },
  scaleDownBoundary: {
    off: () => false,
    what: 'it is used only by the V2 analyzer, which is not implemented; remove it',
  },
};
const KNOWN_FIELDS = new Set<string>([...NUMBER_FIELDS, ...Object.keys(UNIMPLEMENTED), 'model_id', 'namespace']);

/** GLOBAL_OPT_INTERVAL's bounds: below 1 s the cycles would flood Prometheus; above 24 h a timer overflows */
export const MIN_OPT_INTERVAL_MS = 1_000;
export const MAX_OPT_INTERVAL_MS = 24 * 3_600_000;

class EntryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The saturation ConfigMap's data: `default` plus per-model entries, each merged over `default` field by
 * field. `previous` is what the same ConfigMap gave last time: an entry that is now invalid keeps its last
 * good version from it (so a broken `default` beside a valid override keeps the good `default`).
 */
export function parseSaturationConfigMap(
  data: Readonly<Record<string, string>> | undefined,
  previous?: ParsedSaturationConfig,
): { config: ParsedSaturationConfig; problems: EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const raw = new Map<string, Record<string, unknown>>();
  const fail = (entry: string, err: unknown, kept: boolean) => problems.push(problemOf(entry, err, kept));
  for (const [entry, text] of Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    try {
      raw.set(entry, readEntry(text));
    } catch (err) {
      const last = entry === 'default' ? previous?.defaultConfig : previous?.overrides.find((o) => o.entry === entry);
      fail(entry, err, last !== undefined);
    }
  }
  let defaultConfig: SaturationConfig | undefined;
  if (data?.default !== undefined) {
    const defaultRaw = raw.get('default');
    try {
      if (defaultRaw) defaultConfig = resolveEntry(defaultRaw, DOCUMENTED_DEFAULTS);
    } catch (err) {
      fail('default', err, previous?.defaultConfig !== undefined);
    }
    defaultConfig ??= previous?.defaultConfig;
  }
  const overrides: ModelOverride[] = [];
  for (const entry of Object.keys(data ?? {}).sort((a, b) => a.localeCompare(b))) {
    if (entry === 'default') continue;
    const last = previous?.overrides.find((o) => o.entry === entry);
    const fields = raw.get(entry);
    if (!fields) {
      if (last) overrides.push(last);
      continue;
    }
    try {
      overrides.push(overrideOf(entry, fields, defaultConfig));
    } catch (err) {
      fail(entry, err, last !== undefined);
      if (last) overrides.push(last);
    }
  }
  return {
    config: Object.freeze({ ...(defaultConfig ? { defaultConfig } : {}), overrides: Object.freeze(overrides) }),
    problems,
  };
}

/**
 * GLOBAL_OPT_INTERVAL of the main ConfigMap: undefined when absent (the previous interval stays). A value
 * outside [1 s, 24 h] is clamped to the bound and reported (`problem` with `clamped: true`).
 */
export function parseOptimizationInterval(data: Readonly<Record<string, string>> | undefined): {
  ms?: number;
  problem?: EntryProblem;
} {
  const text = data?.GLOBAL_OPT_INTERVAL;
  if (text === undefined) return {};
  const r = parseIntervalMs(text);
  const problem = (message: string, consequence: EntryProblem['consequence']): EntryProblem => ({
    entry: 'GLOBAL_OPT_INTERVAL',
    field: 'GLOBAL_OPT_INTERVAL',
    message: `GLOBAL_OPT_INTERVAL ${message}`,
    consequence,
  });
  if ('error' in r) return { problem: problem(r.error, 'kept-last-good') };
  if (r.ms < MIN_OPT_INTERVAL_MS)
    return {
      ms: MIN_OPT_INTERVAL_MS,
      problem: problem(
        `"${text.trim()}" is below the 1s floor (each cycle queries Prometheus for every model); 1s is used`,
        'skipped',
      ),
    };
  if (!(r.ms <= MAX_OPT_INTERVAL_MS))
    return {
      ms: MAX_OPT_INTERVAL_MS,
      problem: problem(`"${text.trim()}" is above the 24h ceiling; 24h is used`, 'skipped'),
    };
  return { ms: r.ms };
}

function readEntry(text: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new EntryError(
      '',
      `is not valid YAML (${(err as Error).message.split('\n')[0]}); write "field: value" lines`,
    );
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new EntryError('', 'must be a YAML mapping of fields such as "kvCacheThreshold: 0.8"');
  for (const key of Object.keys(doc))
    if (!KNOWN_FIELDS.has(key))
      throw new EntryError(key, `field "${key}" is not known; known fields are ${[...KNOWN_FIELDS].join(', ')}`);
  return doc as Record<string, unknown>;
}

function overrideOf(entry: string, fields: Record<string, unknown>, base: SaturationConfig | undefined): ModelOverride {
  const modelID = fields.model_id === undefined ? entry : stringField(fields, 'model_id');
  const namespace = fields.namespace === undefined ? undefined : stringField(fields, 'namespace');
  if (!base) {
    const missing = ['kvCacheThreshold', 'queueLengthThreshold', 'kvSpareTrigger', 'queueSpareTrigger'].filter(
      (f) => fields[f] === undefined,
    );
    if (missing.length > 0)
      throw new EntryError(
        missing[0]!,
        `sets no ${missing.join(', ')} and there is no valid "default" entry to inherit them from; add them or fix "default"`,
      );
  }
  const config = resolveEntry(fields, base ?? DOCUMENTED_DEFAULTS);
  return Object.freeze({ entry, modelID, ...(namespace ? { namespace } : {}), config });
}

/** the entry's fields over `base`, validated as a whole */
function resolveEntry(fields: Record<string, unknown>, base: SaturationConfig): SaturationConfig {
  for (const [f, u] of Object.entries(UNIMPLEMENTED))
    if (fields[f] !== undefined && !u.off(fields[f]))
      throw new EntryError(f, `field "${f}" is ${JSON.stringify(fields[f])}: ${u.what}`);
  const out: { -readonly [K in keyof SaturationConfig]: SaturationConfig[K] } = { ...base };
  for (const f of NUMBER_FIELDS) if (fields[f] !== undefined) out[f] = numberField(fields, f);
  validate(out);
  return Object.freeze(out);
}

function validate(c: SaturationConfig): void {
  const within = (f: keyof SaturationConfig, v: number, lo: number, hi: number) => {
    if (v < lo || v > hi) throw new EntryError(f, `field "${f}" is ${v}; it must be between ${lo} and ${hi}`);
  };
  within('kvCacheThreshold', c.kvCacheThreshold, 0, 1);
  within('kvSpareTrigger', c.kvSpareTrigger, 0, 1);
  if (c.queueLengthThreshold < 0)
    throw new EntryError(
      'queueLengthThreshold',
      `field "queueLengthThreshold" is ${c.queueLengthThreshold}; it must be >= 0`,
    );
  // a threshold of 0 counts every replica as saturated all the time, so the model would grow to its maximum
  // under any load: refused rather than obeyed
  for (const f of ['kvCacheThreshold', 'queueLengthThreshold'] as const)
    if (c[f] === 0)
      throw new EntryError(
        f,
        `field "${f}" is 0, which counts every replica as saturated all the time (the model would grow to maxReplicas under any load); set it above 0`,
      );
  if (c.queueSpareTrigger < 0)
    throw new EntryError('queueSpareTrigger', `field "queueSpareTrigger" is ${c.queueSpareTrigger}; it must be >= 0`);
  if (c.kvCacheThreshold < c.kvSpareTrigger)
    throw new EntryError(
      'kvSpareTrigger',
      `field "kvSpareTrigger" (${c.kvSpareTrigger}) is greater than kvCacheThreshold (${c.kvCacheThreshold}); kvCacheThreshold must be >= kvSpareTrigger`,
    );
}

function numberField(fields: Record<string, unknown>, f: string): number {
  const v = fields[f];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n))
    // JSON.stringify would print .inf and .nan as null
    throw new EntryError(
      f,
      `field "${f}" is ${typeof v === 'number' ? String(v) : JSON.stringify(v)}; it must be a finite number`,
    );
  return n;
}

function stringField(fields: Record<string, unknown>, f: string): string {
  const v = fields[f];
  if (typeof v !== 'string' || v === '') throw new EntryError(f, `field "${f}" must be a non-empty string`);
  return v;
}

function problemOf(entry: string, err: unknown, kept: boolean): EntryProblem {
  const field = err instanceof EntryError ? err.field : '';
  return {
    entry,
    field,
    message: `entry "${entry}": ${(err as Error).message}`,
    consequence: kept ? 'kept-last-good' : 'skipped',
  };
}
