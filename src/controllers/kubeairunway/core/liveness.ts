// Which deployments to look at again when a provider's liveness changes (docs/kubeairunway.md, "Provider
// readiness and heartbeats"). A provider that dies never says so: its heartbeat just stops, and nothing
// changes in the API server when it goes stale. So the core keeps, per InferenceProviderConfig, whether it
// was selectable at its last event and a timer for the moment its heartbeat goes stale; a flip either way
// (an event, or the timer) enqueues the deployments that provider owns, whose ProviderSelected condition
// follows it.
import type { KubeClient } from '@modelplane/runtime/client';
import type { Logger } from '@modelplane/runtime/log';
import {
  HEARTBEAT_STALE_AFTER_MS,
  type InferenceProviderConfig,
  type ModelDeployment,
  ModelDeployments,
} from '../../../apis/kubeairunway/index.ts';
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

/**
 * Removes `finalizer` from `md` (a provider's, after the deployment was selected away from it with nothing
 * built): a JSON patch that tests the entry first, so a concurrent change of the list fails instead of
 * removing another finalizer. Failures are logged; the next re-selection does not happen, so a left-over
 * finalizer is named in the log for `kubectl patch`.
 */
export async function releaseFinalizer(
  client: KubeClient,
  md: ModelDeployment,
  finalizer: string,
  log: Logger,
): Promise<void> {
  const i = md.metadata.finalizers?.indexOf(finalizer) ?? -1;
  if (i < 0) return;
  const path = `/metadata/finalizers/${i}`;
  try {
    await client.patch(
      ModelDeployments,
      md.metadata.name ?? '',
      md.metadata.namespace,
      [
        { op: 'test', path, value: finalizer },
        { op: 'remove', path },
      ],
      'json',
    );
  } catch (err) {
    log.error('could not remove the finalizer of the provider the deployment left', { finalizer, error: err });
  }
}
