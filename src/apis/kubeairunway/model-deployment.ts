// ModelDeployment: one provider-agnostic request to serve a model. The core controller validates it and picks
// a provider; the chosen provider controller builds its upstream resource and reports status back.
//
// Defaults live both here (CRD `default`, applied by the API server only to ABSENT fields, so an explicit
// `replicas: 0` or `enablePrefixCaching: false` always sticks) and in defaultModelDeployment (the mutating
// webhook), which adds the defaults that depend on other fields. The fields docs/kubeairunway.md's validation table
// checks (engine.type, model.id, the GPU rules) are deliberately optional here: the schema would reject them
// with the API server's generic message, while the webhook gives docs/kubeairunway.md's exact one.

import { crdFromZod } from '@modelplane/runtime/crd';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { z } from 'zod';
import { ageColumn, conditionListSchema, envListSchema, quantitySchema } from '../aim/common.ts';
import {
  DEFAULT_GPU_TYPE,
  ENGINE_TYPES,
  KAR_API_VERSION,
  KAR_CATEGORIES,
  KAR_GROUP,
  KAR_VERSION,
  MODEL_DEPLOYMENT_KIND,
  MODEL_DEPLOYMENT_PLURAL,
  MODEL_SOURCES,
  PHASES,
  SERVING_MODES,
  STORAGE_ACCESS_MODES,
  STORAGE_PURPOSES,
} from './common.ts';

/** a CRD default that leaves the TypeScript field optional (objects may come from before defaulting) */
function withDefault<T extends z.ZodType>(schema: T, value: unknown): T {
  return schema.meta({ default: value });
}

const nonNegativeInt = () => z.int32().min(0);
const stringMap = () => z.record(z.string(), z.string());

export const gpuSchema = z.object({
  count: withDefault(nonNegativeInt(), 0).optional(),
  /** the extended-resource name: nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915, … */
  type: withDefault(z.string().min(1), DEFAULT_GPU_TYPE).optional(),
});

/** one volume of spec.model.storage: an existing claim (claimName), or a managed PVC (size) */
export const storageVolumeSchema = z.object({
  name: z
    .string()
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  /** an existing PVC; with `size` it must be `<deployment>-<volume>` (the defaulting webhook sets it) */
  claimName: z.string().optional(),
  /** defaults from purpose: /model-cache, /compilation-cache; required for custom */
  mountPath: z.string().optional(),
  purpose: withDefault(z.enum(STORAGE_PURPOSES), 'custom').optional(),
  readOnly: z.boolean().optional(),
  /** when set, the controller creates and owns the PVC */
  size: quantitySchema.optional(),
  storageClassName: z.string().optional(),
  accessMode: z.enum(STORAGE_ACCESS_MODES).optional(),
});

export const modelSchema = z.object({
  /** HuggingFace repo id (e.g. meta-llama/Llama-3.1-8B-Instruct); required when source is huggingface */
  id: z.string().optional(),
  /** the model name the API serves; ignored for custom images */
  servedName: z.string().optional(),
  source: withDefault(z.enum(MODEL_SOURCES), 'huggingface').optional(),
  /** volumes for the model (a managed modelCache PVC gets a download Job) */
  storage: z
    .object({
      volumes: z
        .array(storageVolumeSchema)
        .max(8)
        .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
        .optional(),
    })
    .optional(),
});

export const engineSchema = z.object({
  type: z.enum(ENGINE_TYPES).optional(),
  /** the engine's container image; preferred over the legacy spec.image (the two must not conflict) */
  image: z.string().optional(),
  /** rendered as `--key value` (or `--key` for an empty value), sorted by key */
  args: stringMap().optional(),
  /** raw flags appended after args; a flag may not appear in both */
  extraArgs: z.array(z.string()).optional(),
  contextLength: z.int32().min(1).optional(),
  trustRemoteCode: z.boolean().optional(),
  enablePrefixCaching: withDefault(z.boolean(), true).optional(),
  enforceEager: z.boolean().optional(),
});

export const providerSpecSchema = z.object({
  /** empty: the core selects one through the InferenceProviderConfigs' CEL rules */
  name: z.string().optional(),
  /** provider-specific escape hatch, deep-merged into the upstream resource; checked by the webhook */
  overrides: z.record(z.string(), z.unknown()).optional(),
});

export const servingSchema = z.object({
  mode: withDefault(z.enum(SERVING_MODES), 'aggregated').optional(),
});

export const componentScalingSchema = z.object({
  replicas: withDefault(nonNegativeInt(), 1).optional(),
  gpu: gpuSchema.optional(),
  memory: quantitySchema.optional(),
});

export const scalingSchema = z.object({
  /** aggregated mode */
  replicas: withDefault(nonNegativeInt(), 1).optional(),
  /** disaggregated mode */
  prefill: componentScalingSchema.optional(),
  decode: componentScalingSchema.optional(),
});

export const resourcesSchema = z.object({
  gpu: gpuSchema.optional(),
  cpu: quantitySchema.optional(),
  memory: quantitySchema.optional(),
});

export const tolerationSchema = z.object({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.int().optional(),
});

