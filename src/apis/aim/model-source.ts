// AIMClusterModelSource: a registry to list, filters choosing which repositories and tags become
// AIMClusterModels, and how often to look again. Models are only ever added (append-only): a tag that
// disappears from the registry keeps its model. docs/aim.md, "Model sources".

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import {
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  localObjectReferenceSchema,
} from './common.ts';

export const modelSourceFilterSchema = z.object({
  /** a repository pattern (`*` matches any run of characters), `repo:tag`, or a full image reference */
  image: z.string().min(1).max(512),
  exclude: z.array(z.string()).optional(),
  /** semver constraints the tag must meet, e.g. ">=0.8.4" */
  versions: z.array(z.string()).optional(),
});

export const clusterModelSourceSpecSchema = z.object({
  registry: z.string().default('docker.io'),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  filters: z.array(modelSourceFilterSchema).min(1).max(100),
  /** a Go duration, e.g. "1h" or "15m" */
  syncInterval: z
    .string()
    .regex(/^([0-9]+(\.[0-9]+)?(h|m|s|ms))+$/)
    .default('1h'),
  versions: z.array(z.string()).optional(),
  maxModels: z.int32().min(1).max(10000).default(100),
});

export const MODEL_SOURCE_STATUSES = [
  'Pending',
  'Starting',
  'Progressing',
  'Ready',
  'Running',
  'Degraded',
  'NotAvailable',
  'Failed',
] as const;

export const clusterModelSourceStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(MODEL_SOURCE_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  lastSyncTime: z.string().optional(),
  discoveredModels: z.int32().min(0).optional(),
  availableModels: z.int32().min(0).optional(),
  modelsLimitReached: z.boolean().optional(),
});

export type AIMClusterModelSourceSpec = z.infer<typeof clusterModelSourceSpecSchema>;
export type AIMClusterModelSourceFilter = z.infer<typeof modelSourceFilterSchema>;
export type AIMClusterModelSourceStatus = z.infer<typeof clusterModelSourceStatusSchema>;

export const clusterModelSourceCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMClusterModelSource',
    plural: 'aimclustermodelsources',
    shortNames: ['aimclsrc'],
    categories: AIM_CATEGORIES,
    scope: 'Cluster',
    versions: [
      {
        name: AIM_VERSION,
        spec: clusterModelSourceSpecSchema,
        status: clusterModelSourceStatusSchema,
        printerColumns: [
          { name: 'Status', type: 'string', jsonPath: '.status.status' },
          { name: 'Models', type: 'integer', jsonPath: '.status.discoveredModels' },
          { name: 'LastSync', type: 'date', jsonPath: '.status.lastSyncTime' },
          ageColumn,
        ],
      },
    ],
  });
