// The watch streams the fault proxy relays, and what it does to them: drop every one abruptly, stall them
// (hold the events, keep the connection) and release them in order, and expire them: end the open ones
// and answer any watch that resumes from a resourceVersion before that moment the way kube-apiserver's
// watch cache answers one older than its history, with a 410 Expired ERROR event (docs/real-kubernetes.md).
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';

interface Relayed {
  res: ServerResponse;
  upstream: ClientRequest;
  /** events received while stalled, delivered in order when the stall ends */
  held: Buffer[];
  /** the upstream stream ended cleanly while events were held: end after delivering them */
  upstreamEnded: boolean;
}

export class WatchStreams {
  private readonly open = new Set<Relayed>();
  private stalledNow = false;
  /** resourceVersions below this are expired (pending while the current one is read) */
  private expiredBelow: Promise<bigint> | undefined;

  get stalled(): boolean {
    return this.stalledNow;
  }

  /** relays an upstream watch response to the client, holding its events while stalled */
  relay(res: ServerResponse, upstream: ClientRequest, upstreamRes: IncomingMessage): void {
    const w: Relayed = { res, upstream, held: [], upstreamEnded: false };
    this.open.add(w);
    upstreamRes.on('data', (chunk: Buffer) => {
      if (!this.open.has(w)) return;
      if (this.stalledNow || w.held.length > 0) w.held.push(chunk);
      else res.write(chunk);
    });
    upstreamRes.on('end', () => {
      if (!this.open.has(w)) return;
      if (w.held.length > 0) w.upstreamEnded = true;
      else this.finish(w, 'end');
    });
    // the server went away mid-stream (a restart): the client sees its connection drop, as it would
    upstreamRes.on('aborted', () => this.finish(w, 'drop'));
    upstreamRes.on('error', () => this.finish(w, 'drop'));
    res.on('close', () => this.finish(w, 'drop'));
  }

  private finish(w: Relayed, how: 'end' | 'drop'): void {
    if (!this.open.delete(w)) return;
    w.held = [];
    w.upstream.destroy();
    if (how === 'end') w.res.end();
    else w.res.destroy();
  }

  /** drops every open watch connection without a clean end (held events are lost with it) */
  closeAll(): void {
    for (const w of [...this.open]) this.finish(w, 'drop');
  }

  /**
   * While on, open and new watches stay connected and hold their events. Turning it off delivers them in
   * order on the next turn of the event loop, so a close or expire in the same tick drops them instead.
   */
  stall(on: boolean): void {
    this.stalledNow = on;
    if (on) return;
    setImmediate(() => {
      if (this.stalledNow) return;
      for (const w of [...this.open]) {
        for (const chunk of w.held.splice(0)) w.res.write(chunk);
        if (w.upstreamEnded) this.finish(w, 'end');
      }
    });
  }

  /**
   * Ends every open watch (one holding events is dropped, its events never delivered; an idle one ends
   * cleanly) and expires every resourceVersion before `currentRv()`, read after they ended: anything a
   * client has seen is older. Resolves once the mark is in force; watches arriving meanwhile wait for it.
   */
  expire(currentRv: () => Promise<string>): Promise<void> {
    for (const w of [...this.open]) this.finish(w, w.held.length > 0 ? 'drop' : 'end');
    const previous = this.expiredBelow;
    this.expiredBelow = currentRv().then(async (rv) => {
      const mark = BigInt(rv);
      const before = previous ? await previous.catch(() => 0n) : 0n;
      return mark > before ? mark : before;
    });
    return this.expiredBelow.then(() => undefined);
  }

  /** when a watch from `rv` resumes before the expired history, the current mark (to name in the 410); else undefined */
  async expiredMark(rv: string | null): Promise<bigint | undefined> {
    if (!this.expiredBelow || !rv || !/^\d+$/.test(rv) || rv === '0') return undefined;
    const mark = await this.expiredBelow;
    return BigInt(rv) < mark ? mark : undefined;
  }

  get size(): number {
    return this.open.size;
  }
}
