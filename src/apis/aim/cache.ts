// AIMTemplateCache and AIMArtifact: the weights of a template's model sources, downloaded once onto a PVC.
// A cache holds one artifact per model source; an artifact owns its PVC and the Jobs that size and fill
// it. Shared caches and artifacts have no owner (any service in the namespace may use them); Dedicated ones
// belong to one service. docs/aim.md, "Caches and artifacts".

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import { CATALOG_STATUSES, MODEL_ID_PATTERN, modelSourceSchema, SOURCE_URI_PATTERN } from './catalog-shared.ts';
import {
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  envListSchema,
  immutableField,
  localObjectReferenceSchema,
  quantitySchema,
  resolvedRuntimeConfigSchema,
} from './common.ts';

export const CACHE_MODES = ['Dedicated', 'Shared'] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

export const templateCacheSpecSchema = z.object({
  templateName: z.string().min(1),
  templateScope: z.enum(['Namespace', 'Cluster', 'Unknown']),
  env: envListSchema.optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  storageClassName: z.string().optional(),
  downloadImage: z.string().optional(),
  modelSources: z.array(modelSourceSchema).optional(),
  runtimeConfigName: z.string().optional(),
  mode: z.enum(CACHE_MODES).optional(),
});

export const cacheArtifactStatusSchema = z.object({
  uid: z.string().optional(),
  name: z.string().optional(),
  model: z.string().optional(),
  status: z.string().optional(),
  persistentVolumeClaim: z.string().optional(),
  mountPoint: z.string().optional(),
});

export const templateCacheStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(CATALOG_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
  resolvedTemplateKind: z.string().optional(),
  artifacts: z.record(z.string(), cacheArtifactStatusSchema).optional(),
});

const immutableUri = immutableField('spec.sourceUri', 'artifact');

export const artifactSpecSchema = z.object({
  sourceUri: z.string().regex(new RegExp(SOURCE_URI_PATTERN)).meta(immutableUri),
  modelId: z.string().regex(new RegExp(MODEL_ID_PATTERN)).optional(),
  storageClassName: z.string().optional(),
  size: quantitySchema.optional(),
  env: envListSchema.optional(),
  modelDownloadImage: z.string().optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  runtimeConfigName: z.string().optional(),
});

export const artifactStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(CATALOG_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
  progress: z
    .object({
      totalBytes: z.number().int().optional(),
      downloadedBytes: z.number().int().optional(),
      percentage: z.int32().min(0).max(100).optional(),
      displayPercentage: z.string().optional(),
    })
    .optional(),
  download: z
    .object({
      protocol: z.string().optional(),
      attempt: z.int32().optional(),
      totalAttempts: z.int32().optional(),
      protocolSequence: z.string().optional(),
      message: z.string().optional(),
    })
    .optional(),
  displaySize: z.string().optional(),
  lastUsed: z.string().optional(),
  persistentVolumeClaim: z.string().optional(),
  mode: z.enum(CACHE_MODES).optional(),
  discoveredSizeBytes: z.number().int().optional(),
  allocatedSize: z.string().optional(),
  headroomPercent: z.int32().optional(),
  lastFailureTime: z.string().optional(),
  /** which download Job this is: 1, then one more per retry of a failed download */
  downloadAttempt: z.int32().min(1).optional(),
});

export type AIMTemplateCacheSpec = z.infer<typeof templateCacheSpecSchema>;
export type AIMTemplateCacheStatus = z.infer<typeof templateCacheStatusSchema>;
export type AIMArtifactSpec = z.infer<typeof artifactSpecSchema>;
export type AIMArtifactStatus = z.infer<typeof artifactStatusSchema>;

export const templateCacheCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMTemplateCache',
    plural: 'aimtemplatecaches',
    shortNames: ['aimtc'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: AIM_VERSION,
        spec: templateCacheSpecSchema,
        status: templateCacheStatusSchema,
        printerColumns: [
          { name: 'Template', type: 'string', jsonPath: '.spec.templateName' },
          { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
          { name: 'Status', type: 'string', jsonPath: '.status.status' },
          { name: 'Kind', type: 'string', jsonPath: '.status.resolvedTemplateKind' },
          ageColumn,
        ],
      },
    ],
  });

export const artifactCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMArtifact',
    plural: 'aimartifacts',
    shortNames: ['aimart'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: AIM_VERSION,
        spec: artifactSpecSchema,
        status: artifactStatusSchema,
        printerColumns: [
          { name: 'Status', type: 'string', jsonPath: '.status.status' },
          { name: 'Mode', type: 'string', jsonPath: '.status.mode' },
          { name: 'Model Size', type: 'string', jsonPath: '.status.displaySize' },
          { name: 'Progress', type: 'string', jsonPath: '.status.progress.displayPercentage' },
          { name: 'Protocol', type: 'string', jsonPath: '.status.download.protocol', priority: 1 },
          { name: 'Attempt', type: 'integer', jsonPath: '.status.download.attempt', priority: 1 },
          ageColumn,
        ],
      },
    ],
  });
