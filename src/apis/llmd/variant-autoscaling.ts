// VariantAutoscaling (llmd.ai/v1alpha1, shortName va): one variant (a Deployment serving a model on one
// accelerator type) that the saturation autoscaler sizes. The controller writes the decision into
// status.desiredOptimizedAlloc; HPA or KEDA acts on the exported wva_desired_replicas (docs/autoscaling.md).

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import { conditionListSchema } from '../aim/common.ts';
import {
  DEFAULT_MAX_REPLICAS,
  DEFAULT_MIN_REPLICAS,
  DEFAULT_VARIANT_COST,
  LLMD_CATEGORIES,
  LLMD_GROUP,
  LLMD_VERSION,
} from './common.ts';

/** autoscaling/v1 CrossVersionObjectReference */
export const scaleTargetRefSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().min(1),
  name: z.string().min(1),
});

export const variantAutoscalingSpecSchema = z
  .object({
    scaleTargetRef: scaleTargetRefSchema,
    /** must equal the `model_name` label of the variant's vLLM metrics */
    modelID: z.string().min(1),
    /** the cost of one replica; the cheapest variant of a model grows first, the most expensive shrinks first */
    variantCost: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .default(DEFAULT_VARIANT_COST),
    /** 0 allows scale to zero */
    minReplicas: z.int32().min(0).default(DEFAULT_MIN_REPLICAS),
    maxReplicas: z.int32().min(1).default(DEFAULT_MAX_REPLICAS),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: 'self.maxReplicas >= self.minReplicas',
        message: 'spec.maxReplicas must be greater than or equal to spec.minReplicas',
      },
    ],
  });

export const optimizedAllocSchema = z.object({
  lastRunTime: z.string().optional(),
  accelerator: z.string().min(2),
  numReplicas: z.int32().min(0),
});

export const variantAutoscalingStatusSchema = z.object({
  desiredOptimizedAlloc: optimizedAllocSchema.optional(),
  actuation: z.object({ applied: z.boolean() }).optional(),
  conditions: conditionListSchema.optional(),
});

export type VariantAutoscalingSpec = z.infer<typeof variantAutoscalingSpecSchema>;
export type VariantAutoscalingSpecInput = z.input<typeof variantAutoscalingSpecSchema>;
export type VariantAutoscalingStatus = z.infer<typeof variantAutoscalingStatusSchema>;
export type OptimizedAlloc = z.infer<typeof optimizedAllocSchema>;

const conditionStatus = (type: string) => `.status.conditions[?(@.type=="${type}")].status`;

export const variantAutoscalingCrd = () =>
  crdFromZod({
    group: LLMD_GROUP,
    kind: 'VariantAutoscaling',
    plural: 'variantautoscalings',
    shortNames: ['va'],
    categories: LLMD_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: LLMD_VERSION,
        spec: variantAutoscalingSpecSchema,
        status: variantAutoscalingStatusSchema,
        printerColumns: [
          { name: 'Target', type: 'string', jsonPath: '.spec.scaleTargetRef.name' },
          { name: 'Model', type: 'string', jsonPath: '.spec.modelID' },
          { name: 'Optimized', type: 'string', jsonPath: '.status.desiredOptimizedAlloc.numReplicas' },
          { name: 'MetricsReady', type: 'string', jsonPath: conditionStatus('MetricsAvailable') },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
  });
