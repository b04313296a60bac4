// AIMServiceTemplate / AIMClusterServiceTemplate: one way to run a model (GPU model and count, metric,
// precision). The controller runs the model image's dry-run in a discovery Job to learn the profile and
// the model sources, checks that the cluster's nodes have the GPU, and (namespaced, caching.enabled)
// creates the AIMTemplateCache that pre-downloads the weights. docs/aim.md, "Templates".

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import {
  CATALOG_STATUSES,
  hardwareSchema,
  metricSchema,
  modelSourceSchema,
  precisionSchema,
  profileSchema,
  templateTypeSchema,
} from './catalog-shared.ts';
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

const immutable = (field: string) => immutableField(field, 'template');

const templateCommonShape = {
  modelName: z.string().min(1).meta(immutable('spec.modelName')),
  metric: metricSchema.optional().meta(immutable('spec.metric')),
  precision: precisionSchema.optional().meta(immutable('spec.precision')),
  hardware: hardwareSchema.optional().meta(immutable('spec.hardware')),
  runtimeConfigName: z.string().optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  serviceAccountName: z.string().optional(),
  resources: resourceRequirementsSchema.optional(),
  modelSources: z.array(modelSourceSchema).optional(),
  profileId: z.string().optional(),
  type: templateTypeSchema.optional(),
  env: envListSchema.optional(),
};

export const clusterTemplateSpecSchema = z.object(templateCommonShape);
export const templateSpecSchema = z.object({
  ...templateCommonShape,
  caching: z.object({ enabled: z.boolean().optional(), env: envListSchema.optional() }).optional(),
});

export const templateStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(CATALOG_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
  resolvedModel: resolvedReferenceSchema.optional(),
  resolvedCache: resolvedReferenceSchema.optional(),
  resolvedHardware: hardwareSchema.optional(),
  resolvedNodeAffinity: z.record(z.string(), z.unknown()).optional(),
  hardwareSummary: z.string().optional(),
  modelSources: z.array(modelSourceSchema).optional(),
  profile: profileSchema.optional(),
  discoveryJob: resolvedReferenceSchema.optional(),
  discovery: z
    .object({
      attempts: z.int32().min(0).optional(),
      lastAttemptTime: z.string().optional(),
      lastFailureReason: z.string().optional(),
      specHash: z.string().optional(),
    })
    .optional(),
});

export type AIMServiceTemplateSpec = z.infer<typeof templateSpecSchema>;
export type AIMClusterServiceTemplateSpec = z.infer<typeof clusterTemplateSpecSchema>;
export type AIMServiceTemplateStatus = z.infer<typeof templateStatusSchema>;

const columns = [
  { name: 'Model', type: 'string', jsonPath: '.spec.modelName' },
  { name: 'Status', type: 'string', jsonPath: '.status.status' },
  { name: 'Hardware', type: 'string', jsonPath: '.status.hardwareSummary' },
  { name: 'Metric', type: 'string', jsonPath: '.status.profile.metadata.metric' },
  { name: 'Precision', type: 'string', jsonPath: '.status.profile.metadata.precision' },
  ageColumn,
] as const;

export const templateCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMServiceTemplate',
    plural: 'aimservicetemplates',
    shortNames: ['aimtpl'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      { name: AIM_VERSION, spec: templateSpecSchema, status: templateStatusSchema, printerColumns: [...columns] },
    ],
  });

export const clusterTemplateCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMClusterServiceTemplate',
    plural: 'aimclusterservicetemplates',
    shortNames: ['aimcltpl'],
    categories: AIM_CATEGORIES,
    scope: 'Cluster',
    versions: [
      {
        name: AIM_VERSION,
        spec: clusterTemplateSpecSchema,
        status: templateStatusSchema,
        printerColumns: [...columns],
      },
    ],
  });
