// Names and shapes shared by both served versions of LlamaStackDistribution (llamastack.io): the group,
// the annotations, and the Kubernetes pieces (Secret/ConfigMap references, PDB, autoscaling, storage) that
// v1alpha1 and v1alpha2 spell the same way. See docs/llamastack.md.

import { conditionListSchema } from '@modelplane/runtime/crd';
import { z } from 'zod';
import { envListSchema, quantitySchema, resourceRequirementsSchema } from '../aim/common.ts';

export const LLS_GROUP = 'llamastack.io';
export const LLS_V1ALPHA1 = 'v1alpha1';
export const LLS_V1ALPHA2 = 'v1alpha2';
export const LLS_API_VERSION_V1ALPHA1 = `${LLS_GROUP}/${LLS_V1ALPHA1}`;
export const LLS_API_VERSION_V1ALPHA2 = `${LLS_GROUP}/${LLS_V1ALPHA2}`;
export const LLS_KIND = 'LlamaStackDistribution';
export const LLS_PLURAL = 'llamastackdistributions';
export const LLS_CRD_NAME = `${LLS_PLURAL}.${LLS_GROUP}`;
export const LLS_CATEGORIES = ['llamastack', 'all'];

/** v1alpha2-only fields of a v1alpha2 object read as v1alpha1 (JSON), restored on the way back */
export const V1ALPHA2_FIELDS_ANNOTATION = `${LLS_GROUP}/v1alpha2-fields`;
/** v1alpha1-only fields of a v1alpha1 object stored as v1alpha2 (JSON), restored on the way back */
export const V1ALPHA1_FIELDS_ANNOTATION = `${LLS_GROUP}/v1alpha1-fields`;

export { envListSchema, quantitySchema, resourceRequirementsSchema };

/** core/v1 SecretKeySelector as the CRD takes it */
export const secretKeyRefSchema = z.object({ name: z.string().min(1).max(253), key: z.string().min(1).max(253) });

export const CA_BUNDLE_KEY_PATTERN = '^[a-zA-Z0-9]([a-zA-Z0-9\\-_.]*[a-zA-Z0-9])?$';

export const caBundleSchema = z.object({
  configMapName: z.string().min(1),
  configMapNamespace: z.string().optional(),
  configMapKeys: z
    .array(z.string().max(253).regex(new RegExp(CA_BUNDLE_KEY_PATTERN)))
    .max(50)
    .optional(),
});

const intOrString = z.union([z.number().int(), z.string()]).meta({ 'x-kubernetes-int-or-string': true });

export const podDisruptionBudgetSchema = z
  .object({ minAvailable: intOrString.optional(), maxUnavailable: intOrString.optional() })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '!(has(self.minAvailable) && has(self.maxUnavailable))',
        message: 'podDisruptionBudget: set minAvailable or maxUnavailable, not both',
      },
    ],
  });

export const autoscalingSchema = z
  .object({
    minReplicas: z.int32().min(1).optional(),
    maxReplicas: z.int32().min(1),
    targetCPUUtilizationPercentage: z.int32().min(1).max(100).optional(),
    targetMemoryUtilizationPercentage: z.int32().min(1).max(100).optional(),
  })
  .meta({
    'x-kubernetes-validations': [
      {
        rule: '!has(self.minReplicas) || self.maxReplicas >= self.minReplicas',
        message: 'autoscaling.maxReplicas must be >= minReplicas',
      },
    ],
  });

export const storageSizeSchema = z.object({ size: quantitySchema.optional(), mountPath: z.string().optional() });

export const allowedFromSchema = z.object({
  namespaces: z.array(z.string()).optional(),
  labels: z.array(z.string()).optional(),
});

/** core/v1 objects the operator passes through untouched (volumes, mounts, spread constraints) */
export const passthroughList = () => z.array(z.looseObject({})).optional();

export const distributionSchema = z.object({ name: z.string().min(1).optional(), image: z.string().min(1).optional() });

export { conditionListSchema, conditionSchema } from '@modelplane/runtime/crd';

export const PHASES = ['Pending', 'Initializing', 'Ready', 'Failed', 'Terminating'] as const;
export type LlamaStackPhase = (typeof PHASES)[number];

export const providerStatusSchema = z.object({
  api: z.string().optional(),
  provider_id: z.string().optional(),
  provider_type: z.string().optional(),
  config: z.looseObject({}).optional(),
  health: z.object({ status: z.string().optional(), message: z.string().optional() }).optional(),
});

/** the status fields both versions share */
export const commonStatusShape = {
  phase: z.enum(PHASES).optional(),
  version: z
    .object({
      operatorVersion: z.string().optional(),
      llamaStackServerVersion: z.string().optional(),
      lastUpdated: z.string().optional(),
    })
    .optional(),
  distributionConfig: z
    .object({
      activeDistribution: z.string().optional(),
      providers: z.array(providerStatusSchema).optional(),
      availableDistributions: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  conditions: conditionListSchema.optional(),
  availableReplicas: z.int32().optional(),
  serviceURL: z.string().optional(),
  routeURL: z.string().optional(),
  observedGeneration: z.number().int().min(0).optional(),
};