/** routing through the shared inference Gateway (docs/kubeairunway.md, "Gateway") */
export const gatewaySpecSchema = z.object({
  /** unset: on when the cluster has a Gateway to route through; false removes the route */
  enabled: z.boolean().optional(),
  /** the model name requests carry (the body's `model`); default: model.servedName, else model.id */
  modelName: z.string().optional(),
  /** an HTTPRoute of your own in the same namespace: no route is created, this one is reported */
  httpRouteRef: z.string().optional(),
  /** route through this Gateway (namespace: the deployment's) instead of discovering one */
  gatewayRef: z
    .object({ name: z.string().min(1).max(253), namespace: z.string().min(1).max(63).optional() })
    .optional(),
  /**
   * share the model name with other deployments of the namespace that set it too: one route, one weighted
   * backend each (without it, the first deployment to claim a name on a Gateway keeps it)
   */
  weight: z.int32().min(1).max(1000).optional(),
});

export const modelDeploymentSpecSchema = z.object({
  model: modelSchema,
  engine: engineSchema.optional(),
  provider: providerSpecSchema.optional(),
  serving: servingSchema.optional(),
  scaling: scalingSchema.optional(),
  resources: resourcesSchema.optional(),
  /** legacy custom image (still what KAITO's llama.cpp template runs) */
  image: z.string().optional(),
  env: envListSchema.optional(),
  /** Secret NAMES only: controllers pass the reference on and never read the Secret */
  secrets: z.object({ huggingFaceToken: z.string().optional() }).optional(),
  podTemplate: z
    .object({ metadata: z.object({ labels: stringMap().optional(), annotations: stringMap().optional() }).optional() })
    .optional(),
  nodeSelector: stringMap().optional(),
  tolerations: z.array(tolerationSchema).optional(),
  gateway: gatewaySpecSchema.optional(),
});

// Status: every leaf below has exactly one owner in docs/kubeairunway.md's ownership table, and nested objects are
// granular maps (the structural-schema default), so core and provider field managers can each server-side
// apply their part (provider.name vs provider.resourceName, conditions by type) without conflicts.
export const modelDeploymentStatusSchema = z.object({
  phase: z.enum(PHASES).optional(),
  message: z.string().optional(),
  provider: z
    .object({
      name: z.string().optional(),
      selectedReason: z.string().optional(),
      resourceName: z.string().optional(),
      resourceKind: z.string().optional(),
    })
    .optional(),
  replicas: z
    .object({
      desired: nonNegativeInt().optional(),
      ready: nonNegativeInt().optional(),
      available: nonNegativeInt().optional(),
    })
    .optional(),
  /** where the model is served in the cluster: the provider's Service, its port, and the URL clients use */
  endpoint: z
    .object({
      service: z.string().optional(),
      port: z.int32().min(0).max(65535).optional(),
      url: z.string().optional(),
      /** the URL through the shared Gateway, when routed (owned by the gateway controller) */
      gatewayUrl: z.string().optional(),
    })
    .optional(),
  /** where the shared Gateway serves this model (owned by the gateway controller) */
  gateway: z
    .object({
      /** the Gateway's address (host, or host:port off port 80) */
      endpoint: z.string().optional(),
      /** the model name to send in requests (the route matches it) */
      modelName: z.string().optional(),
      gatewayNamespace: z.string().optional(),
      /** the Gateway it is routed through: a route is never moved to another Gateway that is not labelled */
      gatewayName: z.string().optional(),
    })
    .optional(),
  observedGeneration: z.number().int().min(0).optional(),
  conditions: conditionListSchema.optional(),
});

export type ModelDeploymentSpec = z.infer<typeof modelDeploymentSpecSchema>;
export type ModelDeploymentStatus = z.infer<typeof modelDeploymentStatusSchema>;
export type GpuSpec = z.infer<typeof gpuSchema>;
export type GatewaySpec = z.infer<typeof gatewaySpecSchema>;
export type ComponentScaling = z.infer<typeof componentScalingSchema>;
export type Toleration = z.infer<typeof tolerationSchema>;

export interface ModelDeployment extends KubeObject {
  spec: ModelDeploymentSpec;
  status?: ModelDeploymentStatus;
}

export const ModelDeployments = kindRef<ModelDeployment>(KAR_API_VERSION, MODEL_DEPLOYMENT_KIND);

export const modelDeploymentCrd = () =>
  crdFromZod({
    group: KAR_GROUP,
    kind: MODEL_DEPLOYMENT_KIND,
    plural: MODEL_DEPLOYMENT_PLURAL,
    shortNames: ['md'],
    categories: KAR_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: KAR_VERSION,
        spec: modelDeploymentSpecSchema,
        status: modelDeploymentStatusSchema,
        printerColumns: [
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Provider', type: 'string', jsonPath: '.status.provider.name' },
          { name: 'Engine', type: 'string', jsonPath: '.spec.engine.type' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Replicas', type: 'integer', jsonPath: '.status.replicas.ready', priority: 1 },
          { name: 'Model', type: 'string', jsonPath: '.spec.model.id', priority: 1 },
          ageColumn,
        ],
      },
    ],
  });
