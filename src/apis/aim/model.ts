// AIMModel / AIMClusterModel, minimal until the model catalogue issue: an image and the runtime config it
// resolves. Auto-created models carry the label below and no owner reference (they outlive the service).
import { z } from 'zod';
import { crdFromZod } from '../crd-gen/index.ts';
import { AIM_CATEGORIES, AIM_GROUP, AIM_VERSION, ageColumn, conditionListSchema, envListSchema, localObjectReferenceSchema, resolvedRuntimeConfigSchema } from './common.ts';

export const ORIGIN_LABEL = 'aim.eai.amd.com/origin';
export const ORIGIN_AUTO_GENERATED = 'auto-generated';

const modelCommonShape = {
  image: z.string().min(1),
  runtimeConfigName: z.string().optional(),
  env: envListSchema.optional(),
};

export const clusterModelSpecSchema = z.object(modelCommonShape);

export const modelSpecSchema = z.object({
  ...modelCommonShape,
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  serviceAccountName: z.string().optional(),
});

export const MODEL_STATUSES = ['Pending', 'Progressing', 'Ready', 'Degraded', 'Failed', 'NotAvailable'] as const;

export const modelStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  status: z.enum(MODEL_STATUSES).optional(),
  conditions: conditionListSchema.optional(),
  resolvedRuntimeConfig: resolvedRuntimeConfigSchema.optional(),
});

export type AIMModelSpec = z.infer<typeof modelSpecSchema>;
export type AIMClusterModelSpec = z.infer<typeof clusterModelSpecSchema>;
export type AIMModelStatus = z.infer<typeof modelStatusSchema>;

const columns = [
  { name: 'Status', type: 'string', jsonPath: '.status.status' },
  { name: 'Image', type: 'string', jsonPath: '.spec.image' },
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
    versions: [{ name: AIM_VERSION, spec: clusterModelSpecSchema, status: modelStatusSchema, printerColumns: [...columns] }],
  });
