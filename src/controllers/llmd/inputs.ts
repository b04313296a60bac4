// Gathers one cycle's inputs: VariantAutoscalings, their Deployments and pods from the informer cache (no
// API-server request), thresholds from the config cache, replica load from the metrics source. Grouped per
// model and namespace, since all variants of a model are optimised together. A variant without evidence (no
// target, a target another VA claimed first, no replica with usable metrics, an excluded namespace) is set
// aside with the reason and takes no part in its model's decision (saturation/evidence.ts).

import { Namespaces } from '@modelplane/runtime/client';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import {
  ACCELERATOR_LABEL,
  CONTROLLER_INSTANCE_LABEL,
  DEFAULT_VARIANT_COST,
  EXCLUDE_ANNOTATION,
} from '../../apis/llmd/index.ts';
import { type ConfigSnapshot, resolveSaturationConfig } from './config/cache.ts';
import { resolveScaleToZero, type ScaleToZeroPolicy } from './config/scale-to-zero.ts';
import {
  AutoscaledDeployments,
  AutoscaledPods,
  AutoscaledReplicaSets,
  type PodObject,
  type ScalableWorkload,
  type VariantAutoscaling,
  VariantAutoscalings,
} from './kinds.ts';
import type { MetricsSource, PodLoad, WindowActivity } from './metrics-source/source.ts';
import type { ModelInput } from './saturation/cycle.ts';
import {
  checkSamples,
  DEFAULT_STALE_AFTER_SECONDS,
  duplicateMessage,
  duplicateTargets,
  sampleProblem,
  type Withheld,
  withheldForSamples,
} from './saturation/evidence.ts';
import type { VariantState } from './saturation/targets.ts';

/** the informer-cache reads the engine needs (@modelplane/runtime/cache's Cache provides them) */
export interface CacheReader {
  list<T extends KubeObject>(kind: KindRef<T>, opts?: { namespace?: string }): Promise<T[]>;
  get<T extends KubeObject>(kind: KindRef<T>, name: string, namespace?: string): Promise<T | undefined>;
}

export interface GatherOptions {
  saturationConfigMapName: string;
  /** CONTROLLER_INSTANCE: only VAs labelled with it (none set = only unlabelled VAs) */
  controllerInstance?: string;
  scaleToZeroWindowSeconds: number;
  /** WVA_SCALE_TO_ZERO, when set: the fallback after the scale-to-zero ConfigMap's entries */
  scaleToZeroEnv?: boolean;
  /** samples older than this are stale (default 60 s) */
  staleAfterSeconds?: number;
  signal?: AbortSignal;
}

export interface VariantExtras {
  readonly accelerator?: string;
  readonly current: number;
  readonly load?: { kvCacheUsage: number; queueLength: number };
  /** invalid or stale samples of a variant that still has usable ones */
  readonly sampleProblem?: Withheld;
}

/** a VA set aside this cycle: it gets no decision */
export interface WithheldVariant {
  readonly name: string;
  readonly current: number;
  readonly previousDesired?: number;
  readonly withheld: Withheld;
  /** the VA's creation time (ms), to tell a new variant waiting for its first metrics from a broken one */
  readonly createdMs?: number;
}

