// The terminal side of the views: on a TTY a live region (one line per resource plus a progress line)
// redrawn in place, with log lines and messages printed above it; on anything else (a pipe, a CI log) plain
// lines, one per resource whenever its state changes.
import { renderChange, renderProgress, renderRows, renderWaitingSummary, type Progress } from './render.ts';
import { rowKey, type ResourceRow } from './rows.ts';

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
}

export class TerminalView {
  readonly tty: boolean;
  private drawn = 0;
  private frame = 0;
  private state: ViewState = { rows: [] };
  private readonly printed = new Map<string, string>();
  private lastPlainProgress = 0;
  private redrawTimer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly opts: TerminalViewOptions = {},
  ) {
    this.tty = opts.tty ?? out.isTTY === true;
  }

  /** a line above the live region (messages, readable log lines); never overwritten */
  print(line: string): void {
    if (!this.tty) {
      this.out.write(`${line}\n`);
      return;
    }
    this.clearRegion();
    this.out.write(`${line}\n`);
    this.draw();
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
        this.frame++;
        this.clearRegion();
        this.draw();
      }, 250);
      this.ticker.unref();
    }
  }

  /** stops animating; the last region stays on screen */
  stop(): void {
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
      this.printed.set(key, text);
      this.out.write(`${text}\n`);
    }
    const p = this.state.progress;
    const every = this.opts.plainProgressEveryMs ?? 10_000;
    if (p && p.ready < p.total && p.elapsedMs - this.lastPlainProgress >= every) {
      this.lastPlainProgress = p.elapsedMs;
      this.out.write(`${renderWaitingSummary(this.state.rows, p.elapsedMs)}\n`);
    }
  }

  private clearRegion(): void {
    if (this.drawn > 0) this.out.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private draw(): void {
    const width = this.out.columns || 120;
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
