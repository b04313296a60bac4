// The deployment controller's arithmetic, as pure functions: rolling-update and recreate scaling steps
// (kube's reconcileNewReplicaSet / reconcileOldReplicaSets / cleanupUnhealthyReplicas /
// scaleDownOldReplicaSetsForRollingUpdate), the status counters and the Available / Progressing
// conditions with kube's reasons and messages.

import type { Deployment, ReplicaSet, WorkloadCondition } from './kinds.ts';
import { keepTimes, kubeTime, omitZero, parseTime, scaledValue } from './util.ts';

export const REVISION = 'deployment.kubernetes.io/revision';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

export function desiredReplicas(d: Deployment): number {
  return d.spec.replicas ?? 1;
}

/** maxSurge rounded up, maxUnavailable rounded down; both zero would deadlock, so unavailable becomes 1 */
export function fenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  if (d.spec.strategy?.type === 'Recreate') return { maxSurge: 0, maxUnavailable: desiredReplicas(d) };
  const ru = d.spec.strategy?.rollingUpdate ?? {};
  const n = desiredReplicas(d);
  const maxSurge = scaledValue(
    ru.maxSurge ?? '25%',
    n,
    true,
    `deployment ${d.metadata.name}: spec.strategy.rollingUpdate.maxSurge`,
  );
  let maxUnavailable = scaledValue(
    ru.maxUnavailable ?? '25%',
    n,
    false,
    `deployment ${d.metadata.name}: spec.strategy.rollingUpdate.maxUnavailable`,
  );
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, n) };
}

const specReplicas = (rs: ReplicaSet) => rs.spec.replicas ?? 0;
const available = (rs: ReplicaSet) => rs.status?.availableReplicas ?? 0;
const byAge = (a: ReplicaSet, b: ReplicaSet) =>
  (parseTime(a.metadata.creationTimestamp) ?? 0) - (parseTime(b.metadata.creationTimestamp) ?? 0) ||
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** the replicas a (possibly not yet created) new ReplicaSet should have now */
export function newReplicaSetReplicas(d: Deployment, all: readonly ReplicaSet[], newCurrent: number): number {
  const want = desiredReplicas(d);
  if (d.spec.strategy?.type === 'Recreate') return want;
  if (newCurrent >= want) return want;
  const { maxSurge } = fenceposts(d);
  const current = all.reduce((n, rs) => n + specReplicas(rs), 0);
  const maxTotal = want + maxSurge;
  if (current >= maxTotal) return newCurrent;
  return newCurrent + Math.min(maxTotal - current, want - newCurrent);
}

/**
 * One rolling-update step: new replica counts by ReplicaSet name, for the ReplicaSets that change.
 * Works on copies, as kube's sequence of updates does on the objects it just wrote.
 */
