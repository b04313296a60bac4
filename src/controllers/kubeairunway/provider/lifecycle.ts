// What a provider does with a ModelDeployment, given the deployment, its upstream object and the time:
// the lifecycle half of the reconcile (pause, finalizer, cleanup on deletion or when the deployment moves
// to another provider, the cleanup timeout). Pure, so every branch is a table test; the reconciler
// carries the step out.

import type { KubeObject } from '@modelplane/runtime/meta';
import { isReconcilePaused, type ModelDeployment, providerFinalizer } from '../../../apis/kubeairunway/index.ts';
import { ownedBy } from './desired.ts';

/** what the cache says about the upstream object of a deployment */
export type UpstreamView = { state: 'absent' } | { state: 'crdMissing' } | { state: 'present'; object: KubeObject };

/** why the provider is cleaning up: the deployment is being deleted, or it now names another provider */
export type CleanupCause = 'deletion' | 'release';

export type LifecycleStep =
  /** not this provider's deployment (any more) and nothing of ours on it */
  | { do: 'ignore' }
  | { do: 'paused' }
  | { do: 'addFinalizer' }
  /** the normal path: build, apply, report */
  | { do: 'sync' }
  | { do: 'deleteUpstream'; cause: CleanupCause; object: KubeObject }
  | { do: 'waitForUpstream'; cause: CleanupCause; object: KubeObject; requeueAfterMs: number }
  /**
   * cleanup is over: `orphaned` names an object left behind because the timeout ran out; `foreign` says
   * the object of that name is not ours and was left alone
   */
  | { do: 'removeFinalizer'; cause: CleanupCause; orphaned?: KubeObject; foreign?: boolean };

export interface LifecycleInput {
  md: ModelDeployment;
  provider: string;
  upstream: UpstreamView;
  now: number;
  finalizerTimeoutMs: number;
  /** how often to look again while an upstream object is going away (default 5 s, as upstream) */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 5_000;

function parseTime(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * When the cleanup clock started: the deployment's deletionTimestamp (docs/kubeairunway.md: "5 minutes"), or, when the
 * deployment moved to another provider, the moment our upstream object's deletion began.
 */
export function cleanupStartedAt(
  cause: CleanupCause,
  md: ModelDeployment,
  upstream: KubeObject | undefined,
): number | undefined {
  if (cause === 'deletion') return parseTime(md.metadata.deletionTimestamp);
  return parseTime(upstream?.metadata.deletionTimestamp);
}

/** has cleanup run longer than the timeout? */
export function cleanupTimedOut(
  input: Pick<LifecycleInput, 'md' | 'now' | 'finalizerTimeoutMs'>,
  cause: CleanupCause,
  upstream: KubeObject | undefined,
): boolean {
  const started = cleanupStartedAt(cause, input.md, upstream);
  return started !== undefined && input.now - started >= input.finalizerTimeoutMs;
}

/** the provider the core selected, if it selected one */
export function selectedProvider(md: ModelDeployment): string {
  return md.status?.provider?.name ?? '';
}

export function decideLifecycle(input: LifecycleInput): LifecycleStep {
  const { md, provider } = input;
  const finalizer = providerFinalizer(provider);
  const hasFinalizer = md.metadata.finalizers?.includes(finalizer) ?? false;
  const selected = selectedProvider(md);
  const mine = selected === provider;
  if (!mine && !hasFinalizer) return { do: 'ignore' };
  // after the deletion branch (docs/kubeairunway.md, "Provider lifecycle"): deleting is the user's explicit wish, and a
  // pause that held the finalizer would keep a deleted deployment forever, past the 5-minute timeout
  if (!md.metadata.deletionTimestamp && isReconcilePaused(md.metadata.annotations)) return { do: 'paused' };

  let cause: CleanupCause | undefined;
  if (md.metadata.deletionTimestamp) cause = 'deletion';
  // an empty selection is not a switch (status may be rewritten); only another provider's name is
  else if (!mine && selected !== '') cause = 'release';
  if (cause === undefined)
    return mine && !hasFinalizer ? { do: 'addFinalizer' } : mine ? { do: 'sync' } : { do: 'ignore' };
  if (!hasFinalizer) return { do: 'ignore' };

  const up = input.upstream;
  if (up.state !== 'present') return { do: 'removeFinalizer', cause };
  if (!ownedBy(up.object, md)) return { do: 'removeFinalizer', cause, foreign: true };
  if (!up.object.metadata.deletionTimestamp) return { do: 'deleteUpstream', cause, object: up.object };
  if (cleanupTimedOut(input, cause, up.object)) return { do: 'removeFinalizer', cause, orphaned: up.object };
  const started = cleanupStartedAt(cause, md, up.object) ?? input.now;
  const left = Math.max(1, started + input.finalizerTimeoutMs - input.now);
  return {
    do: 'waitForUpstream',
    cause,
    object: up.object,
    requeueAfterMs: Math.min(input.pollMs ?? DEFAULT_POLL_MS, left),
  };
}
