// The VariantAutoscaling chart's data: load, KV-cache use, queue length, desired and current replicas over
// time. The autoscaler's own decision history is used when the dashboard runs beside it (`modelplane dev`);
// against any other cluster the dashboard records what it observes through the API server (the desired
// replicas in status, the scale target's replicas) from the moment it starts (docs/dashboard.md).
import type { KubeObject } from '@modelplane/runtime/meta';
import type { AutoscalerPanel, AutoscalerPoint } from '../types.ts';

export type AutoscalerHistory = Map<string, AutoscalerPoint[]>;

/** one decision as the autoscaler records it; the shape its decision history uses */
export interface DecisionLike {
  time: string;
  current: number;
  desired: number;
  kvCacheUsage?: number;
  queueLength?: number;
  /** requests per second, when the autoscaler reports it */
  load?: number;
}

/** the autoscaler's history of one variant, oldest first, when it runs in this process */
export type DecisionFeed = (namespace: string, name: string) => readonly DecisionLike[];

export const HISTORY_LIMIT = 240;
type Loose = Record<string, any>;

export function desiredReplicasOf(va: KubeObject): number | undefined {
  const s = (va.status ?? {}) as Loose;
  const n = s.desiredOptimizedAlloc?.numReplicas ?? s.desiredReplicas;
  return typeof n === 'number' ? n : undefined;
}

/** appends what the object shows now, unless nothing changed since the last point */
export function recordAutoscalerPoint(
  history: AutoscalerHistory,
  key: string,
  va: KubeObject,
  current?: number,
  now = Date.now(),
): void {
  const desired = desiredReplicasOf(va);
  if (desired === undefined && current === undefined) return;
  let points = history.get(key);
  if (!points) history.set(key, (points = []));
  const last = points.at(-1);
  if (last && last.desired === desired && last.current === current) return;
  points.push({ t: now, ...(desired !== undefined ? { desired } : {}), ...(current !== undefined ? { current } : {}) });
  if (points.length > HISTORY_LIMIT) points.splice(0, points.length - HISTORY_LIMIT);
}

export function fromDecisions(decisions: readonly DecisionLike[]): AutoscalerPoint[] {
  return decisions.map((d) => ({
    t: Date.parse(d.time),
    current: d.current,
    desired: d.desired,
    ...(d.kvCacheUsage !== undefined ? { kvCache: d.kvCacheUsage } : {}),
    ...(d.queueLength !== undefined ? { queue: d.queueLength } : {}),
    ...(d.load !== undefined ? { load: d.load } : {}),
  }));
}

export function autoscalerPanel(
  va: KubeObject,
  observed: readonly AutoscalerPoint[],
  feed?: DecisionFeed,
): AutoscalerPanel {
  const decisions = feed?.(va.metadata.namespace ?? '', va.metadata.name ?? '') ?? [];
  const points = decisions.length > 0 ? fromDecisions(decisions) : [...observed];
  const source =
    decisions.length > 0
      ? "the autoscaler's decision history"
      : 'observed by this dashboard since it started (desired replicas from status, current from the scale target)';
  const last = points.at(-1);
  const latest = last
    ? `current ${last.current ?? '?'} → desired ${last.desired ?? '?'}${last.kvCache !== undefined ? `, KV-cache ${(last.kvCache * 100).toFixed(0)}%` : ''}${last.queue !== undefined ? `, queue ${last.queue}` : ''}`
    : undefined;
  return { kind: 'autoscaler', points, source, ...(latest ? { latest } : {}) };
}
