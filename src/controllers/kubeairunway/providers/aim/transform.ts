// ModelDeployment → AIMService (ours, docs/aim.md): the deployment asking for AMD GPUs joins the AIM subsystem.
//
// Which model: AIM serves container images. An image the user names (spec.engine.image, or the legacy
// spec.image) is served as `model.image`, and the AIMService controller finds or creates its AIMModel. A
// Hugging Face id without an image becomes `model.custom`: the AIM base image loading that repository
// (`hf://<id>`, also passed as AIM_MODEL_ID). A derived `aim-<model>` image name would only exist for the
// models AMD has packaged, while the base image serves any repository.

import type { AIMServiceSpec } from '../../../../apis/aim/index.ts';
import { AMD_GPU_TYPE, type ModelDeployment } from '../../../../apis/kubeairunway/index.ts';
import { mergeEnvByName } from '../../../../common/env-merge/index.ts';
import type { AIMService } from '../../../aim/shared/kinds.ts';
import { defaultModelDeployment, modelSourceOf } from '../../validation/index.ts';
import { hfTokenEnv, modelLabels, podAnnotations, rejectUnsupportedFields, userEnv } from '../common/index.ts';
import { AIM_SERVICE_API_VERSION, AIM_SERVICE_KIND } from './types.ts';

export const AIM_BASE_IMAGE = 'amdenterpriseai/aim-base:0.8.5';
export const AIM_MODEL_ID_ENV = 'AIM_MODEL_ID';

/** a model id as a DNS label, the form AIM names a model source by (`Qwen/Qwen3-32B` → `qwen-qwen3-32b`) */
function dnsLabel(id: string): string {
  return (
    id
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .slice(0, 63)
      .replace(/^-+|-+$/g, '') || 'model'
  );
}

function modelFor(md: ModelDeployment, gpus: number): AIMServiceSpec['model'] {
  const spec = md.spec;
  const image = spec.engine?.image || spec.image;
  if (image) return { image };
  if (modelSourceOf(spec) === 'custom' || !spec.model?.id) {
    throw new Error(
      'spec.image: a custom model on AIM is served from its image; set spec.engine.image (or spec.image)',
    );
  }
  const id = spec.model.id;
  return {
    custom: {
      baseImage: AIM_BASE_IMAGE,
      modelSources: [{ name: dnsLabel(id), modelId: id, sourceUri: `hf://${id}` }],
      hardware: { gpu: { requests: gpus } },
    },
  };
}

export function aimServiceFor(input: ModelDeployment): AIMService {
  const md = defaultModelDeployment(input);
  const spec = md.spec;
  if (spec.engine?.type !== 'vllm')
    throw new Error(`spec.engine.type: AIM serves vllm images, got ${spec.engine?.type ?? 'nothing'}`);
  rejectUnsupportedFields(
    md,
    [
      'spec.engine.args',
      'spec.engine.extraArgs',
      'spec.engine.contextLength',
      'spec.model.servedName',
      'spec.nodeSelector',
      'spec.tolerations',
    ],
    'an AIMService has no place for it (AIM takes the engine configuration from its profiles and schedules on the GPU resource it requests)',
  );
  const gpus = spec.resources?.gpu?.count ?? 0;
  const gpuType = spec.resources?.gpu?.type ?? AMD_GPU_TYPE;
  const model = modelFor(md, gpus);
  const requests: Record<string, string> = gpus > 0 ? { [gpuType]: String(gpus) } : {};
  const limits: Record<string, string> = { ...requests };
  if (spec.resources?.cpu !== undefined) requests.cpu = String(spec.resources.cpu);
  if (spec.resources?.memory !== undefined) requests.memory = limits.memory = String(spec.resources.memory);
  const modelId = model.custom ? [{ name: AIM_MODEL_ID_ENV, value: spec.model?.id ?? '' }] : [];
  // lowest first: the token reference, the model id of a custom model, then the user's own entries
  const env = mergeEnvByName(hfTokenEnv(md), modelId, userEnv(md));
  const annotations = podAnnotations(md);
  return {
    apiVersion: AIM_SERVICE_API_VERSION,
    kind: AIM_SERVICE_KIND,
    metadata: {
      name: md.metadata.name ?? '',
      namespace: md.metadata.namespace ?? '',
      // An AIMService has no pod template: its labels reach the predictor pods through the runtime config's
      // labelPropagation (docs/aim.md), so the pod template's labels go here.
      labels: { ...(spec.podTemplate?.metadata?.labels ?? {}), ...modelLabels(md) },
      ...(annotations ? { annotations } : {}),
    },
    spec: {
      model,
      // a custom model's templates are unoptimized (no AIM profile was tuned for it): without this the
      // service would wait for an optimized template that never comes (docs/aim.md, template selection)
      ...(model.custom ? { template: { allowUnoptimized: true } } : {}),
      // the deployment's way in is the gateway controller's route (by model name, docs/kubeairunway.md
      // "Gateway"); the namespace's AIM path route would be a second one, and its path template may need labels
      // this AIMService does not carry (the quickstart's names labels['project']), which degrades the service and
      // fails the deployment. spec.provider.overrides.routing turns it back on.
      routing: { enabled: false },
      replicas: spec.scaling?.replicas ?? 1,
      ...(Object.keys(requests).length > 0
        ? { resources: { requests, ...(Object.keys(limits).length > 0 ? { limits } : {}) } }
        : {}),
      ...(env.length > 0 ? { env } : {}),
    },
  };
}
