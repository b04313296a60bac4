// ModelDeployment → RayService (docs/kubeairunway.md): the Serve application (serve-config.ts) on a Ray cluster of
// one head and GPU worker groups: `gpu-workers` (aggregated) or `prefill-workers` and `decode-workers`. The
// model runs on the workers, so the deployment's resources size the workers; the head keeps a fixed size
// that the documented `head.resources` override changes.
import { DEFAULT_GPU_TYPE, type ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { containerStorageFields, podStorageFields } from '../../storage/index.ts';
import { defaultModelDeployment, servingModeOf } from '../../validation/index.ts';
import { modelEnv, modelLabels, podAnnotations, podLabels } from '../common/index.ts';
import { serveConfigFor } from './serve-config.ts';
import { type PodTemplate, RAY_API_VERSION, RAYSERVICE_KIND, type RayService, type WorkerGroupSpec } from './types.ts';

export const RAY_IMAGE = 'rayproject/ray-llm:2.55.0-py311-cu128';
export const SERVE_PORT = 8000;
export const HEAD_CONTAINER = 'ray-head';
export const WORKER_CONTAINER = 'ray-worker';
export const HEAD_RESOURCES: Readonly<Record<'cpu' | 'memory', string>> = { cpu: '4', memory: '16Gi' };
export const DEFAULT_WORKER_MEMORY = '32Gi';
export const HEAD_START_PARAMS: Readonly<Record<string, string>> = { 'dashboard-host': '0.0.0.0' };

const HEAD_PORTS = [
  { name: 'gcs-server', containerPort: 6379, protocol: 'TCP' },
  { name: 'dashboard', containerPort: 8265, protocol: 'TCP' },
  { name: 'client', containerPort: 10001, protocol: 'TCP' },
  { name: 'serve', containerPort: SERVE_PORT, protocol: 'TCP' },
];

export function rayImage(md: ModelDeployment): string {
  return md.spec.engine?.image || md.spec.image || RAY_IMAGE;
}

/** the head container with `resources` as both requests and limits (defaults: HEAD_RESOURCES) */
export function headContainer(
  md: ModelDeployment,
  resources: Readonly<Record<string, string>> = HEAD_RESOURCES,
): Record<string, unknown> {
  const env = modelEnv(md);
  return {
    name: HEAD_CONTAINER,
    image: rayImage(md),
    ports: HEAD_PORTS.map((p) => ({ ...p })),
    resources: { requests: { ...resources }, limits: { ...resources } },
    ...(env.length > 0 ? { env } : {}),
    ...containerStorageFields(md),
  };
}

function podTemplate(md: ModelDeployment, container: Record<string, unknown>): PodTemplate {
  const spec = md.spec;
  const annotations = podAnnotations(md);
  return {
    metadata: { labels: podLabels(md), ...(annotations ? { annotations } : {}) },
    spec: {
      containers: [container],
      ...podStorageFields(md),
      ...(Object.keys(spec.nodeSelector ?? {}).length > 0 ? { nodeSelector: { ...spec.nodeSelector } } : {}),
      ...(spec.tolerations?.length ? { tolerations: structuredClone(spec.tolerations) } : {}),
    },
  };
}

interface GroupShape {
  name: string;
  replicas: number;
  gpus: number;
  gpuType: string;
  memory?: string | number;
}

function workerGroup(md: ModelDeployment, g: GroupShape): WorkerGroupSpec {
  // the GPU type is the container's resource name; Ray is told the count, whatever the vendor
  const amounts: Record<string, string> = { memory: String(g.memory ?? DEFAULT_WORKER_MEMORY) };
  if (md.spec.resources?.cpu !== undefined) amounts.cpu = String(md.spec.resources.cpu);
  if (g.gpus > 0) amounts[g.gpuType] = String(g.gpus);
  const env = modelEnv(md);
  const container = {
    name: WORKER_CONTAINER,
    image: rayImage(md),
    resources: { requests: { ...amounts }, limits: { ...amounts } },
    ...(env.length > 0 ? { env } : {}),
    ...containerStorageFields(md),
  };
  return {
    groupName: g.name,
    // fixed size: the Serve config asks for exactly this many replicas
    replicas: g.replicas,
    minReplicas: g.replicas,
    maxReplicas: g.replicas,
    rayStartParams: { 'num-gpus': String(g.gpus) },
    template: podTemplate(md, container),
  };
}

function workerGroups(md: ModelDeployment): WorkerGroupSpec[] {
  const spec = md.spec;
  if (servingModeOf(spec) === 'disaggregated') {
    return (['prefill', 'decode'] as const).map((role) => {
      const c = spec.scaling?.[role];
      if (!c) throw new Error(`spec.scaling.${role}: disaggregated mode needs prefill and decode workers`);
      return workerGroup(md, {
        name: `${role}-workers`,
        replicas: c.replicas ?? 1,
        gpus: c.gpu?.count ?? 0,
        gpuType: c.gpu?.type ?? DEFAULT_GPU_TYPE,
        ...(c.memory !== undefined ? { memory: c.memory } : {}),
      });
    });
  }
  const gpu = spec.resources?.gpu;
  return [
    workerGroup(md, {
      name: 'gpu-workers',
      replicas: spec.scaling?.replicas ?? 1,
      gpus: gpu?.count ?? 0,
      gpuType: gpu?.type ?? DEFAULT_GPU_TYPE,
      ...(spec.resources?.memory !== undefined ? { memory: spec.resources.memory } : {}),
    }),
  ];
}

export function rayServiceFor(input: ModelDeployment): RayService {
  const md = defaultModelDeployment(input);
  if (md.spec.engine?.type !== 'vllm')
    throw new Error(
      `spec.engine.type: KubeRay serves vllm through Ray Serve LLM, got ${md.spec.engine?.type ?? 'nothing'}`,
    );
  return {
    apiVersion: RAY_API_VERSION,
    kind: RAYSERVICE_KIND,
    metadata: { name: md.metadata.name ?? '', namespace: md.metadata.namespace ?? '', labels: modelLabels(md) },
    spec: {
      serveConfigV2: serveConfigFor(md),
      rayClusterConfig: {
        headGroupSpec: { rayStartParams: { ...HEAD_START_PARAMS }, template: podTemplate(md, headContainer(md)) },
        workerGroupSpecs: workerGroups(md),
      },
    },
  };
}
