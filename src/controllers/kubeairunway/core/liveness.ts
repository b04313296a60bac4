// Which deployments to look at again when a provider's liveness changes (docs/kubeairunway.md, "Provider
// readiness and heartbeats"). A provider that dies never says so: its heartbeat just stops, and nothing
// changes in the API server when it goes stale. So the core keeps, per InferenceProviderConfig, whether it
// was selectable at its last event and a timer for the moment its heartbeat goes stale; a flip either way
// (an event, or the timer) enqueues the deployments that provider owns, whose ProviderSelected condition
// follows it.
import { HEARTBEAT_STALE_AFTER_MS, type InferenceProviderConfig } from '../../../apis/kubeairunway/index.ts';
import { providerReadiness, staleAt } from '../selection/index.ts';

export interface LivenessOptions {
  now: () => number;
  staleAfterMs?: number;
  /** the provider named `provider` became selectable or stopped being so */
  onChange: (provider: string) => void;
}

export class ProviderLiveness {
  private readonly ready = new Map<string, boolean>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly opts: LivenessOptions) {}

  /** an InferenceProviderConfig was added or changed; true when its selectability flipped */
  observe(config: InferenceProviderConfig): boolean {
    const name = config.metadata.name ?? '';
    const staleAfter = this.opts.staleAfterMs ?? HEARTBEAT_STALE_AFTER_MS;
    const now = this.opts.now();
    const ready = providerReadiness(config, now, staleAfter).ready;
    const flipped = this.ready.has(name) && this.ready.get(name) !== ready;
    this.ready.set(name, ready);
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    const at = ready ? staleAt(config, staleAfter) : undefined;
    if (at !== undefined && !this.stopped) {
      // a little past the limit, so the check at that moment sees it stale
      const timer = setTimeout(() => this.expire(name), Math.max(0, at - now) + 50);
      timer.unref();
      this.timers.set(name, timer);
    }
    return flipped;
  }

  /** an InferenceProviderConfig was deleted: its deployments lost their provider */
  forget(name: string): void {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    this.ready.delete(name);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private expire(name: string): void {
    this.timers.delete(name);
    if (this.ready.get(name) !== true) return;
    this.ready.set(name, false);
    this.opts.onChange(name);
  }
}
