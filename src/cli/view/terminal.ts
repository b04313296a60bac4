// The terminal side of the views: on a TTY a live region (one line per resource plus a progress line)
// redrawn in place, with log lines and messages printed above it; on anything else (a pipe, a CI log) plain
// lines, one per resource whenever its state changes.
import { type Progress, renderChange, renderProgress, renderRows, renderWaitingSummary } from './render.ts';
import { type ResourceRow, rowKey } from './rows.ts';

export interface TerminalViewOptions {
  /** defaults to out.isTTY */
  tty?: boolean;
  /** plain output: how often to print a "still waiting" line during a long wait */
  plainProgressEveryMs?: number;
}

/** what `update` shows: the rows and, while something is awaited, the progress of that wait */
export interface ViewState {
  rows: ResourceRow[];
  progress?: Omit<Progress, 'frame'>;
  /** the rows the wait is for (default: all): only these are named as still waiting */
  awaited?: ResourceRow[];
}

/** the last line printed above the region, and how often it came in a row */
interface LastPrinted {
  key: string;
  line: string;
  count: number;
}

export class TerminalView {
  readonly tty: boolean;
  private drawn = 0;
  private frame = 0;
  private state: ViewState = { rows: [] };
  private readonly printed = new Map<string, string>();
  private lastPlainProgress = 0;
  private last: LastPrinted | undefined;
  private redrawTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly opts: TerminalViewOptions = {},
  ) {
    this.tty = opts.tty ?? out.isTTY === true;
  }

  /** the terminal's width, or undefined when the output is not one */
  get width(): number | undefined {
    return this.tty ? this.out.columns || 120 : undefined;
  }

  /**
   * A line above the live region (messages, readable log lines); never overwritten, except that a line
   * with the same `repeatKey` as the one just printed replaces it with a count (`… ×7`) instead of
   * scrolling the screen. On a plain output the repeats are counted and said once the run ends.
   */
  print(line: string, repeatKey?: string): void {
    if (repeatKey !== undefined && this.last?.key === repeatKey) {
      this.last.count++;
      if (!this.tty) return;
      this.clearRegion();
      this.out.write(`\x1b[1A\x1b[2K${this.last.line} ×${this.last.count}\n`);
      this.draw();
      return;
    }
    this.flushRepeats();
    this.last = repeatKey === undefined ? undefined : { key: repeatKey, line, count: 1 };
    if (!this.tty) {
      this.out.write(`${line}\n`);
      return;
    }
    this.clearRegion();
    this.out.write(`${line}\n`);
    this.draw();
  }

  /** plain output: says how often the last line came again */
  private flushRepeats(): void {
    if (!this.tty && this.last && this.last.count > 1)
      this.out.write(`  (the line above came ${this.last.count - 1} more times)\n`);
    this.last = undefined;
  }

  update(state: ViewState): void {
    this.state = state;
    if (!this.tty) {
      this.printChanges();
      return;
    }
    // many watch events arrive together: coalesce them into one redraw
    this.redrawTimer ??= setTimeout(() => {
      this.redrawTimer = undefined;
      this.clearRegion();
      this.draw();
    }, 30);
    if (!this.ticker) {
      this.ticker = setInterval(() => {
        // only the spinner of a wait moves by itself; a settled table is redrawn when it changes
        if (!this.state.progress) return;
        this.frame++;
        this.clearRegion();
        this.draw();
      }, 250);
      this.ticker.unref();
    }
  }

  /** stops animating; the last region stays on screen */
  stop(): void {
    this.flushRepeats();
    if (this.redrawTimer) clearTimeout(this.redrawTimer);
    if (this.ticker) clearInterval(this.ticker);
    this.redrawTimer = this.ticker = undefined;
    if (this.tty) {
      this.clearRegion();
      this.draw();
      this.drawn = 0;
    }
  }

  private printChanges(): void {
    for (const r of this.state.rows) {
      const key = rowKey(r);
      const text = renderChange(r);
      if (this.printed.get(key) === text) continue;
      this.flushRepeats();
      this.printed.set(key, text);
      this.out.write(`${text}\n`);
    }
    const p = this.state.progress;
    const every = this.opts.plainProgressEveryMs ?? 10_000;
    if (p && p.ready < p.total && p.elapsedMs - this.lastPlainProgress >= every) {
      this.flushRepeats();
      this.lastPlainProgress = p.elapsedMs;
      this.out.write(`${renderWaitingSummary(this.state.awaited ?? this.state.rows, p.elapsedMs)}\n`);
    }
  }

  private clearRegion(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private draw(): void {
    // one column short of the edge: a line filling the last column makes some terminals wrap early
    const width = Math.max(20, (this.out.columns || 120) - 1);
    const height = this.out.rows || 40;
    let lines = renderRows(this.state.rows, { width, color: true });
    // a region taller than the screen cannot be redrawn in place: show what fits and say what is hidden
    const room = Math.max(3, height - 3);
    if (lines.length > room)
      lines = [...lines.slice(0, room - 1), `… and ${lines.length - room + 1} more (modelplane status lists them all)`];
    const p = this.state.progress;
    if (p) lines.push(renderProgress({ ...p, frame: this.frame }, { width, color: true }));
    if (lines.length === 0) return;
    this.out.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}
