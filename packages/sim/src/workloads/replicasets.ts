// The simulated ReplicaSet controller (kube-controller-manager's replicaset-controller): keeps
// spec.replicas active pods per ReplicaSet, deleting the least valuable ones first when scaling down,
// and reports replicas / fullyLabeledReplicas / readyReplicas / availableReplicas / observedGeneration.

import { isNotFound, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext } from '@modelplane/runtime/controller';
import type { EventRecorder } from '@modelplane/runtime/events';
import { controllerOf, type Selector, selectorFromObject } from '@modelplane/runtime/meta';
import type { SimContext } from './context.ts';
import { type Pod, Pods, type ReplicaSet, ReplicaSets } from './kinds.ts';
import { podFromTemplate } from './pod-template.ts';
import { availableIn, isActive, isPodReady, keepTimes, omitZero, parseTime } from './util.ts';

const FIELD_MANAGER = 'replicaset-controller';
/** kube creates pods in slow-start batches; this bounds one reconcile's burst */
const MAX_BURST = 500;

/** controller.ActivePods ordering: the first pods are the first to delete */
export function deletionOrder(a: Pod, b: Pod): number {
  const rank = (p: Pod) => [
    p.spec.nodeName ? 1 : 0,
    p.status?.phase === 'Pending' ? 0 : p.status?.phase === 'Unknown' ? 1 : 2,
    isPodReady(p) ? 1 : 0,
  ];
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  const restarts = (p: Pod) => (p.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  // newer pods go first
  return (parseTime(b.metadata.creationTimestamp) ?? 0) - (parseTime(a.metadata.creationTimestamp) ?? 0);
}

/** the pods this ReplicaSet controls (controller ownerReference with its uid) */
export async function ownedPods(
  sim: SimContext,
  owner: { metadata: { uid?: string; namespace?: string } },
): Promise<Pod[]> {
  const uid = owner.metadata.uid ?? '';
  const pods = await sim.mgr.cache.list(Pods, {
    index: { name: 'owner', value: uid },
    namespace: owner.metadata.namespace ?? '',
  });
  return pods.filter((p) => controllerOf(p)?.uid === uid);
}

export function registerReplicaSets(sim: SimContext): void {
  // pods we deleted that the cache may still show (deletes return no object to feed back into it)
  const deleted = new Set<string>();

  sim.mgr
    .controller('sim-replicaset')
    .for(ReplicaSets)
    .owns(Pods)
    .withOptions({ concurrency: 4, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const rs = await ctx.cache.get(ReplicaSets, req.name, req.namespace);
      if (!rs || rs.metadata.deletionTimestamp) return;
      const recorder = sim.recorders.for(FIELD_MANAGER);
      const all = await ownedPods(sim, rs);
      for (const uid of [...deleted]) if (!all.some((p) => p.metadata.uid === uid)) deleted.delete(uid);
      const active = all.filter((p) => isActive(p) && !deleted.has(p.metadata.uid ?? ''));
      const want = rs.spec.replicas ?? 1;
      let createError: unknown;
      if (active.length < want) createError = await createPods(ctx, rs, active, want, recorder);
      else if (active.length > want) await deletePods(ctx, rs, active, want, deleted, recorder);
      const now = sim.now();
      const { status, nextAvailable } = replicaSetStatus(rs, active, now, createError);
      const desired = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: req.name, namespace: req.namespace },
        status,
      };
      if (needsApply(desired, rs, FIELD_MANAGER, 'status')) {
        try {
          await ctx.client.applyStatus(desired);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          // deleted meanwhile: its delete event follows; no minReadySeconds left to wait for
          return undefined;
        }
      }
      if (createError) throw createError;
      return Number.isFinite(nextAvailable) ? { requeueAfter: Math.max(1, nextAvailable) } : undefined;
    });
}

/**
 * Creates pods from the template up to `want` (at most MAX_BURST at once), adding them to `active`. Stops at
 * the first refusal (quota, admission) and returns it: the next ones would be refused alike.
 */
async function createPods(
  ctx: ReconcileContext,
  rs: ReplicaSet,
  active: Pod[],
  want: number,
  recorder: EventRecorder,
): Promise<unknown> {
  const n = Math.min(want - active.length, MAX_BURST);
  for (let i = 0; i < n; i++) {
    try {
      const created = await ctx.client.create(podFromTemplate(rs, rs.spec.template));
      active.push(created);
      recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
    } catch (err) {
      recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
      return err;
    }
  }
  return undefined;
}

/**
 * Deletes the least valuable pods (deletionOrder) down to `want`, each with a uid precondition so a pod
 * recreated under the same name survives; removes them from `active` and remembers them in `deleted`.
 */
async function deletePods(
  ctx: ReconcileContext,
  rs: ReplicaSet,
  active: Pod[],
  want: number,
  deleted: Set<string>,
  recorder: EventRecorder,
): Promise<void> {
  const victims = [...active].sort(deletionOrder).slice(0, active.length - want);
  for (const pod of victims) {
    try {
      await ctx.client.delete(Pods, pod.metadata.name!, pod.metadata.namespace, {
        preconditions: { uid: pod.metadata.uid! },
      });
    } catch (err) {
      if (!isNotFound(err) && (err as { code?: number }).code !== 409) throw err;
    }
    deleted.add(pod.metadata.uid ?? '');
    active.splice(active.indexOf(pod), 1);
    recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }
}

/** The counts kube reports (zeros omitted) and, in ms, when the next pod becomes available (minReadySeconds). */
function replicaSetStatus(rs: ReplicaSet, active: Pod[], now: number, createError: unknown) {
  const minReady = rs.spec.minReadySeconds ?? 0;
  let nextAvailable = Number.POSITIVE_INFINITY;
  let available = 0;
  for (const p of active) {
    const wait = availableIn(p, minReady, now);
    if (wait === 0) available++;
    else nextAvailable = Math.min(nextAvailable, wait);
  }
  const template: Selector = selectorFromObject({ matchLabels: rs.spec.template.metadata?.labels ?? {} });
  const counts = {
    replicas: active.length,
    ...omitZero({
      fullyLabeledReplicas: active.filter((p) => template.matches(p.metadata.labels)).length,
      readyReplicas: active.filter(isPodReady).length,
      availableReplicas: available,
      observedGeneration: rs.metadata.generation,
    }),
  };
  // a failed pod creation (quota, admission) shows as ReplicaFailure until creations succeed again
  const failure = createError
    ? [
        keepTimes(
          {
            type: 'ReplicaFailure',
            status: 'True' as const,
            reason: 'FailedCreate',
            message: (createError as Error).message,
          },
          rs.status?.conditions,
          now,
        ),
      ]
    : [];
  return { status: { ...counts, ...(failure.length > 0 ? { conditions: failure } : {}) }, nextAvailable };
}
