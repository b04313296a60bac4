// What the KAITO workspace controller builds, pure: for an inference Workspace a Deployment and Service
// named after it (pods labelled kaito.sh/workspace, port 80 → 5000), for a tuning Workspace a Job. Preset
// workloads request the GPUs of the Workspace's instance type on the nodes its labelSelector picks;
// template workloads run the user's pod template as given.

import { controllerRef, type KubeObject } from '@modelplane/runtime/meta';
import { commandModel, servingAnnotations } from '../inference/index.ts';
import type { Container, Deployment, Json, PodSpec, Service } from './kinds.ts';
import { deploymentFor, serviceFor, simAnnotations } from './workload.ts';

export const WORKSPACE_LABEL = 'kaito.sh/workspace';
export const INFERENCE_PORT = 5000;

/** GPUs per node of the Azure SKUs KAITO knows, used as each preset pod's GPU request */
const SKU_GPUS: Record<string, number> = {
  Standard_NC6s_v3: 1,
  Standard_NC12s_v3: 2,
  Standard_NC24s_v3: 4,
  Standard_NC4as_T4_v3: 1,
  Standard_NC8as_T4_v3: 1,
  Standard_NC16as_T4_v3: 1,
  Standard_NC64as_T4_v3: 4,
  Standard_NC24ads_A100_v4: 1,
  Standard_NC48ads_A100_v4: 2,
  Standard_NC96ads_A100_v4: 4,
  Standard_ND96asr_v4: 8,
  Standard_ND96amsr_A100_v4: 8,
  Standard_NC40ads_H100_v5: 1,
  Standard_NC80adis_H100_v5: 2,
  Standard_ND96isr_H100_v5: 8,
  Standard_NV36ads_A10_v5: 1,
};

export interface WorkspaceResource {
  count?: number;
  instanceType?: string;
  labelSelector?: {
    matchLabels?: Record<string, string>;
    matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
  };
  preferredNodes?: string[];
}

export interface WorkspaceInference {
  preset?: { name: string; accessMode?: string; presetOptions?: { image?: string; imagePullSecrets?: string[] } };
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: PodSpec };
  config?: string;
}

export function gpusPerReplica(resource: WorkspaceResource): number {
  return (resource.instanceType && SKU_GPUS[resource.instanceType]) || 1;
}

const GPU_TOLERATIONS = [
  { key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
  { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
];

/** the public preset image; preset names may be Hugging Face ids (`org/Model`), which image names cannot hold */
export function presetImage(preset: string): string {
  return `mcr.microsoft.com/aks/kaito/kaito-${preset.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}:0.2.0`;
}

function presetPodSpec(
  ws: KubeObject,
  resource: WorkspaceResource,
  preset: NonNullable<WorkspaceInference['preset']>,
  config?: string,
): PodSpec {
  const name = ws.metadata.name ?? '';
  const gpus = String(gpusPerReplica(resource));
  const isPrivate = preset.accessMode === 'private';
  const container: Container = {
    name,
    image: isPrivate && preset.presetOptions?.image ? preset.presetOptions.image : presetImage(preset.name),
    command: ['/bin/sh', '-c'],
    args: [
      `python3 /workspace/vllm/inference_api.py --served-model-name=${preset.name} --kaito-config-file=/mnt/config/inference_config.yaml`,
    ],
    ports: [{ containerPort: INFERENCE_PORT, protocol: 'TCP' }],
    resources: { requests: { 'nvidia.com/gpu': gpus }, limits: { 'nvidia.com/gpu': gpus } },
    volumeMounts: [
      { name: 'dshm', mountPath: '/dev/shm' },
      ...(config ? [{ name: 'config-volume', mountPath: '/mnt/config' }] : []),
    ],
  };
  return {
    containers: [container],
    volumes: [
      { name: 'dshm', emptyDir: { medium: 'Memory' } },
      ...(config ? [{ name: 'config-volume', configMap: { name: config } }] : []),
    ],
    ...(resource.labelSelector?.matchLabels ? { nodeSelector: { ...resource.labelSelector.matchLabels } } : {}),
    tolerations: GPU_TOLERATIONS,
    ...(isPrivate && preset.presetOptions?.imagePullSecrets?.length
      ? { imagePullSecrets: preset.presetOptions.imagePullSecrets.map((n) => ({ name: n })) }
      : {}),
  };
}

function templatePodSpec(resource: WorkspaceResource, template: NonNullable<WorkspaceInference['template']>): PodSpec {
  const spec = (template.spec ?? { containers: [] }) as PodSpec;
  const nodeSelector = {
    ...(resource.labelSelector?.matchLabels ?? {}),
    ...((spec.nodeSelector as Record<string, string> | undefined) ?? {}),
  };
  return { ...spec, ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}) };
}

