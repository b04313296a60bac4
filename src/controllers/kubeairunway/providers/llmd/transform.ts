// ModelDeployment → a plain vLLM Deployment and its Service (docs/kubeairunway.md, "llm-d"): no operator and no
// CRD, so a cluster without KAITO, Dynamo or KubeRay can still serve a model. The Deployment is the
// provider's upstream object (its status is mapped); the Service is an extra object the skeleton applies
// beside it. The selector label is set after the user's pod labels, so a podTemplate label cannot break it.

import type { KubeObject } from '@modelplane/runtime/meta';
import { DEFAULT_GPU_TYPE, MODEL_DEPLOYMENT_LABEL, type ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { containerStorageFields, podStorageFields } from '../../storage/index.ts';
import {
  derivedEngineFlags,
  modelEnv,
  modelLabels,
  podAnnotations,
  podLabels,
  renderEngineArgs,
  sanitizeLabelValue,
} from '../common/index.ts';

export const VLLM_IMAGE = 'vllm/vllm-openai:v0.9.1';
export const VLLM_PORT = 8000;
export const VLLM_CONTAINER = 'vllm';

/** the label the vLLM pods carry and the Deployment, Service and InferencePool select */
export function selector(md: ModelDeployment): Record<string, string> {
  return { [MODEL_DEPLOYMENT_LABEL]: sanitizeLabelValue(md.metadata.name ?? '') };
}

function resources(md: ModelDeployment): Record<string, Record<string, string>> {
  const gpu = md.spec.resources?.gpu;
  const amounts: Record<string, string> = {};
  if (md.spec.resources?.cpu !== undefined) amounts.cpu = String(md.spec.resources.cpu);
  if (md.spec.resources?.memory !== undefined) amounts.memory = String(md.spec.resources.memory);
  if ((gpu?.count ?? 0) > 0) amounts[gpu?.type ?? DEFAULT_GPU_TYPE] = String(gpu!.count);
  return Object.keys(amounts).length > 0 ? { requests: { ...amounts }, limits: { ...amounts } } : {};
}

export function vllmDeploymentFor(md: ModelDeployment): KubeObject {
  const spec = md.spec;
  const gpus = spec.resources?.gpu?.count ?? 0;
  const args = [
    '--host',
    '0.0.0.0',
    '--port',
    String(VLLM_PORT),
    ...renderEngineArgs(md, derivedEngineFlags(md, 'vllm', { gpus })),
  ];
  const env = modelEnv(md);
  const annotations = podAnnotations(md);
  const container = {
    name: VLLM_CONTAINER,
    image: spec.engine?.image || spec.image || VLLM_IMAGE,
    args,
    ports: [{ name: 'http', containerPort: VLLM_PORT, protocol: 'TCP' }],
    readinessProbe: { httpGet: { path: '/health', port: VLLM_PORT } },
    resources: resources(md),
    ...(env.length > 0 ? { env } : {}),
    ...containerStorageFields(md),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: md.metadata.name, namespace: md.metadata.namespace, labels: modelLabels(md) },
    spec: {
      replicas: spec.scaling?.replicas ?? 1,
      selector: { matchLabels: selector(md) },
      template: {
        metadata: { labels: { ...podLabels(md), ...selector(md) }, ...(annotations ? { annotations } : {}) },
        spec: {
          containers: [container],
          ...podStorageFields(md),
          ...(Object.keys(spec.nodeSelector ?? {}).length > 0 ? { nodeSelector: { ...spec.nodeSelector } } : {}),
          ...(spec.tolerations?.length ? { tolerations: structuredClone(spec.tolerations) } : {}),
        },
      },
    },
  };
}

/** the Service in front of the vLLM pods: the deployment's endpoint */
export function vllmServiceFor(md: ModelDeployment): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: md.metadata.name, namespace: md.metadata.namespace, labels: modelLabels(md) },
    spec: {
      selector: selector(md),
      ports: [{ name: 'http', port: VLLM_PORT, targetPort: VLLM_PORT, protocol: 'TCP' }],
    },
  };
}
