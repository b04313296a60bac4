// The fields of built-in kinds the health inspectors read. Only what they use is typed; the objects are
// the API server's JSON.

import type { KubeObject } from '@modelplane/runtime/meta';

export interface KubeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

export interface ContainerStateTerminated {
  exitCode?: number;
  reason?: string;
  message?: string;
  signal?: number;
}

export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: { startedAt?: string };
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface Pod extends KubeObject {
  spec?: {
    containers?: Array<{ name: string; image?: string }>;
    initContainers?: Array<{ name: string }>;
    restartPolicy?: string;
  };
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    reason?: string;
    message?: string;
    conditions?: KubeCondition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface Job extends KubeObject {
  spec?: { suspend?: boolean; backoffLimit?: number; completions?: number };
  status?: { active?: number; succeeded?: number; failed?: number; ready?: number; conditions?: KubeCondition[] };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: { storageClassName?: string; resources?: { requests?: { storage?: string } } };
  status?: { phase?: 'Pending' | 'Bound' | 'Lost'; capacity?: { storage?: string }; conditions?: KubeCondition[] };
}

export interface RouteParentStatus {
  parentRef: { group?: string; kind?: string; namespace?: string; name: string; sectionName?: string };
  controllerName?: string;
  conditions?: KubeCondition[];
}

export interface HTTPRoute extends KubeObject {
  spec?: { parentRefs?: Array<{ name: string; namespace?: string }> };
  status?: { parents?: RouteParentStatus[] };
}

/** core/v1 Event (kubelet, scheduler and provisioners still write these) */
export interface CoreEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning' | string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  eventTime?: string;
}

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