/** the model a template's server reports: its --served-model-name/--model, else the repository of a `huggingface://` source (llama.cpp runners) */
function templateModel(c: Container | undefined): string | undefined {
  if (!c) return undefined;
  const source = ((c.args ?? []) as string[]).find((a) => a.startsWith('huggingface://'));
  return commandModel(c) ?? source?.slice('huggingface://'.length);
}

export interface InferencePlan {
  deployment: Deployment;
  service: Service;
  selector: Record<string, string>;
}

export function planInference(
  ws: KubeObject,
  resource: WorkspaceResource,
  inference: WorkspaceInference,
): InferencePlan | { error: string } {
  const name = ws.metadata.name ?? '';
  if (!!inference.preset === !!inference.template)
    return { error: 'inference: exactly one of preset and template must be specified' };
  if (inference.template && !inference.template.spec?.containers?.length)
    return { error: 'inference.template.spec.containers must hold at least one container' };
  const spec = inference.preset
    ? presetPodSpec(ws, resource, inference.preset, inference.config)
    : templatePodSpec(resource, inference.template!);
  const selector = { [WORKSPACE_LABEL]: name };
  const podLabels = { ...(inference.template?.metadata?.labels ?? {}), ...selector };
  const targetPort = spec.containers[0]?.ports?.[0]?.containerPort ?? INFERENCE_PORT;
  const served = servingAnnotations(inference.preset?.name ?? templateModel(spec.containers[0]) ?? name, targetPort);
  const podAnnotations = { ...served, ...(inference.template?.metadata?.annotations ?? {}), ...simAnnotations(ws) };
  const deployment = deploymentFor({
    owner: ws,
    name,
    labels: selector,
    selector,
    replicas: Math.max(1, resource.count ?? 1),
    template: { metadata: { labels: podLabels, annotations: podAnnotations }, spec },
  });
  const service = serviceFor(ws, name, selector, selector, [{ name: 'http', port: 80, targetPort }]);
  return { deployment, service, selector };
}

export function tuningJob(ws: KubeObject, resource: WorkspaceResource, tuning: Json): KubeObject {
  const name = ws.metadata.name ?? '';
  const preset = ((tuning.preset as { name?: string } | undefined)?.name ?? 'custom').toString();
  const gpus = String(gpusPerReplica(resource));
  const selector = { [WORKSPACE_LABEL]: name };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ws.metadata.namespace ?? '', labels: selector, ownerReferences: [controllerRef(ws)] },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: selector, annotations: simAnnotations(ws) },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name,
              image: presetImage(`tuning-${preset}`),
              args: [`--method=${String(tuning.method ?? 'qlora')}`],
              resources: { requests: { 'nvidia.com/gpu': gpus }, limits: { 'nvidia.com/gpu': gpus } },
            },
          ],
          ...(resource.labelSelector?.matchLabels ? { nodeSelector: { ...resource.labelSelector.matchLabels } } : {}),
          tolerations: GPU_TOLERATIONS,
        },
      },
    },
  };
}
