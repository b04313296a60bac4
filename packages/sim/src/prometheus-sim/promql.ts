// The slice of PromQL the simulated Prometheus answers (docs/autoscaling.md, "Prometheus in dev"): what the
// autoscaler, the simulated HPA and the dashboard ask, and nothing more. Pure: a parser into a small tree and
// an evaluator over a sample store. Anything outside the slice is refused with Prometheus's own error shape,
// naming what is not supported, never answered wrongly.
//
//   expr     := term [or term …]
//   term     := agg [by (l, …)] ( expr ) [by (l, …)] | func ( selector[range] ) | timestamp ( selector )
//             | selector | number
//   agg      := sum | max | min | avg | count
//   func     := max_over_time | min_over_time | avg_over_time | last_over_time | increase | rate
//   selector := name [{ matchers }] | { matchers }     matcher := label (= | != | =~ | !~) "value"
//
// As in Prometheus, a function drops the metric name, and a result with two series of one label set is an
// error ("vector cannot contain metrics with the same labelset"), not a silent merge.

export type Labels = Record<string, string>;

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export type Expr =
  | { type: 'selector'; name?: string; matchers: Matcher[]; rangeSeconds?: number }
  | { type: 'func'; func: string; arg: Expr & { type: 'selector' } }
  | { type: 'agg'; op: string; by?: string[]; arg: Expr }
  | { type: 'or'; left: Expr; right: Expr }
  | { type: 'number'; value: number };

/** one series of the store: its labels (with __name__) and its samples, oldest first */
export interface StoredSeries {
  labels: Labels;
  samples: ReadonlyArray<readonly [number, number]>;
  /** when the series stopped being scraped (its target vanished or stopped exporting it), in ms */
  staleAt?: number;
}

export interface VectorResult {
  metric: Labels;
  value: [number, string];
}

const AGGS = new Set(['sum', 'max', 'min', 'avg', 'count']);
const FUNCS = new Set([
  'max_over_time',
  'min_over_time',
  'avg_over_time',
  'last_over_time',
  'increase',
  'rate',
  'timestamp',
]);
const LOOKBACK_MS = 5 * 60_000;

export class PromQLError extends Error {}

const TOKEN = /\s*(?:([A-Za-z_:][A-Za-z0-9_:]*)|("(?:[^"\\]|\\.)*")|(=~|!~|!=|=|[(){}[\],])|(\d+(?:\.\d+)?[smhd]?))/y;

