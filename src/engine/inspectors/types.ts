// The kinds the health inspectors read: the built-in ones are the generated types of
// @modelplane/apimachinery/builtin; the Gateway API's HTTPRoute is typed here for its status only.

import type { ObservedCondition } from '@modelplane/apimachinery';
import type { CoreEvent } from '@modelplane/apimachinery/builtin';

export type {
  ContainerState,
  ContainerStateTerminated,
  ContainerStateWaiting,
  ContainerStatus,
  CoreEvent,
  Job,
  PersistentVolumeClaim,
  Pod,
} from '@modelplane/apimachinery/builtin';

import type { HTTPRoute, RouteParentStatus } from '@modelplane/apimachinery/external';

export type { HTTPRoute, RouteParentStatus };

/** a condition of a built-in or external kind, as the inspectors read it */
export type KubeCondition = ObservedCondition;

/** the time an event last happened, for picking the latest one */
export function eventTime(e: CoreEvent): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) ? ms : 0;
}

/** the most recent event about object `name` with one of `reasons` */
export function latestEvent(
  events: readonly CoreEvent[],
  name: string | undefined,
  reasons: ReadonlySet<string>,
): CoreEvent | undefined {
  let best: CoreEvent | undefined;
  for (const e of events) {
    if (name !== undefined && e.involvedObject?.name !== name) continue;
    if (!e.reason || !reasons.has(e.reason)) continue;
    if (!best || eventTime(e) >= eventTime(best)) best = e;
  }
  return best;
}

export function findCondition(conds: readonly KubeCondition[] | undefined, type: string): KubeCondition | undefined {
  return conds?.find((c) => c.type === type);
}
