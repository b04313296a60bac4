// Gathers one cycle's inputs: VariantAutoscalings, their Deployments and pods from the informer cache (no
// API-server request), thresholds from the config cache, replica load from the metrics source. Grouped per
// model and namespace, since all variants of a model are optimised together.

import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import { ACCELERATOR_LABEL, CONTROLLER_INSTANCE_LABEL, DEFAULT_VARIANT_COST } from '../../apis/llmd/index.ts';
import { type ConfigSnapshot, resolveSaturationConfig } from './config/cache.ts';
import {
  AutoscaledDeployments,
  AutoscaledPods,
  AutoscaledReplicaSets,
  type PodObject,
  type ScalableWorkload,
  type VariantAutoscaling,
  VariantAutoscalings,
} from './kinds.ts';
import type { MetricsSource, PodLoad } from './metrics-source/source.ts';
import type { ReplicaMetrics } from './saturation/analyzer.ts';
import type { ModelInput } from './saturation/cycle.ts';
import type { VariantState } from './saturation/targets.ts';

/** the informer-cache reads the engine needs (packages/runtime's Cache provides them) */
export interface CacheReader {
  list<T extends KubeObject>(kind: KindRef<T>, opts?: { namespace?: string }): Promise<T[]>;
  get<T extends KubeObject>(kind: KindRef<T>, name: string, namespace?: string): Promise<T | undefined>;
}

export interface GatherOptions {
  saturationConfigMapName: string;
  /** CONTROLLER_INSTANCE: only VAs labelled with it (none set = only unlabelled VAs) */
  controllerInstance?: string;
  scaleToZeroWindowSeconds: number;
  signal?: AbortSignal;
}

export interface VariantExtras {
  readonly accelerator?: string;
  readonly current: number;
  readonly load?: { kvCacheUsage: number; queueLength: number };
}

export interface GatheredModel {
  readonly input: ModelInput;
  /** per VA name */
  readonly extras: ReadonlyMap<string, VariantExtras>;
  readonly metricsProblem?: { reason: 'MetricsMissing' | 'PrometheusError'; message: string };
}

export async function gatherInputs(
  reader: CacheReader,
  snapshot: ConfigSnapshot,
  source: MetricsSource,
  opts: GatherOptions,
): Promise<GatheredModel[]> {
  const vas = (await reader.list(VariantAutoscalings)).filter(
    (va) =>
      !va.metadata.deletionTimestamp && va.metadata.labels?.[CONTROLLER_INSTANCE_LABEL] === opts.controllerInstance,
  );
  const groups = new Map<string, VariantAutoscaling[]>();
  const workloads = new Map<string, NamespaceWorkloads>();
  for (const va of vas) {
    const ns = va.metadata.namespace ?? '';
    const key = `${ns}\u0000${va.spec.modelID}`;
    const g = groups.get(key);
    if (g) g.push(va);
    else groups.set(key, [va]);
    if (!workloads.has(ns)) workloads.set(ns, await namespaceWorkloads(reader, ns));
  }
  const gathered = await Promise.all(
    [...groups.values()].map(async (members) => ({ members, metrics: await readMetrics(source, members[0]!, opts) })),
  );
  return gathered.map(({ members, metrics }) =>
    gatherModel(snapshot, source, members, metrics, workloads.get(members[0]!.metadata.namespace ?? '')!, opts),
  );
}

/** a namespace's Deployments by name and the pods of each Deployment (pod → ReplicaSet → Deployment by owner uid) */
interface NamespaceWorkloads {
  deployments: Map<string, ScalableWorkload>;
  podsByDeploymentUid: Map<string, PodObject[]>;
}

async function namespaceWorkloads(reader: CacheReader, namespace: string): Promise<NamespaceWorkloads> {
  const [deployments, replicaSets, pods] = await Promise.all([
    reader.list(AutoscaledDeployments, { namespace }),
    reader.list(AutoscaledReplicaSets, { namespace }),
    reader.list(AutoscaledPods, { namespace }),
  ]);
  const deploymentOfRs = new Map<string, string>();
  for (const rs of replicaSets) {
    const owner = rs.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'Deployment');
    if (owner && rs.metadata.uid) deploymentOfRs.set(rs.metadata.uid, owner.uid);
  }
  const podsByDeploymentUid = new Map<string, PodObject[]>();
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running') continue;
    const owner = pod.metadata.ownerReferences?.find((r) => r.controller && r.kind === 'ReplicaSet');
    const d = owner && deploymentOfRs.get(owner.uid);
    if (!d) continue;
    const list = podsByDeploymentUid.get(d);
    if (list) list.push(pod);
    else podsByDeploymentUid.set(d, [pod]);
  }
  return { deployments: new Map(deployments.map((d) => [d.metadata.name ?? '', d])), podsByDeploymentUid };
}

