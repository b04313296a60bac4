// InferenceProviderConfig (cluster-scoped, named after the provider): what a provider can run and the CEL
// rules that make the core pick it. Each provider process registers its own at startup and keeps
// status.lastHeartbeat fresh; a provider that is not ready, or whose heartbeat is stale, is never selected.
//
// Capabilities are per engine (upstream's current shape) rather than the older flat lists: KAITO runs
// llama.cpp on CPU but vLLM only on GPU, which a flat `cpuSupport` cannot say.

import { crdFromZod } from '@modelplane/runtime/crd';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { z } from 'zod';
import { ageColumn, conditionListSchema } from '../aim/common.ts';
import {
  ENGINE_TYPES,
  INFERENCE_PROVIDER_CONFIG_KIND,
  INFERENCE_PROVIDER_CONFIG_PLURAL,
  KAR_API_VERSION,
  KAR_GROUP,
  KAR_VERSION,
  SERVING_MODES,
} from './common.ts';

export const engineCapabilitySchema = z.object({
  name: z.enum(ENGINE_TYPES),
  servingModes: z.array(z.enum(SERVING_MODES)).optional(),
  gpuSupport: z.boolean().optional(),
  cpuSupport: z.boolean().optional(),
  /**
   * the GPU resource names the engine runs on (e.g. [amd.com/gpu]); absent means any. Without it a provider
   * for one vendor's GPUs would be a priority-0 candidate, and possibly the tie winner, for every other's.
   */
  gpuTypes: z.array(z.string().min(1)).optional(),
});

export const gatewayCapabilitySchema = z.object({
  /** the provider creates an InferencePool per deployment: routes go to it instead of the Service */
  managesInferencePool: z.boolean().optional(),
  /** the pool's name; `{name}` and `{namespace}` are the deployment's (default `{name}-pool`) */
  inferencePoolNamePattern: z.string().optional(),
  /** the pool's namespace, same placeholders (default `{namespace}`) */
  inferencePoolNamespace: z.string().optional(),
});

export const selectionRuleSchema = z.object({
  /** CEL over the variable `spec` (the ModelDeployment's spec); must evaluate to a bool */
  condition: z.string().min(1),
  priority: z.int32().min(0).meta({ default: 0 }).optional(),
});

export const providerConfigSpecSchema = z.object({
  capabilities: z
    .object({
      engines: z
        .array(engineCapabilitySchema)
        .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
        .optional(),
      /** whether the provider needs an upstream CRD installed (KAITO Workspace, …); absent means true */
      requiresCRD: z.boolean().optional(),
      /**
       * whether it honours scaling.replicas: 0 (no serving pod at all); absent means false: such a deployment
       * is not selected for it, and naming it is refused
       */
      zeroReplicas: z.boolean().optional(),
      /** how the gateway reaches this provider's pods (docs/kubeairunway.md, "Gateway") */
      gateway: gatewayCapabilitySchema.optional(),
    })
    .optional(),
  selectionRules: z.array(selectionRuleSchema).optional(),
});

export const providerConfigStatusSchema = z.object({
  ready: z.boolean().optional(),
  /** e.g. `kaito-provider:0.1.0` */
  version: z.string().optional(),
  /** RFC 3339; rewritten by the provider every heartbeat interval */
  lastHeartbeat: z.string().meta({ format: 'date-time' }).optional(),
  /** the upstream API the provider builds, e.g. `kaito.sh/v1beta1` */
  upstreamCRDVersion: z.string().optional(),
  /** the upstream kind it builds in that API, e.g. `Workspace`: "CRD installed" is decided per kind */
  upstreamKind: z.string().optional(),
  conditions: conditionListSchema.optional(),
});

export type EngineCapability = z.infer<typeof engineCapabilitySchema>;
export type GatewayCapability = z.infer<typeof gatewayCapabilitySchema>;
export type SelectionRule = z.infer<typeof selectionRuleSchema>;
export type InferenceProviderConfigSpec = z.infer<typeof providerConfigSpecSchema>;
export type InferenceProviderConfigStatus = z.infer<typeof providerConfigStatusSchema>;

export interface InferenceProviderConfig extends KubeObject {
  spec: InferenceProviderConfigSpec;
  status?: InferenceProviderConfigStatus;
}

export const InferenceProviderConfigs = kindRef<InferenceProviderConfig>(
  KAR_API_VERSION,
  INFERENCE_PROVIDER_CONFIG_KIND,
);

/** how often a provider rewrites status.lastHeartbeat */
export const HEARTBEAT_INTERVAL_MS = 60_000;
/** a heartbeat older than this (three missed beats) makes the provider not ready */
export const HEARTBEAT_STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

export const inferenceProviderConfigCrd = () =>
  crdFromZod({
    group: KAR_GROUP,
    kind: INFERENCE_PROVIDER_CONFIG_KIND,
    plural: INFERENCE_PROVIDER_CONFIG_PLURAL,
    shortNames: ['ipc'],
    categories: ['kubeairunway'],
    scope: 'Cluster',
    versions: [
      {
        name: KAR_VERSION,
        spec: providerConfigSpecSchema,
        status: providerConfigStatusSchema,
        printerColumns: [
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready' },
          { name: 'Version', type: 'string', jsonPath: '.status.version' },
          { name: 'Heartbeat', type: 'date', jsonPath: '.status.lastHeartbeat' },
          ageColumn,
        ],
      },
    ],
  });
