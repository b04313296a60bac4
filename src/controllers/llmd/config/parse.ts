// Parsing and validating the autoscaler's ConfigMaps (docs/autoscaling.md, "Configuration"). Pure: a
// ConfigMap's data in, the usable entries and one problem per rejected entry out. A rejected entry is skipped;
// the others are kept.
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
  readonly enableLimiter: boolean;
  readonly analyzerName: string;
  readonly scaleUpThreshold: number;
  readonly scaleDownBoundary: number;
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
}

/** used for the fields the `default` entry leaves out (the values of llm-d's sample ConfigMap) */
export const DOCUMENTED_DEFAULTS: SaturationConfig = Object.freeze({
  kvCacheThreshold: 0.8,
  queueLengthThreshold: 5,
  kvSpareTrigger: 0.1,
  queueSpareTrigger: 3,
  enableLimiter: false,
  analyzerName: '',
  scaleUpThreshold: 0.85,
  scaleDownBoundary: 0.7,
});

const NUMBER_FIELDS = [
  'kvCacheThreshold',
  'queueLengthThreshold',
  'kvSpareTrigger',
  'queueSpareTrigger',
  'scaleUpThreshold',
  'scaleDownBoundary',
] as const;
const KNOWN_FIELDS = new Set<string>([...NUMBER_FIELDS, 'enableLimiter', 'analyzerName', 'model_id', 'namespace']);

class EntryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** the saturation ConfigMap's data: `default` plus per-model entries, each merged over `default` field by field */
export function parseSaturationConfigMap(data: Readonly<Record<string, string>> | undefined): {
  config: ParsedSaturationConfig;
  problems: EntryProblem[];
} {
  const problems: EntryProblem[] = [];
  const raw = new Map<string, Record<string, unknown>>();
  for (const [entry, text] of Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    try {
      raw.set(entry, readEntry(text));
    } catch (err) {
      problems.push(problemOf(entry, err));
    }
  }
  let defaultConfig: SaturationConfig | undefined;
  const defaultRaw = raw.get('default');
  if (defaultRaw) {
    try {
      defaultConfig = resolveEntry(defaultRaw, DOCUMENTED_DEFAULTS);
    } catch (err) {
      problems.push(problemOf('default', err));
    }
  }
  const overrides: ModelOverride[] = [];
  for (const [entry, fields] of raw) {
    if (entry === 'default') continue;
    try {
      overrides.push(overrideOf(entry, fields, defaultConfig));
    } catch (err) {
      problems.push(problemOf(entry, err));
    }
  }
  return {
    config: Object.freeze({ ...(defaultConfig ? { defaultConfig } : {}), overrides: Object.freeze(overrides) }),
    problems,
  };
}

/** GLOBAL_OPT_INTERVAL of the main ConfigMap: undefined when absent (the previous interval stays) */
export function parseOptimizationInterval(data: Readonly<Record<string, string>> | undefined): {
  ms?: number;
  problem?: EntryProblem;
} {
  const text = data?.GLOBAL_OPT_INTERVAL;
  if (text === undefined) return {};
  const r = parseIntervalMs(text);
  if ('error' in r)
    return {
      problem: {
        entry: 'GLOBAL_OPT_INTERVAL',
        field: 'GLOBAL_OPT_INTERVAL',
        message: `GLOBAL_OPT_INTERVAL ${r.error}`,
      },
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
  const out: { -readonly [K in keyof SaturationConfig]: SaturationConfig[K] } = { ...base };
  for (const f of NUMBER_FIELDS) if (fields[f] !== undefined) out[f] = numberField(fields, f);
  if (fields.enableLimiter !== undefined) {
    if (typeof fields.enableLimiter !== 'boolean')
      throw new EntryError('enableLimiter', 'field "enableLimiter" must be true or false');
    out.enableLimiter = fields.enableLimiter;
  }
  if (fields.analyzerName !== undefined) out.analyzerName = stringField(fields, 'analyzerName');
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
  if (c.queueSpareTrigger < 0)
    throw new EntryError('queueSpareTrigger', `field "queueSpareTrigger" is ${c.queueSpareTrigger}; it must be >= 0`);
  if (c.kvCacheThreshold < c.kvSpareTrigger)
    throw new EntryError(
      'kvSpareTrigger',
      `field "kvSpareTrigger" (${c.kvSpareTrigger}) is greater than kvCacheThreshold (${c.kvCacheThreshold}); kvCacheThreshold must be >= kvSpareTrigger`,
    );
  if (c.scaleUpThreshold <= 0 || c.scaleUpThreshold > 1)
    throw new EntryError('scaleUpThreshold', `field "scaleUpThreshold" is ${c.scaleUpThreshold}; it must be in (0, 1]`);
  if (c.scaleDownBoundary <= 0 || c.scaleDownBoundary > 1)
    throw new EntryError(
      'scaleDownBoundary',
      `field "scaleDownBoundary" is ${c.scaleDownBoundary}; it must be in (0, 1]`,
    );
  if (c.scaleUpThreshold <= c.scaleDownBoundary)
    throw new EntryError(
      'scaleUpThreshold',
      `field "scaleUpThreshold" (${c.scaleUpThreshold}) must be greater than scaleDownBoundary (${c.scaleDownBoundary})`,
    );
}

function numberField(fields: Record<string, unknown>, f: string): number {
  const v = fields[f];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new EntryError(f, `field "${f}" is ${JSON.stringify(v)}; it must be a number`);
  return n;
}

function stringField(fields: Record<string, unknown>, f: string): string {
  const v = fields[f];
  if (typeof v !== 'string' || v === '') throw new EntryError(f, `field "${f}" must be a non-empty string`);
  return v;
}

function problemOf(entry: string, err: unknown): EntryProblem {
  const field = err instanceof EntryError ? err.field : '';
  return { entry, field, message: `entry "${entry}": ${(err as Error).message}` };
}
