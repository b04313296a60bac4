// Whether a registered provider can be selected: it says it is ready AND its process is alive, i.e. its
// heartbeat is recent. A provider that crashed never gets to write ready=false, so status.ready alone
// (upstream's only check) would keep routing new deployments to a dead provider.
import { HEARTBEAT_STALE_AFTER_MS, type InferenceProviderConfig } from '../../../apis/kubeairunway/index.ts';

export interface ProviderReadiness {
  ready: boolean;
  /** why not, for messages and events */
  reason?: string;
}

export function providerReadiness(
  provider: Pick<InferenceProviderConfig, 'status'>,
  now: number = Date.now(),
  staleAfterMs: number = HEARTBEAT_STALE_AFTER_MS,
): ProviderReadiness {
  const status = provider.status;
  if (status?.ready !== true) return { ready: false, reason: 'status.ready is not true' };
  const beat = status.lastHeartbeat ? Date.parse(status.lastHeartbeat) : Number.NaN;
  if (Number.isNaN(beat)) return { ready: false, reason: 'no heartbeat (status.lastHeartbeat is unset)' };
  if (now - beat > staleAfterMs) {
    return { ready: false, reason: `heartbeat stale: last at ${status.lastHeartbeat}, more than ${Math.round(staleAfterMs / 1000)}s ago` };
  }
  return { ready: true };
}
