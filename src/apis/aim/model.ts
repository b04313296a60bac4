// AIMModel / AIMClusterModel: a model image and what the catalogue knows about it. The controller reads the
// image's metadata (from spec.imageMetadata, or the image's labels in its registry), creates one service
// template per recommended deployment plus the custom ones, and rolls the templates' states up into its own.
// Auto-created models carry the origin label and no owner reference (they outlive the service).

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import {
  CATALOG_STATUSES,
  hardwareSchema,
  metricSchema,
  modelSourceSchema,
  precisionSchema,
  templateTypeSchema,
} from './catalog-shared.ts';
import {
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  envListSchema,
  localObjectReferenceSchema,
  resolvedRuntimeConfigSchema,
  resourceRequirementsSchema,
} from './common.ts';

export const ORIGIN_LABEL = 'aim.eai.amd.com/origin';
export const ORIGIN_AUTO_GENERATED = 'auto-generated';

export const recommendedDeploymentSchema = z.object({
  gpuModel: z.string().optional(),
  gpuCount: z.int32().min(0).optional(),
  precision: z.string().optional(),
  metric: z.string().optional(),
  profileId: z.string().optional(),
  description: z.string().optional(),
});

/** what the image's labels say (or what an air-gapped user writes in spec.imageMetadata) */
export const imageMetadataSchema = z.object({
  model: z
    .object({
      canonicalName: z.string().optional(),
      source: z.string().optional(),
      tags: z.array(z.string()).optional(),
      versions: z.array(z.string()).optional(),
      variants: z.array(z.string()).optional(),
      hfTokenRequired: z.boolean().optional(),
      title: z.string().optional(),
      descriptionFull: z.string().optional(),
      releaseNotes: z.string().optional(),
      recommendedDeployments: z.array(recommendedDeploymentSchema).optional(),
    })
    .optional(),
  oci: z.record(z.string(), z.string()).optional(),
  originalLabels: z.record(z.string(), z.string()).optional(),
});

export const customTemplateSchema = z.object({
  name: z.string().max(63).optional(),
  type: templateTypeSchema.optional(),
  env: envListSchema.optional(),
  hardware: hardwareSchema.optional(),
  profile: z.object({ metric: metricSchema.optional(), precision: precisionSchema.optional() }).optional(),
});

const modelSpecShape = {
  image: z.string().min(1),
  discovery: z
    .object({ extractMetadata: z.boolean().optional(), createServiceTemplates: z.boolean().optional() })
    .optional(),
  defaultServiceTemplate: z.string().optional(),
  custom: z.object({ hardware: hardwareSchema.optional(), type: templateTypeSchema.optional() }).optional(),
  customTemplates: z.array(customTemplateSchema).max(16).optional(),
  modelSources: z.array(modelSourceSchema).max(1).optional(),
  runtimeConfigName: z.string().optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  env: envListSchema.optional(),
  serviceAccountName: z.string().optional(),
  resources: resourceRequirementsSchema.optional(),
  imageMetadata: imageMetadataSchema.optional(),
};

const MODEL_SOURCES_NEED_HARDWARE = {
  rule: '!has(self.modelSources) || size(self.modelSources) == 0 || (has(self.custom) && has(self.custom.hardware)) || (has(self.customTemplates) && self.customTemplates.all(t, has(t.hardware)))',
  message:
    'spec.modelSources: a model with inline model sources needs its hardware in spec.custom.hardware or in every spec.customTemplates[].hardware',
};

export const modelSpecSchema = z
  .object(modelSpecShape)
  .meta({ 'x-kubernetes-validations': [MODEL_SOURCES_NEED_HARDWARE] });
/** the same fields: cluster models keep their pull secrets in the operator namespace */
export const clusterModelSpecSchema = modelSpecSchema;

export const MODEL_STATUSES = CATALOG_STATUSES;

export const modelStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(MODEL_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
  imageMetadata: imageMetadataSchema.optional(),
  sourceType: z.enum(['Image', 'Custom']).optional(),
});

export type AIMModelSpec = z.infer<typeof modelSpecSchema>;
export type AIMClusterModelSpec = AIMModelSpec;
export type AIMModelStatus = z.infer<typeof modelStatusSchema>;
export type AIMImageMetadata = z.infer<typeof imageMetadataSchema>;
export type AIMRecommendedDeployment = z.infer<typeof recommendedDeploymentSchema>;
export type AIMCustomTemplate = z.infer<typeof customTemplateSchema>;

const columns = [
  { name: 'Status', type: 'string', jsonPath: '.status.status' },
  { name: 'Source', type: 'string', jsonPath: '.status.sourceType' },
  { name: 'Image', type: 'string', jsonPath: '.spec.image' },
  { name: 'Model', type: 'string', jsonPath: '.status.imageMetadata.model.canonicalName' },
  ageColumn,
] as const;

export const modelCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMModel',
    plural: 'aimmodels',
    shortNames: ['aimmdl'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [{ name: AIM_VERSION, spec: modelSpecSchema, status: modelStatusSchema, printerColumns: [...columns] }],
  });

export const clusterModelCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMClusterModel',
    plural: 'aimclustermodels',
    shortNames: ['aimclmdl'],
    categories: AIM_CATEGORIES,
    scope: 'Cluster',
    versions: [
      { name: AIM_VERSION, spec: clusterModelSpecSchema, status: modelStatusSchema, printerColumns: [...columns] },
    ],
  });