export interface GatheredModel {
  readonly input: ModelInput;
  /** per VA name */
  readonly extras: ReadonlyMap<string, VariantExtras>;
  readonly withheld: readonly WithheldVariant[];
  readonly metricsProblem?: { reason: 'MetricsMissing' | 'PrometheusError'; message: string };
  /** the model's activity, read only when it may scale to zero (the engine watches it across cycles) */
  readonly activity?: WindowActivity;
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
  const duplicates = duplicateTargets(vas.map(claimOf));
  const groups = new Map<string, VariantAutoscaling[]>();
  const workloads = new Map<string, NamespaceWorkloads>();
  const excluded = new Set<string>();
  for (const va of vas) {
    const ns = va.metadata.namespace ?? '';
    const key = `${ns}\u0000${va.spec.modelID}`;
    const g = groups.get(key);
    if (g) g.push(va);
    else groups.set(key, [va]);
    if (workloads.has(ns)) continue;
    workloads.set(ns, await namespaceWorkloads(reader, ns));
    if ((await reader.get(Namespaces, ns))?.metadata.annotations?.[EXCLUDE_ANNOTATION] === 'true') excluded.add(ns);
  }
  const ctx = { duplicates, excluded };
  const gathered = await Promise.all(
    [...groups.values()].map(async (members) => {
      const ns = members[0]!.metadata.namespace ?? '';
      const sorted = [...members].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
      const split = sorted.map((va) => ({ va, early: earlyWithheld(va, workloads.get(ns)!, ctx) }));
      // a model none of whose variants has a replica is not queried at all
      const anyReplica = split.some((x) => !x.early && currentOf(x.va, workloads.get(ns)!) > 0);
      const policy = resolveScaleToZero(
        snapshot.scaleToZero,
        ns,
        members[0]!.spec.modelID,
        opts.scaleToZeroEnv,
        opts.scaleToZeroWindowSeconds,
      );
      // the window's activity is read only for a model allowed to go to zero
      const mayZero = policy.enabled !== false && members.every((va) => va.spec.minReplicas === 0);
      const metrics = anyReplica
        ? await readMetrics(source, members[0]!, mayZero ? policy.retentionSeconds : undefined, opts)
        : {};
      return { split, metrics, policy };
    }),
  );
  return gathered.map(({ split, metrics, policy }) =>
    gatherModel(snapshot, source, split, metrics, workloads.get(split[0]!.va.metadata.namespace ?? '')!, policy, opts),
  );
}

const claimOf = (va: VariantAutoscaling) => ({
  key: `${va.metadata.namespace}/${va.metadata.name}`,
  namespace: va.metadata.namespace ?? '',
  targetKind: va.spec.scaleTargetRef.kind,
  targetName: va.spec.scaleTargetRef.name,
  ...(va.metadata.creationTimestamp ? { creationTimestamp: va.metadata.creationTimestamp } : {}),
});

const targetOf = (va: VariantAutoscaling, w: NamespaceWorkloads) =>
  isDeploymentRef(va) ? w.deployments.get(va.spec.scaleTargetRef.name) : undefined;

const currentOf = (va: VariantAutoscaling, w: NamespaceWorkloads) => {
  const t = targetOf(va, w);
  return t ? (t.status?.replicas ?? t.spec?.replicas ?? 0) : 0;
};

export function isDeploymentRef(va: VariantAutoscaling): boolean {
  const ref = va.spec.scaleTargetRef;
  return ref.kind === 'Deployment' && (ref.apiVersion ?? 'apps/v1') === 'apps/v1';
}

/** the reasons known before any metric is read: excluded namespace, duplicate, missing or unsupported target */
function earlyWithheld(
  va: VariantAutoscaling,
  w: NamespaceWorkloads,
  ctx: { duplicates: Map<string, string>; excluded: Set<string> },
): Withheld | undefined {
  const ns = va.metadata.namespace ?? '';
  const ref = va.spec.scaleTargetRef;
  if (ctx.excluded.has(ns))
    return {
      reason: 'Excluded',
      message: `namespace ${ns} is annotated ${EXCLUDE_ANNOTATION}: "true", so the autoscaler leaves its VariantAutoscalings alone`,
    };
  const owner = ctx.duplicates.get(`${ns}/${va.metadata.name}`);
  if (owner) return duplicateMessage(`${ref.kind} ${ns}/${ref.name}`, owner);
  if (!isDeploymentRef(va))
    return {
      reason: 'TargetNotFound',
      message: `spec.scaleTargetRef ${ref.apiVersion ?? ''} ${ref.kind} ${ref.name} is not supported; point it at an apps/v1 Deployment`,
    };
  if (!w.deployments.has(ref.name))
    return {
      reason: 'TargetNotFound',
      message: `Deployment ${ns}/${ref.name} named by spec.scaleTargetRef was not found; create it or correct spec.scaleTargetRef.name`,
    };
  return undefined;
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
  activity?: WindowActivity;
  error?: string;
}