export function rollingStep(d: Deployment, newRS: ReplicaSet, olds: readonly ReplicaSet[]): Map<string, number> {
  const scale = new Map<string, number>();
  const replicas = new Map<string, number>([newRS, ...olds].map((rs) => [rs.metadata.name!, specReplicas(rs)]));
  const all = [newRS, ...olds];
  const total = () => [...replicas.values()].reduce((a, b) => a + b, 0);
  const set = (rs: ReplicaSet, n: number) => {
    replicas.set(rs.metadata.name!, n);
    if (n !== specReplicas(rs)) scale.set(rs.metadata.name!, n);
    else scale.delete(rs.metadata.name!);
  };

  const want = desiredReplicas(d);
  const cur = specReplicas(newRS);
  if (cur > want) set(newRS, want);
  else if (cur < want)
    set(
      newRS,
      newReplicaSetReplicas(
        d,
        all.map((rs) => ({ ...rs, spec: { ...rs.spec, replicas: replicas.get(rs.metadata.name!) } })),
        cur,
      ),
    );

  const sortedOlds = [...olds].sort(byAge);
  if (sortedOlds.every((rs) => replicas.get(rs.metadata.name!) === 0)) return scale;
  const { maxUnavailable } = fenceposts(d);
  const minAvailable = want - maxUnavailable;
  const newUnavailable = replicas.get(newRS.metadata.name!)! - available(newRS);
  const maxScaledDown = total() - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return scale;

  // old ReplicaSets' unhealthy pods go first: they do not count towards availability anyway
  let cleaned = 0;
  for (const rs of sortedOlds) {
    if (cleaned >= maxScaledDown) break;
    const n = replicas.get(rs.metadata.name!)!;
    if (n === 0 || n === available(rs)) continue;
    const down = Math.min(maxScaledDown - cleaned, n - available(rs));
    set(rs, n - down);
    cleaned += down;
  }

  // then healthy old pods, as long as enough pods stay available
  const availableNow = all.reduce((sum, rs) => sum + Math.min(available(rs), replicas.get(rs.metadata.name!)!), 0);
  if (availableNow <= minAvailable) return scale;
  const budget = availableNow - minAvailable;
  let scaledDown = 0;
  for (const rs of sortedOlds) {
    if (scaledDown >= budget) break;
    const n = replicas.get(rs.metadata.name!)!;
    if (n === 0) continue;
    const down = Math.min(n, budget - scaledDown);
    set(rs, n - down);
    scaledDown += down;
  }
  return scale;
}

export interface DeploymentCounts {
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  unavailableReplicas: number;
}

export function counts(d: Deployment, newRS: ReplicaSet | undefined, all: readonly ReplicaSet[]): DeploymentCounts {
  const sum = (f: (rs: ReplicaSet) => number) => all.reduce((n, rs) => n + f(rs), 0);
  const availableReplicas = sum(available);
  return {
    replicas: sum((rs) => rs.status?.replicas ?? 0),
    updatedReplicas: newRS?.status?.replicas ?? 0,
    readyReplicas: sum((rs) => rs.status?.readyReplicas ?? 0),
    availableReplicas,
    unavailableReplicas: Math.max(0, desiredReplicas(d) - availableReplicas),
  };
}

/** a ReplicaSet's ReplicaFailure (pods cannot be created) is surfaced on the Deployment */
function replicaFailure(
  all: readonly ReplicaSet[],
  live: readonly WorkloadCondition[] | undefined,
  now: number,
): WorkloadCondition[] {
  const failed = all
    .map((rs) => rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True'))
    .find((c) => c !== undefined);
  if (!failed) return [];
  return [
    keepTimes(
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: failed.reason ?? 'FailedCreate',
        message: failed.message ?? '',
      },
      live,
      now,
      { update: true },
    ),
  ];
}

export interface StatusInput {
  d: Deployment;
  newRS: ReplicaSet | undefined;
  all: readonly ReplicaSet[];
  /** the new ReplicaSet was created by this sync */
  created: boolean;
  now: number;
}

