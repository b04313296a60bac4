// Whether a registered provider can be selected (docs/kubeairunway.md, "Provider readiness and heartbeats"):
//  - status.ready must be true;
//  - a provider that has never written status.lastHeartbeat is taken at its word, as the public project
//    does: a hand-made or third-party InferenceProviderConfig need not heartbeat;
//  - a heartbeat that exists but is older than the stale limit (3 intervals) means the provider's process
//    is gone without saying so (a crash never writes ready=false), so it is not selected.
// Every "not ready" reason says what to do about it.
import { HEARTBEAT_STALE_AFTER_MS, type InferenceProviderConfig } from '../../../apis/kubeairunway/index.ts';

export interface ProviderReadiness {
  ready: boolean;
  /** why not, and what to do, for messages and events */
  reason?: string;
  /**
   * the heartbeat is older than the stale limit: the provider's process is gone (whatever status.ready
   * says; the core writes ready=false for it, see docs/kubeairunway.md), with the age in seconds
   */
  stale?: { lastHeartbeat: string; ageSeconds: number };
}

// The age in a message is coarse on purpose: every deployment a dead provider owns carries it in its
// conditions, and an age in seconds would rewrite each of them at every look (30 s) for as long as the
// provider stays dead. With these steps a message changes a handful of times a day; the exact time of
// the last heartbeat is in the same message.
const AGE_STEPS_S: readonly [number, string][] = [
  [86_400, '1d'],
  [43_200, '12h'],
  [21_600, '6h'],
  [7_200, '2h'],
  [3_600, '1h'],
  [1_800, '30m'],
  [600, '10m'],
  [300, '5m'],
  [180, '3m'],
  [60, '1m'],
];

/** "over 5m ago", "over 3d ago", "under 1m ago": how long ago, in steps that change rarely */
export function coarseAge(ageSeconds: number): string {
  if (ageSeconds >= 2 * 86_400) return `over ${Math.floor(ageSeconds / 86_400)}d ago`;
  const step = AGE_STEPS_S.find(([s]) => ageSeconds >= s);
  return step ? `over ${step[1]} ago` : 'under 1m ago';
}

function startIt(name: string): string {
  return `start its provider controller (modelplane provider ${name}, or its Deployment) and check its logs`;
}

export function providerReadiness(
  provider: Pick<InferenceProviderConfig, 'metadata' | 'status'>,
  now: number = Date.now(),
  staleAfterMs: number = HEARTBEAT_STALE_AFTER_MS,
): ProviderReadiness {
  const name = provider.metadata.name ?? '';
  const status = provider.status;
  const beat = status?.lastHeartbeat ? Date.parse(status.lastHeartbeat) : Number.NaN;
  // a stale heartbeat first: a dead process's last word (ready true, or the core's ready=false) says
  // less than how long it has been silent
  if (status?.lastHeartbeat && !Number.isNaN(beat) && now - beat > staleAfterMs) {
    const ageSeconds = Math.round((now - beat) / 1000);
    return {
      ready: false,
      reason: `heartbeat stale: last at ${status.lastHeartbeat}, ${coarseAge(ageSeconds)} (stale after ${Math.round(staleAfterMs / 1000)}s), so its controller is not running; ${startIt(name)}`,
      stale: { lastHeartbeat: status.lastHeartbeat, ageSeconds },
    };
  }
  if (status?.ready !== true) {
    const why = status?.conditions?.find((c) => c.status === 'False' && c.message)?.message;
    return {
      ready: false,
      reason: `not ready (status.ready is ${status?.ready ?? 'unset'})${why ? `: ${why}` : ''}; ${why ? 'fix that, or ' : ''}${startIt(name)}`,
    };
  }
  if (!status.lastHeartbeat) return { ready: true };
  if (Number.isNaN(beat))
    return {
      ready: false,
      reason: `status.lastHeartbeat ${JSON.stringify(status.lastHeartbeat)} is not a timestamp; ${startIt(name)} (it rewrites the heartbeat)`,
    };
  return { ready: true };
}

/**
 * When a provider that is selectable now stops being so without any event (its heartbeat going stale),
 * in ms since the epoch; undefined when that cannot happen (not ready, or no heartbeat to go stale).
 */
export function staleAt(
  provider: Pick<InferenceProviderConfig, 'status'>,
  staleAfterMs: number = HEARTBEAT_STALE_AFTER_MS,
): number | undefined {
  const beat = provider.status?.ready === true ? Date.parse(provider.status.lastHeartbeat ?? '') : Number.NaN;
  return Number.isNaN(beat) ? undefined : beat + staleAfterMs;
}
