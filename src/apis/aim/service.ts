// AIMService: the user's serving request: a model (by name, image or custom), optionally a template (else
// one is selected, docs/aim.md "Template selection"), a caching mode, overrides and the inline runtime config.

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import { hardwareSchema, modelSourceSchema, runtimeParametersShape } from './catalog-shared.ts';
import {
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  envListSchema,
  immutableField,
  localObjectReferenceSchema,
  resolvedReferenceSchema,
  resolvedRuntimeConfigSchema,
  resourceRequirementsSchema,
} from './common.ts';
import { routingConfigSchema, storageConfigSchema } from './runtime-config.ts';

export const MODEL_EXACTLY_ONE_MESSAGE =
  'spec.model: exactly one of name (or its alias ref), image or custom must be set';

/** a model given inline: the service creates an AIMModel with these sources and hardware (docs/aim.md) */
export const customModelSchema = z.object({
  baseImage: z.string().min(1),
  modelSources: z.array(modelSourceSchema).min(1).max(1),
  hardware: hardwareSchema,
});

export const serviceModelSchema = z
  .object({
    /** an AIMModel in the service's namespace, else an AIMClusterModel */
    name: z.string().min(1).optional(),
    /** docs/aim.md's examples spell model.name this way; accepted as an alias so they apply unchanged */
    ref: z.string().min(1).optional(),
    /** a container image; the controller finds a model with this image or creates one */
    image: z.string().min(1).optional(),
    custom: customModelSchema.optional(),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '(has(self.name) ? 1 : 0) + (has(self.ref) ? 1 : 0) + (has(self.image) ? 1 : 0) + (has(self.custom) ? 1 : 0) == 1',
        message: MODEL_EXACTLY_ONE_MESSAGE,
      },
    ],
  });

const immutable = (field: string) => immutableField(field, 'AIMService');

/** Dedicated | Shared; the legacy spellings Always/Auto (→ Shared) and Never (→ Dedicated) are still accepted */
export const SERVICE_CACHING_MODES = ['Dedicated', 'Shared', 'Auto', 'Always', 'Never'] as const;

/** one metric KEDA scales the predictor on (KServe's PodMetric through the OpenTelemetry scaler) */
export const autoScalingMetricSchema = z.object({
  type: z.enum(['PodMetric']),
  podmetric: z
    .object({
      metric: z
        .object({
          backend: z.enum(['opentelemetry']).optional(),
          serverAddress: z.string().optional(),
          metricNames: z.array(z.string()).optional(),
          query: z.string().optional(),
          operationOverTime: z.string().optional(),
        })
        .optional(),
      target: z
        .object({
          type: z.enum(['Value', 'AverageValue', 'Utilization']),
          value: z.string().optional(),
          averageValue: z.string().optional(),
          averageUtilization: z.int32().min(1).max(100).optional(),
        })
        .optional(),
    })
    .optional(),
});

/** spec.autoScaling: the metrics; with it (or min/maxReplicas) the predictor scales through KEDA (docs/aim.md) */
export const autoScalingSchema = z.object({ metrics: z.array(autoScalingMetricSchema).optional() });

export const serviceSpecSchema = z
  .object({
    model: serviceModelSchema,
    template: z
      .object({ name: z.string().optional(), allowUnoptimized: z.boolean().optional() })
      .meta(immutable('spec.template'))
      .optional(),
    caching: z
      .object({ mode: z.enum(SERVICE_CACHING_MODES).optional() })
      .meta(immutable('spec.caching'))
      .optional(),
    overrides: z.object(runtimeParametersShape).optional(),
    runtimeConfigName: z.string().optional(),
    storage: storageConfigSchema.optional(),
    routing: routingConfigSchema.optional(),
    env: envListSchema.optional(),
    replicas: z.int32().min(0).optional(),
    minReplicas: z.int32().min(1).optional(),
    maxReplicas: z.int32().min(1).optional(),
    autoScaling: autoScalingSchema.optional(),
    resources: resourceRequirementsSchema.optional(),
    imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
    serviceAccountName: z.string().optional(),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
        message: 'spec.maxReplicas must be at least spec.minReplicas; raise maxReplicas or lower minReplicas',
      },
    ],
  });

export const SERVICE_STATUSES = ['Pending', 'Starting', 'Running', 'Degraded', 'Failed'] as const;

export const serviceStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(SERVICE_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
  resolvedModel: resolvedReferenceSchema.optional(),
  resolvedTemplate: resolvedReferenceSchema.optional(),
  cache: z
    .object({ templateCacheRef: resolvedReferenceSchema.optional(), retryAttempts: z.int32().optional() })
    .optional(),
  routing: z.object({ path: z.string().optional() }).optional(),
  /** replicas as the autoscaler sees them (else the spec's); `replicas` is "N" or "current/desired (min-max)" */
  runtime: z
    .object({
      currentReplicas: z.int32().optional(),
      desiredReplicas: z.int32().optional(),
      minReplicas: z.int32().optional(),
      maxReplicas: z.int32().optional(),
      replicas: z.string().optional(),
    })
    .optional(),
});

export type AIMServiceSpec = z.infer<typeof serviceSpecSchema>;
export type AIMServiceStatus = z.infer<typeof serviceStatusSchema>;
export type AIMServiceStatusValue = (typeof SERVICE_STATUSES)[number];

export const serviceCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMService',
    plural: 'aimservices',
    shortNames: ['aimsvc'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: AIM_VERSION,
        spec: serviceSpecSchema,
        status: serviceStatusSchema,
        printerColumns: [
          { name: 'Status', type: 'string', jsonPath: '.status.status' },
          { name: 'Model', type: 'string', jsonPath: '.status.resolvedModel.name' },
          { name: 'Template', type: 'string', jsonPath: '.status.resolvedTemplate.name' },
          { name: 'Path', type: 'string', jsonPath: '.status.routing.path' },
          { name: 'Replicas', type: 'string', jsonPath: '.status.runtime.replicas', priority: 1 },
          ageColumn,
        ],
      },
    ],
  });
