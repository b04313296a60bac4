// The simulated Prometheus's memory: series parsed from the text exposition format of each scrape, kept for a
// retention window, and marked stale when their target stops exporting them (Prometheus's staleness
// markers), so a deleted pod's load is not read as current. Pure apart from the clock it is given.
import type { Labels, StoredSeries } from './promql.ts';

export interface ParsedSample {
  labels: Labels;
  value: number;
}

const LINE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/y;

function unescapeLabel(v: string): string {
  return v.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(raw: string): number | undefined {
  if (raw === 'NaN') return Number.NaN;
  if (raw === '+Inf' || raw === 'Inf') return Number.POSITIVE_INFINITY;
  if (raw === '-Inf') return Number.NEGATIVE_INFINITY;
  const v = Number(raw);
  return Number.isFinite(v) ? v : undefined;
}

/** the samples of one scrape body (text exposition format 0.0.4); lines it cannot read are skipped */
export function parseExposition(text: string): ParsedSample[] {
  const out: ParsedSample[] = [];
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '' || l.startsWith('#')) continue;
    const m = LINE.exec(l);
    if (!m) continue;
    const value = parseValue(m[3]!);
    if (value === undefined) continue;
    const labels: Labels = { __name__: m[1]! };
    if (m[2]) {
      LABEL.lastIndex = 0;
      let lm: RegExpExecArray | null;
      while (LABEL.lastIndex < m[2].length && (lm = LABEL.exec(m[2])) !== null) labels[lm[1]!] = unescapeLabel(lm[2]!);
    }
    out.push({ labels, value });
  }
  return out;
}

interface Series {
  labels: Labels;
  samples: Array<[number, number]>;
  target: string;
  staleAt?: number;
}

const seriesKey = (labels: Labels) =>
  JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export class SampleStore {
  private readonly series = new Map<string, Series>();

  constructor(private readonly retentionMs = 15 * 60_000) {}

  /**
   * Records one target's scrape at `at`: its samples with the target's labels added (the scraped labels win
   * when `honorLabels`, as honor_labels does), and every series it exported before but not now marked stale.
   */
  ingest(
    target: string,
    targetLabels: Labels,
    samples: readonly ParsedSample[],
    at: number,
    honorLabels = false,
  ): void {
    const seen = new Set<string>();
    for (const s of samples) {
      const labels = honorLabels ? { ...targetLabels, ...s.labels } : { ...s.labels, ...targetLabels };
      const key = seriesKey(labels);
      seen.add(key);
      const entry = this.series.get(key) ?? { labels, samples: [], target };
      if (entry.staleAt !== undefined) delete entry.staleAt;
      entry.samples.push([at, s.value]);
      this.series.set(key, entry);
    }
    for (const [key, entry] of this.series)
      if (entry.target === target && !seen.has(key) && entry.staleAt === undefined) entry.staleAt = at;
    this.prune(at);
  }

  /** a target that is gone (its pod deleted or not Running): its series end now */
  targetGone(target: string, at: number): void {
    for (const entry of this.series.values())
      if (entry.target === target && entry.staleAt === undefined) entry.staleAt = at;
  }

  targets(): Set<string> {
    return new Set([...this.series.values()].map((s) => s.target));
  }

  all(): StoredSeries[] {
    return [...this.series.values()];
  }

  private prune(now: number): void {
    const cutoff = now - this.retentionMs;
    for (const [key, entry] of this.series) {
      while (entry.samples.length > 0 && entry.samples[0]![0] < cutoff) entry.samples.shift();
      if (entry.samples.length === 0) this.series.delete(key);
    }
  }
}