function tokenize(q: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < q.length) {
    if (/^\s*$/.test(q.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(q);
    if (!m) throw new PromQLError(`unexpected character at position ${at}: ${JSON.stringify(q.slice(at, at + 10))}`);
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  }
  return out;
}

function durationSeconds(d: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(d);
  if (!m) throw new PromQLError(`bad duration ${JSON.stringify(d)}: use a number and s, m, h or d`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

class Parser {
  private i = 0;
  constructor(private readonly t: string[]) {}

  parse(): Expr {
    const e = this.expr();
    if (this.i < this.t.length)
      throw new PromQLError(`unexpected ${JSON.stringify(this.t[this.i])} after the expression`);
    return e;
  }

  private peek(): string | undefined {
    return this.t[this.i];
  }

  private take(want?: string): string {
    const tok = this.t[this.i++];
    if (tok === undefined) throw new PromQLError(`unexpected end of query${want ? `, expected ${want}` : ''}`);
    if (want !== undefined && tok !== want) throw new PromQLError(`expected ${want}, found ${JSON.stringify(tok)}`);
    return tok;
  }

  private labelList(): string[] {
    this.take('(');
    const out: string[] = [];
    while (this.peek() !== ')') {
      out.push(this.take());
      if (this.peek() === ',') this.take(',');
    }
    this.take(')');
    return out;
  }

  private expr(): Expr {
    let e = this.term();
    while (this.peek() === 'or') {
      this.take();
      e = { type: 'or', left: e, right: this.term() };
    }
    return e;
  }

  private term(): Expr {
    const tok = this.take();
    if (/^\d/.test(tok)) return { type: 'number', value: Number(tok) };
    if (AGGS.has(tok) && (this.peek() === '(' || this.peek() === 'by')) {
      let by: string[] | undefined;
      if (this.peek() === 'by') {
        this.take();
        by = this.labelList();
      }
      this.take('(');
      const arg = this.expr();
      this.take(')');
      if (this.peek() === 'by') {
        this.take();
        by = this.labelList();
      }
      return { type: 'agg', op: tok, ...(by ? { by } : {}), arg };
    }
    if (FUNCS.has(tok)) {
      this.take('(');
      const arg = this.selector(this.take());
      this.take(')');
      if (tok === 'timestamp' && arg.rangeSeconds !== undefined)
        throw new PromQLError('timestamp needs an instant vector, not a range');
      if (tok !== 'timestamp' && arg.rangeSeconds === undefined)
        throw new PromQLError(`${tok} needs a range vector, e.g. metric[1m]`);
      return { type: 'func', func: tok, arg };
    }
    if (this.peek() === '(') throw new PromQLError(`the simulated Prometheus does not support ${tok}()`);
    return this.selector(tok);
  }

  private selector(first: string): Expr & { type: 'selector' } {
    // `{__name__=~"a|b", …}` selects by matchers alone
    const name = first === '{' ? undefined : first;
    if (name === undefined) this.i--;
    else if (!/^[A-Za-z_:]/.test(name)) throw new PromQLError(`expected a metric name, found ${JSON.stringify(name)}`);
    const matchers: Matcher[] = [];
    if (this.peek() === '{') {
      this.take('{');
      while (this.peek() !== '}') {
        const label = this.take();
        const op = this.take() as Matcher['op'];
        if (!['=', '!=', '=~', '!~'].includes(op)) throw new PromQLError(`bad label matcher operator ${op}`);
        const raw = this.take();
        if (!raw.startsWith('"')) throw new PromQLError(`label ${label}: expected a quoted value`);
        matchers.push({ label, op, value: JSON.parse(raw) as string });
        if (this.peek() === ',') this.take(',');
      }
      this.take('}');
    }
    let rangeSeconds: number | undefined;
    if (this.peek() === '[') {
      this.take('[');
      rangeSeconds = durationSeconds(this.take());
      this.take(']');
    }
    if (name === undefined && matchers.length === 0)
      throw new PromQLError('a selector needs a metric name or at least one matcher');
    return {
      type: 'selector',
      ...(name !== undefined ? { name } : {}),
      matchers,
      ...(rangeSeconds !== undefined ? { rangeSeconds } : {}),
    };
  }
}

export function parsePromQL(query: string): Expr {
  return new Parser(tokenize(query)).parse();
}

function matches(labels: Labels, name: string | undefined, matchers: readonly Matcher[]): boolean {
  if (name !== undefined && labels.__name__ !== name) return false;
  return matchers.every((m) => {
    const v = labels[m.label] ?? '';
    if (m.op === '=') return v === m.value;
    if (m.op === '!=') return v !== m.value;
    const re = new RegExp(`^(?:${m.value})$`);
    return m.op === '=~' ? re.test(v) : !re.test(v);
  });
}

function withoutName(labels: Labels): Labels {
  const { __name__: _n, ...rest } = labels;
  return rest;
}

/** a counter's increase over the samples, counting a drop as a reset (as Prometheus does, without extrapolation) */
function increase(samples: ReadonlyArray<readonly [number, number]>): number {
  let total = 0;
  for (let i = 1; i < samples.length; i++) {
    const d = samples[i]![1] - samples[i - 1]![1];
    total += d >= 0 ? d : samples[i]![1];
  }
  return total;
}

function rangeValue(func: string, s: ReadonlyArray<readonly [number, number]>, seconds: number): number | undefined {
  if (s.length === 0) return undefined;
  const values = s.map(([, v]) => v);
  switch (func) {
    case 'max_over_time':
      return Math.max(...values);
    case 'min_over_time':
      return Math.min(...values);
    case 'avg_over_time':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'last_over_time':
      return values.at(-1);
    case 'increase':
      return s.length < 2 ? undefined : increase(s);
    default:
      return s.length < 2 ? undefined : increase(s) / seconds;
  }
}

type Vector = Array<{ metric: Labels; value: number }>;

function evalVector(e: Expr, series: readonly StoredSeries[], at: number): Vector {
  if (e.type === 'number') throw new PromQLError('a bare number is a scalar, not an instant vector');
  if (e.type === 'selector') {
    if (e.rangeSeconds !== undefined) throw new PromQLError('a range vector cannot be the result of a query here');
    return instant(e, series, at).map(({ labels, sample }) => ({ metric: labels, value: sample[1] }));
  }
  if (e.type === 'func') return unique(evalFunction(e, series, at));
  if (e.type === 'or') {
    // every left sample, and the right samples whose label set the left does not have
    const left = evalVector(e.left, series, at);
    const have = new Set(left.map((s) => labelsetKey(s.metric)));
    return [...left, ...evalVector(e.right, series, at).filter((s) => !have.has(labelsetKey(s.metric)))];
  }
  const groups = new Map<string, { metric: Labels; values: number[] }>();
  for (const { metric, value } of evalVector(e.arg, series, at)) {
    const key: Labels = Object.fromEntries((e.by ?? []).map((l) => [l, metric[l] ?? '']).filter(([, v]) => v !== ''));
    const id = JSON.stringify(key);
    const g = groups.get(id) ?? { metric: key, values: [] };
    g.values.push(value);
    groups.set(id, g);
  }
  return [...groups.values()].map(({ metric, values }) => ({ metric, value: aggregate(e.op, values) }));
}

/** the current sample of each selected series: not stale, and within the lookback */
function instant(
  sel: Expr & { type: 'selector' },
  series: readonly StoredSeries[],
  at: number,
): Array<{ labels: Labels; sample: readonly [number, number] }> {
  const out: Array<{ labels: Labels; sample: readonly [number, number] }> = [];
  for (const s of series) {
    if (!matches(s.labels, sel.name, sel.matchers)) continue;
    if (s.staleAt !== undefined && s.staleAt <= at) continue;
    const last = [...s.samples].reverse().find(([t]) => t <= at);
    if (last && at - last[0] <= LOOKBACK_MS) out.push({ labels: s.labels, sample: last });
  }
  return out;
}

function evalFunction(e: Expr & { type: 'func' }, series: readonly StoredSeries[], at: number): Vector {
  // timestamp(): the time of each selected series' current sample, in seconds
  if (e.func === 'timestamp')
    return instant(e.arg, series, at).map(({ labels, sample }) => ({
      metric: withoutName(labels),
      value: sample[0] / 1000,
    }));
  const from = at - e.arg.rangeSeconds! * 1000;
  const out: Vector = [];
  for (const s of series) {
    if (!matches(s.labels, e.arg.name, e.arg.matchers)) continue;
    const v = rangeValue(
      e.func,
      s.samples.filter(([t]) => t > from && t <= at && (s.staleAt === undefined || t < s.staleAt)),
      e.arg.rangeSeconds!,
    );
    if (v !== undefined) out.push({ metric: withoutName(s.labels), value: v });
  }
  return out;
}

/** Prometheus refuses a function result holding one label set twice (the dropped names told them apart) */
const labelsetKey = (metric: Labels) => JSON.stringify(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : 1)));

function unique(v: Vector): Vector {
  const seen = new Set<string>();
  for (const { metric } of v) {
    const key = labelsetKey(metric);
    if (seen.has(key)) throw new PromQLError('vector cannot contain metrics with the same labelset');
    seen.add(key);
  }
  return v;
}

function aggregate(op: string, v: number[]): number {
  if (op === 'max') return Math.max(...v);
  if (op === 'min') return Math.min(...v);
  if (op === 'count') return v.length;
  const sum = v.reduce((a, b) => a + b, 0);
  return op === 'avg' ? sum / v.length : sum;
}

/** evaluates an instant query at `atMs` over the stored series; throws PromQLError for what is not supported */
export function evaluateInstant(query: string, series: readonly StoredSeries[], atMs: number): VectorResult[] {
  const e = parsePromQL(query);
  return evalVector(e, series, atMs).map(({ metric, value }) => ({
    metric,
    value: [atMs / 1000, formatSample(value)],
  }));
}

/** a sample as Prometheus writes it: shortest round-trip decimal, NaN and ±Inf spelled its way */
function formatSample(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}
