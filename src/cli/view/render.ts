// Text for the terminal views, pure so it is tested without a terminal: the aligned one-line-per-resource
// table, the plain "changed" lines for logs and CI, and the progress line shown during long waits.
import { humanDuration } from '@modelplane/apimachinery';
import type { ResourceRow, Tone } from './rows.ts';

export interface RenderOptions {
  now?: number;
  /** terminal columns; lines are cut to fit so an in-place redraw knows how many lines it wrote */
  width?: number;
  color?: boolean;
}

const SYMBOL: Record<Tone, string> = { ok: '✓', progress: '…', fail: '✗', idle: '·' };
const COLOR: Record<Tone, string> = { ok: '\x1b[32m', progress: '\x1b[33m', fail: '\x1b[31m', idle: '\x1b[2m' };
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

function paint(text: string, code: string, color: boolean | undefined): string {
  return color ? `${code}${text}${RESET}` : text;
}

/** cuts `text` to `width` visible characters (the text has no escape codes yet) */
export function fit(text: string, width: number | undefined): string {
  if (!width || text.length <= width) return text;
  return width <= 1 ? text.slice(0, width) : `${text.slice(0, width - 1)}…`;
}

/**
 * shortens `text` to `width` characters by cutting its middle: generated names differ at their ends
 * (`aim-meta-llama-…-fp4-1968`), so both the start and the hash stay readable
 */
export function middle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return text.slice(0, Math.max(0, width));
  const tail = Math.floor((width - 1) / 2);
  return `${text.slice(0, width - 1 - tail)}…${text.slice(text.length - tail)}`;
}

export function objectName(r: Pick<ResourceRow, 'namespace' | 'name'>): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

/** `namespace/name` in `width` columns: the namespace gives way first (down to 3), then the name's middle */
export function shortObjectName(r: Pick<ResourceRow, 'namespace' | 'name'>, width: number): string {
  const full = objectName(r);
  if (full.length <= width || !r.namespace) return middle(full, width);
  const nsRoom = Math.max(3, width - r.name.length - 1);
  return `${fit(r.namespace, nsRoom)}/${middle(r.name, Math.max(1, width - Math.min(nsRoom, r.namespace.length) - 1))}`;
}

/** columns: symbol, kind, name, state, reason, age; two spaces between, one after the symbol */
const GAPS = 2 + 4 * 2;
const KIND_MIN = 15;
const NAME_MIN = 16;
const REASON_MIN = 16;
const STATE_MAX = 14;

/**
 * Widths of kind, name, state, reason, age for a table `width` columns wide. State and age always show;
 * when the natural widths do not fit, the kind is cut at its end and the name in its middle (never below a
 * readable minimum) and the reason takes what is left, so no line wraps.
 */
export function columnWidths(natural: readonly number[], width: number | undefined): number[] {
  const [k, n, s, r, a] = natural as [number, number, number, number, number];
  if (!width || GAPS + k + n + s + r + a <= width) return [k, n, s, r, a];
  const state = Math.min(s, STATE_MAX);
  const avail = Math.max(0, width - GAPS - state - a);
  const kind = Math.min(k, Math.max(KIND_MIN, avail - n - Math.min(r, REASON_MIN)));
  let name = Math.min(n, Math.max(NAME_MIN, avail - kind - Math.min(r, REASON_MIN)));
  let reason = Math.max(0, avail - kind - name);
  // a short reason leaves its room to the name
  if (reason > r) {
    name = Math.min(n, name + reason - r);
    reason = Math.max(0, avail - kind - name);
  }
  return [kind, name, state, reason, a];
}

/** one line per resource: symbol, kind, namespace/name, state, reason, age; columns aligned, each line fits */
export function renderRows(rows: readonly ResourceRow[], opts: RenderOptions = {}): string[] {
  const now = opts.now ?? Date.now();
  const cells = rows.map((r) => [
    r.kind,
    objectName(r),
    r.state,
    r.reason || '-',
    r.createdAt ? humanDuration(now - Date.parse(r.createdAt)) : '-',
  ]);
  const natural = [0, 1, 2, 3, 4].map((i) => Math.max(0, ...cells.map((c) => c[i]!.length)));
  const w = columnWidths(natural, opts.width);
  return rows.map((r, i) => {
    const c = cells[i]!;
    const line = fit(
      [
        SYMBOL[r.tone],
        ` ${fit(c[0]!, w[0]!).padEnd(w[0]!)}`,
        `  ${shortObjectName(r, w[1]!).padEnd(w[1]!)}`,
        `  ${fit(c[2]!, w[2]!).padEnd(w[2]!)}`,
        `  ${fit(c[3]!, w[3]!).padEnd(w[3]!)}`,
        `  ${c[4]!.padStart(w[4]!)}`,
      ].join(''),
      opts.width,
    );
    return opts.color ? paint(line.slice(0, 1), COLOR[r.tone], true) + line.slice(1) : line;
  });
}

/** the line printed when a resource changes on a non-terminal output (CI logs): `Kind ns/name: State (reason)` */
export function renderChange(r: ResourceRow): string {
  return `${r.kind} ${objectName(r)}: ${r.state}${r.reason ? ` (${r.reason})` : ''}`;
}

export interface Progress {
  ready: number;
  total: number;
  elapsedMs: number;
  /** when the wait gives up (undefined: it does not) */
  timeoutMs?: number;
  /** animation frame (a counter) for the spinner on a terminal */
  frame?: number;
}

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/** `⠋ waiting for 3 of 9 resources to be Ready · 12s (gives up at 120s)`, or the all-Ready line */
export function renderProgress(p: Progress, opts: Pick<RenderOptions, 'color' | 'width'> = {}): string {
  const secs = `${Math.floor(p.elapsedMs / 1000)}s`;
  if (p.total > 0 && p.ready === p.total) {
    const line = fit(`✓ all ${p.total} Ready · ${secs}`, opts.width);
    return paint(line.slice(0, 1), COLOR.ok, opts.color) + line.slice(1);
  }
  const spin = p.frame === undefined ? '…' : SPINNER[p.frame % SPINNER.length]!;
  const limit =
    p.timeoutMs !== undefined && Number.isFinite(p.timeoutMs)
      ? ` (gives up at ${Math.round(p.timeoutMs / 1000)}s)`
      : '';
  return paint(
    fit(`${spin} waiting for ${p.total - p.ready} of ${p.total} resources to be Ready · ${secs}${limit}`, opts.width),
    DIM,
    opts.color,
  );
}

/** the plain-output progress line during a long wait: names what is still not Ready */
export function renderWaitingSummary(rows: readonly ResourceRow[], elapsedMs: number): string {
  const pending = rows.filter((r) => !r.ready);
  const names = pending
    .slice(0, 5)
    .map((r) => `${r.kind} ${objectName(r)} (${r.state}${r.reason ? `: ${r.reason}` : ''})`);
  const more = pending.length > 5 ? ` and ${pending.length - 5} more` : '';
  return `still waiting after ${Math.floor(elapsedMs / 1000)}s for ${pending.length} of ${rows.length}: ${names.join(', ')}${more}`;
}
