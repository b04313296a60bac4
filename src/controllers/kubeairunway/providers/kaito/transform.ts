// ModelDeployment → KAITO Workspace (docs/kubeairunway.md). vLLM runs as a KAITO preset named after the model id
// (KAITO manages the image and the engine configuration); llama.cpp runs as a template: the user's image in
// a pod spec this provider writes. `resource` picks the nodes: Linux, the user's nodeSelector, and the GPU
// nodes when GPUs are asked for (forced last, so a nodeSelector cannot send a GPU workload to CPU nodes).
import { DEFAULT_GPU_TYPE, type ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { containerStorageFields, podStorageFields } from '../../storage/index.ts';
import { defaultModelDeployment, modelSourceOf } from '../../validation/index.ts';
import {
  hfTokenSecretName,
  modelEnv,
  modelLabels,
  podAnnotations,
  podLabels,
  rejectUnsupportedFields,
  renderEngineArgs,
} from '../common/index.ts';
import {
  KAITO_API_VERSION,
  WORKSPACE_KIND,
  type Workspace,
  type WorkspaceInference,
  type WorkspaceTemplate,
} from './types.ts';

/** the port KAITO's Service targets on inference pods (it serves port 80 → 5000) */
export const KAITO_INFERENCE_PORT = 5000;
export const LLAMACPP_CONTAINER = 'model';
/** engine.args key naming a GGUF file to serve instead of the Hugging Face repository */
export const GGUF_URL_ARG = 'ggufUrl';

/** the node label GPU feature discovery puts on nodes that have GPUs of that resource name */
const GPU_NODE_LABELS: Readonly<Record<string, readonly [string, string]>> = {
  'nvidia.com/gpu': ['nvidia.com/gpu.present', 'true'],
  'amd.com/gpu': ['feature.node.kubernetes.io/amd-gpu', 'true'],
};

export function workspaceFor(input: ModelDeployment): Workspace {
  const md = defaultModelDeployment(input);
  const spec = md.spec;
  const engine = spec.engine?.type;
  if (engine !== 'vllm' && engine !== 'llamacpp') {
    throw new Error(
      `spec.engine.type: KAITO runs vllm (as a preset) or llamacpp (as a template), got ${engine ?? 'nothing'}`,
    );
  }
  const gpus = spec.resources?.gpu?.count ?? 0;
  const matchLabels: Record<string, string> = { 'kubernetes.io/os': 'linux', ...(spec.nodeSelector ?? {}) };
  const gpuLabel = gpus > 0 ? GPU_NODE_LABELS[spec.resources?.gpu?.type ?? DEFAULT_GPU_TYPE] : undefined;
  if (gpuLabel) matchLabels[gpuLabel[0]] = gpuLabel[1];
  const preset = engine === 'vllm';
  const inference = preset ? presetInference(md) : templateInference(md, matchLabels);
  // The preset's pods are KAITO's: the Workspace's metadata is the one place for the pod template metadata
  // (docs/kubeairunway.md). The template form carries it on the pods themselves.
  const annotations = preset ? podAnnotations(md) : undefined;
  return {
    apiVersion: KAITO_API_VERSION,
    kind: WORKSPACE_KIND,
    metadata: {
      name: md.metadata.name ?? '',
      namespace: md.metadata.namespace ?? '',
      labels: { ...(preset ? (spec.podTemplate?.metadata?.labels ?? {}) : {}), ...modelLabels(md) },
      ...(annotations ? { annotations } : {}),
    },
    // KAITO always runs at least one node's worth of inference: it has no scale to zero
    resource: { count: Math.max(1, spec.scaling?.replicas ?? 1), labelSelector: { matchLabels } },
    inference,
  };
}

function presetInference(md: ModelDeployment): WorkspaceInference {
  const spec = md.spec;
  rejectUnsupportedFields(
    md,
    [
      'spec.env',
      'spec.engine.args',
      'spec.engine.extraArgs',
      'spec.engine.contextLength',
      'spec.engine.image',
      'spec.image',
      'spec.model.servedName',
    ],
    "KAITO's vLLM preset runs KAITO's own image and configuration and has no place for it (use the llamacpp engine with an image, or another provider)",
  );
  if (modelSourceOf(spec) === 'custom' || !spec.model?.id) {
    throw new Error(
      "spec.model.id: KAITO's vLLM preset is named after a Hugging Face model id (source huggingface); a custom model needs an image, which the preset cannot run",
    );
  }
  const secret = hfTokenSecretName(md);
  // modelAccessSecret: KAITO passes the Secret (key HF_TOKEN) to the preset's pods; we only name it
  return { preset: { name: spec.model.id, ...(secret ? { presetOptions: { modelAccessSecret: secret } } : {}) } };
}

function templateInference(md: ModelDeployment, nodeLabels: Record<string, string>): WorkspaceInference {
  const spec = md.spec;
  const image = spec.engine?.image || spec.image;
  if (!image)
    throw new Error(
      'spec.image: the llamacpp engine on KAITO runs your llama.cpp image; set spec.image or spec.engine.image',
    );
  const { [GGUF_URL_ARG]: ggufUrl, ...otherArgs } = spec.engine?.args ?? {};
  const custom = modelSourceOf(spec) === 'custom';
  if (!custom && !ggufUrl && !spec.model?.id)
    throw new Error(
      'spec.model.id: the llama.cpp template loads huggingface://<model.id> (or engine.args.ggufUrl); set one',
    );
  const model = custom ? [] : [ggufUrl || `huggingface://${spec.model?.id}`];
  const args = [
    ...model,
    `--address=:${KAITO_INFERENCE_PORT}`,
    ...renderEngineArgs({ ...md, spec: { ...spec, engine: { ...spec.engine, args: otherArgs } } }, []),
  ];
  const gpu = spec.resources?.gpu;
  const gpus = gpu?.count ?? 0;
  const requests: Record<string, string> = {};
  if (spec.resources?.cpu !== undefined) requests.cpu = String(spec.resources.cpu);
  if (spec.resources?.memory !== undefined) requests.memory = String(spec.resources.memory);
  const resources: Record<string, Record<string, string>> = {};
  if (gpus > 0) {
    // extended resources (GPUs) are requested through limits; requests must match them
    const gpuAmount = { [gpu?.type ?? DEFAULT_GPU_TYPE]: String(gpus) };
    Object.assign(requests, gpuAmount);
    resources.limits = gpuAmount;
  }
  if (Object.keys(requests).length > 0) resources.requests = requests;
  const env = modelEnv(md);
  const container: Record<string, unknown> = {
    name: LLAMACPP_CONTAINER,
    image,
    args,
    ports: [{ containerPort: KAITO_INFERENCE_PORT, protocol: 'TCP' }],
    ...(env.length > 0 ? { env } : {}),
    ...(Object.keys(resources).length > 0 ? { resources } : {}),
    ...containerStorageFields(md),
  };
  const annotations = podAnnotations(md);
  const template: WorkspaceTemplate = {
    metadata: { labels: podLabels(md), ...(annotations ? { annotations } : {}) },
    spec: {
      containers: [container],
      ...podStorageFields(md),
      // the resource's node labels again, so the pods land there whether or not KAITO copies them over
      nodeSelector: { ...nodeLabels },
      ...(spec.tolerations?.length ? { tolerations: structuredClone(spec.tolerations) } : {}),
    },
  };
  return { template };
}
