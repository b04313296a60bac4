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

const SYMBOL: Record<Tone, string> = { ok: '✓', progress: '…', fail: '✗' };
const COLOR: Record<Tone, string> = { ok: '\x1b[32m', progress: '\x1b[33m', fail: '\x1b[31m' };
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

export function objectName(r: Pick<ResourceRow, 'namespace' | 'name'>): string {
  return r.namespace ? `${r.namespace}/${r.name}` : r.name;
}

/** one line per resource: symbol, kind, namespace/name, state, reason, age; columns aligned */
export function renderRows(rows: readonly ResourceRow[], opts: RenderOptions = {}): string[] {
  const now = opts.now ?? Date.now();
  const cells = rows.map((r) => [
    r.kind,
    objectName(r),
    r.state,
    r.reason || '-',
    r.createdAt ? humanDuration(now - Date.parse(r.createdAt)) : '-',
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(0, ...cells.map((c) => c[i]!.length)));
  return rows.map((r, i) => {
    const c = cells[i]!;
    // the reason column is the one that gives way when the terminal is narrow; age stays visible
    const head = `${SYMBOL[r.tone]} ${c[0]!.padEnd(widths[0]!)}  ${c[1]!.padEnd(widths[1]!)}  ${c[2]!.padEnd(widths[2]!)}  `;
    const room = opts.width ? Math.max(1, opts.width - head.length - c[4]!.length - 2) : undefined;
    const line = fit(
      `${head}${fit(c[3]!, room).padEnd(Math.min(widths[3]!, room ?? widths[3]!))}  ${c[4]}`.trimEnd(),
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
