// The cluster-wide limit of 10 discovery Jobs (docs/aim.md, "Templates") shared by the namespaced and the
// cluster template controllers of one process. The informer cache shows a Job a moment after it was
// created, and the two controllers plan independently, so both could read 9 and start one each. A start
// is therefore reserved the moment it is planned (planning is synchronous, so check and reservation happen
// together) and counted until the Job shows up in the listing; a reservation whose Job never appears (the
// apply failed) lapses after `ttlMs`.
import type { Clock } from '../../../engine/index.ts';

export const DISCOVERY_RESERVATION_TTL_MS = 30_000;

export class DiscoverySlots {
  /** `namespace/name` of Jobs planned but not yet seen → when they were planned */
  private readonly reserved = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = DISCOVERY_RESERVATION_TTL_MS,
  ) {}

  /** Jobs in use: the active ones listed, plus reservations not in the listing yet */
  inUse(listed: ReadonlySet<string>, active: number): number {
    const now = this.clock.now();
    for (const [key, at] of this.reserved) if (listed.has(key) || now - at > this.ttlMs) this.reserved.delete(key);
    return active + this.reserved.size;
  }

  reserve(namespace: string, name: string): void {
    this.reserved.set(`${namespace}/${name}`, this.clock.now());
  }
}