interface MetricsRead {
  load?: Map<string, PodLoad>;
  requestsInWindow?: number;
  error?: string;
}

async function readMetrics(source: MetricsSource, va: VariantAutoscaling, opts: GatherOptions): Promise<MetricsRead> {
  const ns = va.metadata.namespace ?? '';
  try {
    const [load, requestsInWindow] = await Promise.all([
      source.podLoad(ns, va.spec.modelID, opts.signal),
      source.requestsInWindow(ns, va.spec.modelID, opts.scaleToZeroWindowSeconds, opts.signal),
    ]);
    return { load, ...(requestsInWindow !== undefined ? { requestsInWindow } : {}) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function gatherModel(
  snapshot: ConfigSnapshot,
  source: MetricsSource,
  members: VariantAutoscaling[],
  metrics: MetricsRead,
  workloads: NamespaceWorkloads,
  opts: GatherOptions,
): GatheredModel {
  const namespace = members[0]!.metadata.namespace!;
  const modelID = members[0]!.spec.modelID;
  const config = resolveSaturationConfig(snapshot, namespace, modelID, opts.saturationConfigMapName);
  const variants: VariantState[] = [];
  const extras = new Map<string, VariantExtras>();
  const load = metrics.load ?? new Map<string, PodLoad>();
  for (const va of [...members].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
    const { state, extra } = variantState(va, load, workloads);
    variants.push(state);
    extras.set(va.metadata.name ?? '', extra);
  }
  const withMetrics = variants.reduce((n, v) => n + v.replicas.length, 0);
  const metricsProblem = metrics.error
    ? { reason: 'PrometheusError' as const, message: metrics.error }
    : withMetrics === 0 && variants.some((v) => v.current > 0)
      ? {
          reason: 'MetricsMissing' as const,
          message: `${source.description} has no vllm:kv_cache_usage_perc or vllm:num_requests_waiting series for model_name="${modelID}" in namespace ${namespace} from the variants' pods`,
        }
      : undefined;
  const input: ModelInput = {
    namespace,
    modelID,
    ...(config ? { config } : {}),
    variants,
    scaleToZero: {
      ...(metrics.requestsInWindow !== undefined ? { requestsInWindow: metrics.requestsInWindow } : {}),
      windowDescription: `the last ${Math.round(opts.scaleToZeroWindowSeconds / 60)}m`,
    },
    ...(metrics.error ? { metricsError: metrics.error } : {}),
  };
  return { input, extras, ...(metricsProblem ? { metricsProblem } : {}) };
}

function variantState(
  va: VariantAutoscaling,
  load: Map<string, PodLoad>,
  workloads: NamespaceWorkloads,
): { state: VariantState; extra: VariantExtras } {
  const target =
    va.spec.scaleTargetRef.kind === 'Deployment' ? workloads.deployments.get(va.spec.scaleTargetRef.name) : undefined;
  const current = target ? (target.status?.replicas ?? target.spec?.replicas ?? 0) : 0;
  const ready = target?.status?.readyReplicas ?? 0;
  const replicas: ReplicaMetrics[] = [];
  let kvSum = 0;
  let qSum = 0;
  for (const pod of (target && workloads.podsByDeploymentUid.get(target.metadata.uid ?? '')) || []) {
    const podName = pod.metadata.name ?? '';
    const l = load.get(podName);
    if (!l || (l.kvCacheUsage === undefined && l.queueLength === undefined)) continue;
    const m = { pod: podName, kvCacheUsage: l.kvCacheUsage ?? 0, queueLength: l.queueLength ?? 0 };
    replicas.push(m);
    kvSum += m.kvCacheUsage;
    qSum += m.queueLength;
  }
  const cost = Number.parseFloat(va.spec.variantCost ?? DEFAULT_VARIANT_COST);
  const previous = va.status?.desiredOptimizedAlloc?.numReplicas;
  const state: VariantState = {
    name: va.metadata.name ?? '',
    cost: Number.isFinite(cost) ? cost : 10,
    minReplicas: va.spec.minReplicas ?? 1,
    maxReplicas: va.spec.maxReplicas ?? 10,
    current,
    ready,
    ...(previous !== undefined ? { previousDesired: previous } : {}),
    replicas,
  };
  const accelerator = va.metadata.labels?.[ACCELERATOR_LABEL];
  const extra: VariantExtras = {
    current,
    ...(accelerator ? { accelerator } : {}),
    ...(replicas.length
      ? { load: { kvCacheUsage: kvSum / replicas.length, queueLength: qSum / replicas.length } }
      : {}),
  };
  return { state, extra };
}