async function readMetrics(
  source: MetricsSource,
  va: VariantAutoscaling,
  windowSeconds: number | undefined,
  opts: GatherOptions,
): Promise<MetricsRead> {
  const ns = va.metadata.namespace ?? '';
  try {
    const [load, activity] = await Promise.all([
      source.podLoad(ns, va.spec.modelID, opts.signal),
      windowSeconds === undefined
        ? undefined
        : source.activityInWindow(ns, va.spec.modelID, windowSeconds, opts.signal),
    ]);
    return { load, ...(activity ? { activity } : {}) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function gatherModel(
  snapshot: ConfigSnapshot,
  source: MetricsSource,
  split: ReadonlyArray<{ va: VariantAutoscaling; early: Withheld | undefined }>,
  metrics: MetricsRead,
  workloads: NamespaceWorkloads,
  policy: ScaleToZeroPolicy,
  opts: GatherOptions,
): GatheredModel {
  const namespace = split[0]!.va.metadata.namespace!;
  const modelID = split[0]!.va.spec.modelID;
  const config = resolveSaturationConfig(snapshot, namespace, modelID, opts.saturationConfigMapName);
  const variants: VariantState[] = [];
  const extras = new Map<string, VariantExtras>();
  const withheld: WithheldVariant[] = [];
  const load = metrics.load ?? new Map<string, PodLoad>();
  const staleAfter = opts.staleAfterSeconds ?? DEFAULT_STALE_AFTER_SECONDS;
  let unmeasured: string | undefined;
  for (const { va, early } of split) {
    const { state, extra, late } = variantState(va, load, workloads, staleAfter, source.description);
    const why = early ?? (metrics.error && state.current > 0 ? undefined : late);
    if (why) {
      const { name, current, previousDesired } = state;
      const createdMs = Date.parse(va.metadata.creationTimestamp ?? '');
      withheld.push({
        name,
        current,
        ...(previousDesired !== undefined ? { previousDesired } : {}),
        withheld: why,
        ...(Number.isFinite(createdMs) ? { createdMs } : {}),
      });
      // replicas that run without usable metrics leave the model's load unknown
      if (!early && current > 0) unmeasured ??= why.message;
      continue;
    }
    variants.push(state);
    extras.set(va.metadata.name ?? '', extra);
  }
  const metricsProblem = metrics.error ? { reason: 'PrometheusError' as const, message: metrics.error } : undefined;
  const input: ModelInput = {
    namespace,
    modelID,
    ...(config ? { config } : {}),
    variants,
    scaleToZero: {
      windowSeconds: policy.retentionSeconds,
      ...(metrics.activity?.served !== undefined ? { requestsInWindow: metrics.activity.served } : {}),
      ...(metrics.activity?.peakInFlight !== undefined ? { peakInFlight: metrics.activity.peakInFlight } : {}),
      windowDescription: `the last ${describeWindow(policy.retentionSeconds)} (${policy.origin})`,
      ...(policy.enabled !== undefined ? { enabled: policy.enabled } : {}),
    },
    ...(metrics.error ? { metricsError: metrics.error } : {}),
    ...(unmeasured ? { unmeasured } : {}),
  };
  return {
    input,
    extras,
    withheld,
    ...(metricsProblem ? { metricsProblem } : {}),
    ...(metrics.activity ? { activity: metrics.activity } : {}),
  };
}

function variantState(
  va: VariantAutoscaling,
  load: Map<string, PodLoad>,
  workloads: NamespaceWorkloads,
  staleAfterSeconds: number,
  source: string,
): { state: VariantState; extra: VariantExtras; late?: Withheld } {
  const target = targetOf(va, workloads);
  const current = currentOf(va, workloads);
  const ready = target?.status?.readyReplicas ?? 0;
  const pods = ((target && workloads.podsByDeploymentUid.get(target.metadata.uid ?? '')) || []).map(
    (p) => p.metadata.name ?? '',
  );
  const samples = checkSamples(pods, load, staleAfterSeconds);
  const replicas = samples.replicas;
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
  const n = replicas.length;
  const problem = sampleProblem(samples);
  const extra: VariantExtras = {
    current,
    ...(accelerator ? { accelerator } : {}),
    ...(n
      ? {
          load: {
            kvCacheUsage: replicas.reduce((a, r) => a + r.kvCacheUsage, 0) / n,
            queueLength: replicas.reduce((a, r) => a + r.queueLength, 0) / n,
          },
        }
      : {}),
    ...(problem ? { sampleProblem: problem } : {}),
  };
  const late = withheldForSamples(
    `Deployment ${va.metadata.namespace}/${va.spec.scaleTargetRef.name}`,
    current,
    samples,
    source,
  );
  return { state, extra, ...(late ? { late } : {}) };
}

const describeWindow = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`);
