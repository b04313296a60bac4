// The echoes of a controller's own writes. Every write comes back to the controller's informers as a watch
// event (or, sooner, through the cache's write observer); for the controller that made it, the event
// carries nothing new: the reconcile that wrote had the server's answer in hand and returned what it still
// needed (a requeue, a requeueAfter). Reconciling again on the echo is pure cost (a thousand objects, a
// thousand extra passes per child written). Only creates are recorded: their answer is the object exactly
// as the write made it. Any other write may return someone else's resourceVersion (a server-side apply
// that changed nothing) or the object with someone else's concurrent change folded in (the embedded API
// server does not enforce a resourceVersion in an apply body), and that news must not be lost. Updates
// echo back through predicates that compare content (ignoreOwnStatusWrites, ignoreFinalizerChange).
//
// An echo can also arrive while the writing reconcile is still running, before its response was read (the
// watch and the response race on two connections). Events for a key being reconciled are therefore held
// until that reconcile ends and then judged: any that is not an echo re-queues the key, exactly as an
// event during a reconcile always did.

import type { KubeObject } from '../meta/types.ts';

/** uid@resourceVersion: unique per write of one object */
export function writeId(obj: KubeObject): string | undefined {
  const { uid, resourceVersion } = obj.metadata ?? {};
  return uid && resourceVersion ? `${uid}@${resourceVersion}` : undefined;
}

export class OwnWrites {
  /** each recorded write, with the key whose reconcile made it (undefined: made outside any reconcile) */
  private readonly ids = new Map<string, string | undefined>();
  /** per key being reconciled: the writes whose events arrived meanwhile (undefined id: an event to honour) */
  private readonly held = new Map<string, Set<string | undefined>>();

  constructor(private readonly limit = 8192) {}

  /** a write of ours whose answer is exactly what it made (a create), made by the reconcile of `key` */
  record(obj: KubeObject, key?: string): void {
    const id = writeId(obj);
    if (!id) return;
    this.ids.set(id, key);
    // forget the oldest: an echo comes within moments or, after a watch restart, not at all
    if (this.ids.size > this.limit) this.ids.delete(this.ids.keys().next().value!);
  }

  /**
   * is this event's object the result of one of our own writes, for `key`? Only the reconcile that wrote
   * had the answer in hand: another key the object maps to (a peer, a second owner) has not seen it.
   */
  isEcho(obj: KubeObject, key?: string): boolean {
    const id = writeId(obj);
    return id !== undefined && this.echoes(id, key);
  }

  private echoes(id: string, key: string | undefined): boolean {
    if (!this.ids.has(id)) return false;
    const writer = this.ids.get(id);
    return writer === undefined || key === undefined || writer === key;
  }

  /** keeps an event for `key` (being reconciled) to judge when its reconcile ends */
  hold(key: string, obj: KubeObject | undefined): void {
    let s = this.held.get(key);
    if (!s) {
      s = new Set();
      this.held.set(key, s);
    }
    s.add(obj ? writeId(obj) : undefined);
  }

  /** the reconcile of `key` ended: did anything but its own echoes arrive for it meanwhile? */
  release(key: string): boolean {
    const s = this.held.get(key);
    if (!s) return false;
    this.held.delete(key);
    for (const id of s) if (id === undefined || !this.echoes(id, key)) return true;
    return false;
  }
}
