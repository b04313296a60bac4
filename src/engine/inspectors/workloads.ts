// Health of Jobs, PersistentVolumeClaims and Gateway API HTTPRoutes.

import { infrastructureError, invalidSpecError, missingDownstreamError, resourceExhaustionError } from '../errors.ts';
import type { HealthReport } from '../health.ts';
import { classifyLogTail } from './log-patterns.ts';
import {
  type CoreEvent,
  findCondition,
  type HTTPRoute,
  type Job,
  type KubeCondition,
  latestEvent,
  type PersistentVolumeClaim,
} from './types.ts';

/** Complete ⇒ Ready; Failed ⇒ InvalidSpec (Infrastructure when pods were evicted); otherwise running */
export function jobHealth(job: Job): HealthReport {
  const name = job.metadata.name ?? '';
  const conds = job.status?.conditions;
  if (findCondition(conds, 'Complete')?.status === 'True')
    return { state: 'Ready', reason: 'JobComplete', message: `job ${name} completed` };
  const failed = findCondition(conds, 'Failed');
  if (failed?.status === 'True') {
    const msg = `job ${name} failed${failed.message ? `: ${failed.message}` : ''}`;
    if (failed.reason === 'BackoffLimitExceeded') return { errors: [invalidSpecError('JobBackoffLimitExceeded', msg)] };
    if (failed.reason === 'DeadlineExceeded') return { errors: [invalidSpecError('JobDeadlineExceeded', msg)] };
    if (/evict/i.test(failed.reason ?? '')) return { errors: [infrastructureError('JobEvicted', msg)] };
    return { errors: [invalidSpecError('JobFailed', msg)] };
  }
  if (job.spec?.suspend) return { state: 'Pending', reason: 'JobSuspended', message: `job ${name} is suspended` };
  const s = job.status ?? {};
  return {
    state: 'Progressing',
    reason: 'JobRunning',
    message: `job ${name}: ${s.active ?? 0} active, ${s.succeeded ?? 0} succeeded, ${s.failed ?? 0} failed`,
  };
}

const PROVISIONING = new Set(['ProvisioningFailed']);

/** Bound ⇒ Ready; Lost or a provisioning failure ⇒ Infrastructure (ResourceExhaustion when storage ran out); else pending */
export function pvcHealth(pvc: PersistentVolumeClaim, events: readonly CoreEvent[] = []): HealthReport {
  const name = pvc.metadata.name ?? '';
  const phase = pvc.status?.phase;
  if (phase === 'Bound') return { state: 'Ready', reason: 'PvcBound', message: `PVC ${name} is bound` };
  if (phase === 'Lost') return { errors: [infrastructureError('PvcLost', `PVC ${name} lost its volume`)] };
  const ev = latestEvent(events, name, PROVISIONING);
  if (ev) {
    const exhausted = classifyLogTail(ev.message, `PVC ${name}`);
    if (exhausted?.category === 'ResourceExhaustion')
      return { errors: [resourceExhaustionError('StorageFull', exhausted.message)] };
    return {
      errors: [infrastructureError('ProvisioningFailed', `PVC ${name}: ${ev.message ?? 'provisioning failed'}`)],
    };
  }
  return { state: 'Progressing', reason: 'PvcPending', message: `PVC ${name} is waiting for a volume` };
}

/** conditions written for an older generation of the route say nothing about the current spec */
function current(route: HTTPRoute, c: KubeCondition | undefined): KubeCondition | undefined {
  const gen = route.metadata.generation;
  if (!c || (gen !== undefined && c.observedGeneration !== undefined && c.observedGeneration < gen)) return undefined;
  return c;
}

/**
 * From the Gateway API parent statuses: accepted by a gateway ⇒ Ready (unless its backends do not
 * resolve); rejected ⇒ InvalidSpec with the gateway's reason; unresolved backends ⇒ MissingDownstream;
 * no verdict yet ⇒ Progressing.
 */
export function httpRouteHealth(route: HTTPRoute): HealthReport {
  const name = route.metadata.name ?? '';
  const parents = route.status?.parents ?? [];
  const verdicts = parents.map((p) => ({
    gateway: `${p.parentRef.namespace ? `${p.parentRef.namespace}/` : ''}${p.parentRef.name}`,
    accepted: current(route, findCondition(p.conditions, 'Accepted')),
    resolved: current(route, findCondition(p.conditions, 'ResolvedRefs')),
  }));
  const accepted = verdicts.find((v) => v.accepted?.status === 'True');
  if (accepted) {
    if (accepted.resolved?.status === 'False') {
      return {
        errors: [
          missingDownstreamError(
            accepted.resolved.reason || 'BackendNotFound',
            `HTTPRoute ${name}: ${accepted.resolved.message ?? 'backend references do not resolve'}`,
          ),
        ],
      };
    }
    return {
      state: 'Ready',
      reason: 'HTTPRouteAccepted',
      message: `HTTPRoute ${name} accepted by gateway ${accepted.gateway}`,
    };
  }
  const rejected = verdicts.find((v) => v.accepted?.status === 'False');
  if (rejected) {
    return {
      errors: [
        invalidSpecError(
          rejected.accepted!.reason || 'HTTPRouteRejected',
          `HTTPRoute ${name} rejected by gateway ${rejected.gateway}: ${rejected.accepted!.message ?? ''}`.trim(),
        ),
      ],
    };
  }
  const unresolved = verdicts.find((v) => v.resolved?.status === 'False');
  if (unresolved) {
    return {
      errors: [
        missingDownstreamError(
          unresolved.resolved!.reason || 'BackendNotFound',
          `HTTPRoute ${name}: ${unresolved.resolved!.message ?? 'backend references do not resolve'}`,
        ),
      ],
    };
  }
  return {
    state: 'Progressing',
    reason: 'HTTPRoutePending',
    message: `HTTPRoute ${name} is waiting for a gateway to accept it`,
  };
}
