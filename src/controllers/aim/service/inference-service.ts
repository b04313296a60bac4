// The KServe InferenceService an AIMService runs as (docs/autoscaling.md): one custom predictor container,
// `kserve-container`, running the model image on port 8000, with /dev/shm in memory. A custom container
// needs no ServingRuntime, so it runs on any KServe install (RawDeployment/Standard mode). Pure.

import type { KubeObject } from '@modelplane/runtime/meta';
import { type EnvVar, mergeEnvByName } from '../../../common/env-merge/index.ts';
import type { RuntimeConfigSpec } from '../../../common/runtime-config/index.ts';
import type { AIMService } from '../shared/kinds.ts';
import {
  COMPONENT_LABEL,
  labelValueFor,
  MANAGED_BY,
  MANAGED_BY_LABEL,
  MODEL_LABEL,
  SERVICE_LABEL,
  TEMPLATE_LABEL,
} from './names.ts';
import { replicaPlan } from './replicas.ts';
import {
  encodeServingInputs,
  SERVING_INPUTS_ANNOTATION,
  type ServingInputs,
  type TemplateInput,
} from './serving-inputs.ts';

export type { TemplateInput };

export const PREDICTOR_CONTAINER = 'kserve-container';
export const PREDICTOR_PORT = 8000;
export const SHM_SIZE = '8Gi';

/** the lowest env layer: what the operator sets on every AIM container before any runtime config */
export const OPERATOR_DEFAULT_SERVING_ENV: readonly EnvVar[] = Object.freeze([
  Object.freeze({ name: 'AIM_CACHE_PATH', value: '/workspace/cache' }),
  Object.freeze({ name: 'VLLM_ENABLE_METRICS', value: 'true' }),
]);

/** runtime-config fields only a namespaced AIMRuntimeConfig carries (secrets live in a namespace) */
interface NamespaceAuth {
  imagePullSecrets?: Array<{ name: string }>;
  serviceAccountName?: string;
}

export interface InferenceServiceInput {
  service: AIMService;
  name: string;
  /** the runtime config with the service's inline values on top (env: cluster < namespace < service) */
  effective: RuntimeConfigSpec;
  /** what the chain contributes (image, model, the template's parameters, env, GPU and node affinity) */
  inputs: ServingInputs;
  /** the cache's PVCs, mounted read-only where the model expects its weights */
  cacheVolumes?: CacheVolume[];
}

export interface CacheVolume {
  name: string;
  claimName: string;
  mountPath: string;
}

/**
 * env, lowest precedence first: operator defaults < cluster < namespace config < the template's parameters
 * (AIM_PROFILE_ID, AIM_METRIC, AIM_PRECISION) < the template's env < the service's spec.env
 */
export function servingEnv(
  effective: RuntimeConfigSpec,
  template?: TemplateInput,
  serviceEnv?: readonly EnvVar[],
): EnvVar[] {
  if (!template) return mergeEnvByName(OPERATOR_DEFAULT_SERVING_ENV, effective.env);
  const params: EnvVar[] = [
    ...(template.profileId ? [{ name: 'AIM_PROFILE_ID', value: template.profileId }] : []),
    ...(template.metric ? [{ name: 'AIM_METRIC', value: template.metric }] : []),
    ...(template.precision ? [{ name: 'AIM_PRECISION', value: template.precision }] : []),
  ];
  // effective.env already ends with the service's own env; it goes on top again after the template's
  return mergeEnvByName(OPERATOR_DEFAULT_SERVING_ENV, effective.env, params, template.env, serviceEnv);
}

export function buildInferenceService(input: InferenceServiceInput): KubeObject {
  const { service, effective, inputs } = input;
  const template = inputs.templateInput;
  const spec = service.spec;
  const auth = effective as NamespaceAuth;
  // the service's own credentials, else the namespace runtime config's
  const pullSecrets = spec.imagePullSecrets?.length ? spec.imagePullSecrets : auth.imagePullSecrets;
  const serviceAccountName = spec.serviceAccountName || auth.serviceAccountName;
  const replicas = replicaPlan(spec, input.name, PREDICTOR_PORT);
  const labels: Record<string, string> = {
    [MANAGED_BY_LABEL]: MANAGED_BY,
    [COMPONENT_LABEL]: 'inference',
    [SERVICE_LABEL]: labelValueFor(service.metadata.name ?? ''),
  };
  if (inputs.model) labels[MODEL_LABEL] = labelValueFor(inputs.model.name);
  const container: Record<string, unknown> = {
    name: PREDICTOR_CONTAINER,
    image: inputs.image,
    env: servingEnv(effective, template, spec.env),
    ports: [{ name: 'http', containerPort: PREDICTOR_PORT, protocol: 'TCP' }],
    volumeMounts: [
      { name: 'dshm', mountPath: '/dev/shm' },
      ...(input.cacheVolumes ?? []).map((v) => ({ name: v.name, mountPath: v.mountPath, readOnly: true })),
    ],
  };
  const gpu = template?.gpu;
  if (spec.resources) container.resources = structuredClone(spec.resources);
  else if (gpu && gpu.count > 0)
    container.resources = {
      requests: { [gpu.resourceName]: String(gpu.count) },
      limits: { [gpu.resourceName]: String(gpu.count) },
    };
  if (template) labels[TEMPLATE_LABEL] = labelValueFor(template.name);
  const affinity = template?.nodeAffinity;
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: {
      name: input.name,
      namespace: service.metadata.namespace ?? '',
      labels,
      annotations: { ...replicas.annotations, [SERVING_INPUTS_ANNOTATION]: encodeServingInputs(inputs) },
    },
    spec: {
      predictor: {
        minReplicas: replicas.min,
        maxReplicas: replicas.max,
        ...(replicas.autoScaling ? { autoScaling: replicas.autoScaling } : {}),
        ...(pullSecrets?.length ? { imagePullSecrets: pullSecrets.map((s) => ({ name: s.name })) } : {}),
        ...(serviceAccountName ? { serviceAccountName } : {}),
        containers: [container],
        ...(affinity ? { affinity: { nodeAffinity: structuredClone(affinity) } } : {}),
        volumes: [
          { name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: SHM_SIZE } },
          ...(input.cacheVolumes ?? []).map((v) => ({
            name: v.name,
            persistentVolumeClaim: { claimName: v.claimName, readOnly: true },
          })),
        ],
      },
    },
  };
}
