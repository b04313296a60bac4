// The VariantAutoscaling chart's data: load, KV-cache use, queue length, desired and current replicas over
// time. The autoscaler's own decision history is used when the dashboard runs beside it (`modelplane dev`);
// against any other cluster the dashboard records what it observes through the API server (the desired
// replicas in status, the scale target's replicas) from the moment it starts (docs/dashboard.md).
import type { KubeObject } from '@modelplane/runtime/meta';
import { DEFAULT_AUTOSCALER_NAMESPACE, DEFAULT_SATURATION_CONFIG_MAP_NAME } from '../../../apis/llmd/index.ts';
import { parseSaturationConfigMap, type SaturationConfig } from '../../../controllers/llmd/config/parse.ts';
import type { AutoscalerMarker, AutoscalerPanel, AutoscalerPoint, AutoscalerThresholds, EventView } from '../types.ts';

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

/** a number for people: at most `digits` decimals, no trailing zeros (`4.333333333333333` → `4.3`) */
export function formatNumber(v: number, digits = 1): string {
  if (!Number.isFinite(v)) return String(v);
  return String(Number(v.toFixed(digits)));
}

/** the one-line summary of the newest point */
export function latestText(p: AutoscalerPoint): string {
  return [
    `current ${p.current ?? '?'} → desired ${p.desired ?? '?'}`,
    ...(p.kvCache !== undefined ? [`KV-cache ${formatNumber(p.kvCache * 100, 0)}%`] : []),
    ...(p.queue !== undefined ? [`queue ${formatNumber(p.queue)}`] : []),
  ].join(', ');
}

/**
 * The thresholds the autoscaler applies to this variant, as it resolves them: the saturation ConfigMap of
 * the variant's namespace when there is one, else the global one; the model's own entry, else `default`
 * (docs/autoscaling.md, "Configuration"). Undefined when neither ConfigMap is visible.
 */
export function thresholdsFor(va: KubeObject, configMaps: readonly KubeObject[]): AutoscalerThresholds | undefined {
  const ns = va.metadata.namespace ?? '';
  const modelID = ((va as { spec?: { modelID?: string } }).spec?.modelID ?? '') as string;
  const find = (namespace: string) =>
    configMaps.find(
      (c) => c.metadata.name === DEFAULT_SATURATION_CONFIG_MAP_NAME && c.metadata.namespace === namespace,
    );
  const cm = find(ns) ?? find(DEFAULT_AUTOSCALER_NAMESPACE);
  if (!cm) return undefined;
  const { config } = parseSaturationConfigMap((cm as { data?: Record<string, string> }).data);
  const override =
    config.overrides.find((o) => o.modelID === modelID && o.namespace === ns) ??
    config.overrides.find((o) => o.modelID === modelID && o.namespace === undefined);
  const chosen: SaturationConfig | undefined = override?.config ?? config.defaultConfig;
  if (!chosen) return undefined;
  return {
    kvCache: chosen.kvCacheThreshold,
    queue: chosen.queueLengthThreshold,
    source: `${cm.metadata.namespace}/${cm.metadata.name}[${override?.entry ?? 'default'}]`,
  };
}

const SCALE_REASONS = new Set(['ScaleUp', 'ScaleDown', 'ScaledToZero']);

/** each scale decision the autoscaler announced (its events), with the reason in its own words, oldest first */
export function scaleMarkers(events: readonly EventView[]): AutoscalerMarker[] {
  return events
    .filter((e) => SCALE_REASONS.has(e.reason) && !e.object && e.lastSeen !== '')
    .map((e) => ({ t: Date.parse(e.lastSeen), reason: e.reason, message: e.message }))
    .filter((m) => Number.isFinite(m.t))
    .sort((a, b) => a.t - b.t);
}

export interface AutoscalerPanelInputs {
  observed: readonly AutoscalerPoint[];
  feed?: DecisionFeed;
  configMaps?: readonly KubeObject[];
  events?: readonly EventView[];
  /** whether this dashboard can send load to the variant (it runs beside the simulated cluster) */
  canSendLoad?: boolean;
}

export function autoscalerPanel(va: KubeObject, inputs: AutoscalerPanelInputs): AutoscalerPanel {
  const decisions = inputs.feed?.(va.metadata.namespace ?? '', va.metadata.name ?? '') ?? [];
  const points = decisions.length > 0 ? fromDecisions(decisions) : [...inputs.observed];
  const source =
    decisions.length > 0
      ? "the autoscaler's decision history"
      : 'observed by this dashboard since it started (desired replicas from status, current from the scale target)';
  const last = points.at(-1);
  const thresholds = thresholdsFor(va, inputs.configMaps ?? []);
  return {
    kind: 'autoscaler',
    points,
    source,
    markers: scaleMarkers(inputs.events ?? []),
    ...(thresholds ? { thresholds } : {}),
    ...(last ? { latest: latestText(last) } : {}),
    ...(inputs.canSendLoad ? { canSendLoad: true } : {}),
  };
}
