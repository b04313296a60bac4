// The scale-to-zero ConfigMap (docs/autoscaling.md, "Scale to zero"), as llm-d's autoscaler reads it: entries
// `{model_id, namespace?, enable_scale_to_zero, retention_period}` plus a `default` entry. For a model: its
// own entry (one scoped to its namespace beats an unscoped one), else `default`, else WVA_SCALE_TO_ZERO;
// a field an entry leaves out comes from the next level. Retention defaults to 10 minutes. Pure; a bad entry
// keeps its last good version (or is skipped), like the saturation ConfigMap.
import { parse as parseYaml } from 'yaml';
import { parseIntervalMs } from './duration.ts';
import type { EntryProblem } from './parse.ts';

export const DEFAULT_RETENTION_SECONDS = 600;
export const MAX_RETENTION_SECONDS = 30 * 24 * 3600;

export interface ScaleToZeroEntry {
  readonly entry: string;
  /** undefined for `default` and for an entry named after the model */
  readonly modelID?: string;
  readonly namespace?: string;
  readonly enabled?: boolean;
  readonly retentionSeconds?: number;
}

export interface ParsedScaleToZero {
  readonly defaultEntry?: ScaleToZeroEntry;
  readonly entries: readonly ScaleToZeroEntry[];
}

/** what applies to one model: `enabled` undefined = nothing configured (the variants' minReplicas decide) */
export interface ScaleToZeroPolicy {
  readonly enabled?: boolean;
  readonly retentionSeconds: number;
  /** which entry decided, for reasons */
  readonly origin: string;
}

const FIELDS = new Set(['model_id', 'namespace', 'enable_scale_to_zero', 'retention_period']);

export function parseScaleToZeroConfigMap(
  data: Readonly<Record<string, string>> | undefined,
  previous?: ParsedScaleToZero,
): { config: ParsedScaleToZero; problems: EntryProblem[] } {
  const problems: EntryProblem[] = [];
  const entries: ScaleToZeroEntry[] = [];
  let defaultEntry: ScaleToZeroEntry | undefined;
  for (const [entry, text] of Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const last = entry === 'default' ? previous?.defaultEntry : previous?.entries.find((e) => e.entry === entry);
    let parsed: ScaleToZeroEntry | undefined;
    try {
      parsed = readEntry(entry, text);
    } catch (err) {
      const [field, message] = err as [string, string];
      problems.push({
        entry,
        field,
        message: `entry "${entry}": ${message}`,
        consequence: last ? 'kept-last-good' : 'skipped',
      });
      parsed = last;
    }
    if (!parsed) continue;
    if (entry === 'default') defaultEntry = parsed;
    else entries.push(parsed);
  }
  return {
    config: Object.freeze({ ...(defaultEntry ? { defaultEntry } : {}), entries: Object.freeze(entries) }),
    problems,
  };
}

function readEntry(entry: string, text: string): ScaleToZeroEntry {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw ['', `is not valid YAML (${(err as Error).message.split('\n')[0]})`];
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw ['', 'must be a YAML mapping such as "enable_scale_to_zero: true"'];
  const f = doc as Record<string, unknown>;
  for (const k of Object.keys(f))
    if (!FIELDS.has(k)) throw [k, `field "${k}" is not known; known fields are ${[...FIELDS].join(', ')}`];
  const str = (k: string) => {
    if (f[k] === undefined) return undefined;
    if (typeof f[k] !== 'string' || f[k] === '') throw [k, `field "${k}" must be a non-empty string`];
    return f[k] as string;
  };
  if (f.enable_scale_to_zero !== undefined && typeof f.enable_scale_to_zero !== 'boolean')
    throw ['enable_scale_to_zero', 'field "enable_scale_to_zero" must be true or false'];
  let retentionSeconds: number | undefined;
  const retention = str('retention_period');
  if (retention !== undefined) {
    const r = parseIntervalMs(retention);
    if ('error' in r) throw ['retention_period', `field "retention_period" ${r.error}`];
    // the window is a Prometheus range: beyond a month it would scan whatever the server keeps, for nothing
    if (!(r.ms <= MAX_RETENTION_SECONDS * 1000))
      throw ['retention_period', `field "retention_period" is "${retention}"; it must be at most 720h (30 days)`];
    retentionSeconds = r.ms / 1000;
  }
  const modelID = str('model_id');
  const namespace = str('namespace');
  return Object.freeze({
    entry,
    ...(modelID !== undefined ? { modelID } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(typeof f.enable_scale_to_zero === 'boolean' ? { enabled: f.enable_scale_to_zero } : {}),
    ...(retentionSeconds !== undefined ? { retentionSeconds } : {}),
  });
}

/** the policy for a model: its entry, else `default`, else the environment's WVA_SCALE_TO_ZERO, field by field */
export function resolveScaleToZero(
  parsed: ParsedScaleToZero | undefined,
  namespace: string,
  modelID: string,
  envEnabled: boolean | undefined,
  defaultRetentionSeconds = DEFAULT_RETENTION_SECONDS,
): ScaleToZeroPolicy {
  const own =
    parsed?.entries.find((e) => (e.modelID ?? e.entry) === modelID && e.namespace === namespace) ??
    parsed?.entries.find((e) => (e.modelID ?? e.entry) === modelID && e.namespace === undefined);
  const levels = [own, parsed?.defaultEntry].filter((e): e is ScaleToZeroEntry => e !== undefined);
  const enabledFrom = levels.find((e) => e.enabled !== undefined);
  const retentionFrom = levels.find((e) => e.retentionSeconds !== undefined);
  const enabled = enabledFrom?.enabled ?? envEnabled;
  return {
    ...(enabled !== undefined ? { enabled } : {}),
    retentionSeconds: retentionFrom?.retentionSeconds ?? defaultRetentionSeconds,
    origin: enabledFrom ? `entry "${enabledFrom.entry}"` : envEnabled !== undefined ? 'WVA_SCALE_TO_ZERO' : 'no entry',
  };
}
