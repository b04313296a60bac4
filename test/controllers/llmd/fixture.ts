// Shared scaffolding for the autoscaler's integration tests on the embedded API server: a model's variant
// (Deployment → ReplicaSet → Running pods, written directly: no workload simulators), the ConfigMaps, and
// a metrics source whose per-pod load the test sets.

import type { KubeClient } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { MetricsSource, PodLoad, WindowActivity } from '../../../src/controllers/llmd/metrics-source/source.ts';

export const WVA_NS = 'workload-variant-autoscaler-system';
/** the autoscaler's ConfigMap names as registerAutoscaler takes them */
export const AUTOSCALER_NAMES = {
  namespace: WVA_NS,
  configMapName: 'workload-variant-autoscaler-variantautoscaling-config',
  saturationConfigMapName: 'saturation-scaling-config',
};
export const DEFAULT_ENTRY =
  'kvCacheThreshold: 0.80\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n';

/** a metrics source the test drives: load per pod, or an error for every read */
export class SettableMetrics implements MetricsSource {
  readonly description = 'test metrics';
  load = new Map<string, PodLoad>();
  requests: number | undefined = 100;
  failure: string | undefined;
  reads = 0;
  async podLoad(): Promise<Map<string, PodLoad>> {
    this.reads++;
    if (this.failure) throw new Error(this.failure);
    return new Map(this.load);
  }
  queued: number | undefined = undefined;
  /** when the queue's sample was taken (Unix seconds): a query evaluated before it still sees 0 */
  queuedAt: number | undefined = undefined;
  /** the evaluation time of each queue query (undefined: now) */
  queueAsked: Array<number | undefined> = [];
  async queuedRequests(
    _namespace?: string,
    _modelID?: string,
    _signal?: AbortSignal,
    atSeconds?: number,
  ): Promise<number | undefined> {
    if (this.failure) throw new Error(this.failure);
    this.queueAsked.push(atSeconds);
    return atSeconds !== undefined && this.queuedAt !== undefined && atSeconds < this.queuedAt ? 0 : this.queued;
  }
  /** the peak of requests in flight in the window (undefined: unknown) */
  peakInFlight: number | undefined = 1;
  windows: number[] = [];
  /** the served counters summed now (undefined: unknown) */
  servedTotal: number | undefined = 0;
  async activityInWindow(_ns: string, _model: string, windowSeconds: number): Promise<WindowActivity> {
    if (this.failure) throw new Error(this.failure);
    this.windows.push(windowSeconds);
    return {
      ...(this.requests !== undefined ? { served: this.requests } : {}),
      ...(this.peakInFlight !== undefined ? { peakInFlight: this.peakInFlight } : {}),
      ...(this.servedTotal !== undefined ? { servedTotal: this.servedTotal } : {}),
      queued: this.queued ?? 0,
    };
  }
  setAll(pods: string[], kvCacheUsage: number, queueLength = 0): void {
    for (const p of pods) this.load.set(p, { kvCacheUsage, queueLength });
  }
}

export async function namespaces(admin: KubeClient, ...names: string[]): Promise<void> {
  for (const name of names) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export function configMap(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data } as KubeObject;
}

/** a Deployment with `replicas` ready pods (names `<name>-rs-<i>`), status written as the controllers would */
export async function variantWorkload(
  admin: KubeClient,
  namespace: string,
  name: string,
  replicas: number,
): Promise<string[]> {
  const labels = { app: name };
  const d = await admin.apply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'vllm', image: 'vllm/vllm-openai:v0.10.0' }] } },
    },
  } as KubeObject);
  await admin.applyStatus({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
  } as KubeObject);
  const owner = (o: KubeObject, kind: string) => [
    { apiVersion: 'apps/v1', kind, name: o.metadata.name!, uid: o.metadata.uid!, controller: true },
  ];
  const rs = await admin.apply({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `${name}-rs`, namespace, labels, ownerReferences: owner(d, 'Deployment') },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'vllm', image: 'vllm/vllm-openai:v0.10.0' }] } },
    },
  } as KubeObject);
  const pods: string[] = [];
  for (let i = 0; i < replicas; i++) {
    const pod = `${name}-rs-${i}`;
    await admin.apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace, labels, ownerReferences: owner(rs, 'ReplicaSet') },
      spec: { containers: [{ name: 'vllm', image: 'vllm/vllm-openai:v0.10.0' }] },
    } as KubeObject);
    await admin.applyStatus({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace },
      status: { phase: 'Running', podIP: `10.0.0.${i + 1}` },
    } as KubeObject);
    pods.push(pod);
  }
  return pods;
}

export function variantAutoscaling(
  namespace: string,
  name: string,
  modelID: string,
  extra: Record<string, unknown> = {},
  accelerator = 'H100',
): KubeObject {
  return {
    apiVersion: 'llmd.ai/v1alpha1',
    kind: 'VariantAutoscaling',
    metadata: { name, namespace, labels: { 'inference.optimization/acceleratorName': accelerator } },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, modelID, ...extra },
  } as KubeObject;
}
