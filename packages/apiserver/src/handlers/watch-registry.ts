// The open watch streams, so fault injection can act on all of them: drop them (a crashed server or broken
// network), end them cleanly (as a watch timeout does), or stall them. A stalled stream stays connected and
// holds every event it would have sent, in order, until it resumes: kube-apiserver never skips an event on a
// live stream; a slow connection only delivers late (TCP backpressure) or dies.

export interface OpenWatch {
  /** drops the connection without a clean end */
  abort(): void;
  /** ends the stream cleanly, or drops it when it holds undelivered events */
  end(): void;
  /** delivers the events held while stalled */
  resume(): void;
  user: string;
  resource: string;
}

export class WatchRegistry {
  readonly open = new Set<OpenWatch>();
  private stalledNow = false;

  /** whether new events are being held instead of sent */
  get stalled(): boolean {
    return this.stalledNow;
  }

  /** stalls every stream (open now or opened later); unstalling delivers what each one held */
  set stalled(on: boolean) {
    this.stalledNow = on;
    if (!on) for (const w of [...this.open]) w.resume();
  }

  closeAll(): void {
    for (const w of [...this.open]) w.abort();
  }

  endAll(): void {
    for (const w of [...this.open]) w.end();
  }
}