/** the whole status the deployment controller writes, and when to look again for a progress deadline */
export function deploymentStatus(input: StatusInput): {
  status: NonNullable<Deployment['status']>;
  recheckAfter?: number;
} {
  const { d, newRS, all, now } = input;
  const c = counts(d, newRS, all);
  const want = desiredReplicas(d);
  const live = d.status?.conditions;
  const { maxUnavailable } = fenceposts(d);
  const availableCond = keepTimes(
    c.availableReplicas >= want - maxUnavailable
      ? {
          type: 'Available',
          status: 'True',
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          type: 'Available',
          status: 'False',
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    live,
    now,
    { update: true },
  );
  const { progressing, recheckAfter } = progressingCondition(input, c, want);
  const status = {
    ...omitZero({
      observedGeneration: d.metadata.generation,
      replicas: c.replicas,
      updatedReplicas: c.updatedReplicas,
      readyReplicas: c.readyReplicas,
      availableReplicas: c.availableReplicas,
      unavailableReplicas: c.unavailableReplicas,
      collisionCount: d.status?.collisionCount,
    }),
    conditions: [availableCond, ...(progressing ? [progressing] : []), ...replicaFailure(all, live, now)],
  };
  return { status, ...(recheckAfter !== undefined ? { recheckAfter: Math.max(1, recheckAfter) } : {}) };
}

type Counts = ReturnType<typeof counts>;

/**
 * The Progressing condition and, while a rollout is under way, when its progress deadline
 * (spec.progressDeadlineSeconds) falls: ProgressDeadlineExceeded once no progress was made for that long.
 */
function progressingCondition(
  input: StatusInput,
  c: Counts,
  want: number,
): { progressing?: WorkloadCondition; recheckAfter?: number } {
  const { d, newRS, now } = input;
  const live = d.status?.conditions;
  const stamp = (cond: WorkloadCondition) => keepTimes(cond, live, now, { update: true });
  const prev = live?.find((x) => x.type === 'Progressing');
  const deadlineMs = (d.spec.progressDeadlineSeconds ?? 600) * 1000;
  const transition = progressingTransition(input, c, want, prev);
  let progressing: WorkloadCondition | undefined = prev;
  let recheckAfter: number | undefined;
  if (transition) {
    const cond = stamp(transition.cond);
    // progress moves lastUpdateTime even when the reason is unchanged: that is what the deadline measures
    progressing = transition.progressed ? { ...cond, lastUpdateTime: kubeTime(now) } : cond;
  } else if (newRS && prev?.status === 'True') {
    const since = parseTime(prev.lastUpdateTime) ?? now;
    if (now - since >= deadlineMs) {
      progressing = stamp({
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: `ReplicaSet "${newRS.metadata.name ?? ''}" has timed out progressing.`,
      });
    } else recheckAfter = since + deadlineMs - now;
  }
  if (progressing?.status === 'True' && progressing.reason !== 'NewReplicaSetAvailable' && recheckAfter === undefined) {
    recheckAfter = (parseTime(progressing.lastUpdateTime) ?? now) + deadlineMs - now;
  }
  return { progressing, ...(recheckAfter !== undefined ? { recheckAfter } : {}) };
}

/**
 * What the rollout's state says Progressing is now (paused, resumed, complete, a new ReplicaSet created or
 * found, or progress made), before any deadline; undefined when none of these applies.
 */
function progressingTransition(
  input: StatusInput,
  c: Counts,
  want: number,
  prev: WorkloadCondition | undefined,
): { cond: WorkloadCondition; progressed?: boolean } | undefined {
  const { d, newRS, created } = input;
  const progressing = (status: 'True' | 'Unknown', reason: string, message: string) => ({
    cond: { type: 'Progressing', status, reason, message },
  });
  if (d.spec.paused) return progressing('Unknown', 'DeploymentPaused', 'Deployment is paused');
  if (prev?.reason === 'DeploymentPaused') return progressing('Unknown', 'DeploymentResumed', 'Deployment is resumed');
  if (!newRS) return undefined;
  const name = newRS.metadata.name ?? '';
  if (c.updatedReplicas === want && c.replicas === want && c.availableReplicas === want)
    return progressing('True', 'NewReplicaSetAvailable', `ReplicaSet "${name}" has successfully progressed.`);
  if (created) return progressing('True', 'NewReplicaSetCreated', `Created new replica set "${name}"`);
  if (!prev) return progressing('True', 'FoundNewReplicaSet', `Found new replica set "${name}"`);
  const old = d.status ?? {};
  const progressed =
    c.updatedReplicas > (old.updatedReplicas ?? 0) ||
    c.replicas - c.updatedReplicas < (old.replicas ?? 0) - (old.updatedReplicas ?? 0) ||
    c.readyReplicas > (old.readyReplicas ?? 0) ||
    c.availableReplicas > (old.availableReplicas ?? 0);
  if (!progressed && prev.reason !== 'NewReplicaSetAvailable') return undefined;
  return { ...progressing('True', 'ReplicaSetUpdated', `ReplicaSet "${name}" is progressing.`), progressed };
}
