// AIMClusterRuntimeConfig and AIMRuntimeConfig (docs/aim.md, "Resolution"). No field has a default:
// an absent field must stay absent so the namespace ⊕ cluster merge can tell "unset" from an explicit
// false / 0 / "" (docs/architecture.md, "Decisions where the designs are silent").

import { crdFromZod } from '@modelplane/runtime/crd';
import { z } from 'zod';
import type { RuntimeConfigSpec, ServiceRuntimeConfig } from '../../common/runtime-config/types.ts';
import {
  AIM_CATEGORIES,
  AIM_GROUP,
  AIM_VERSION,
  ageColumn,
  conditionListSchema,
  envListSchema,
  localObjectReferenceSchema,
  readyColumn,
} from './common.ts';

/** Gateway API ParentReference */
export const gatewayParentRefSchema = z.object({
  name: z.string().min(1),
  namespace: z.string().optional(),
  group: z.string().optional(),
  kind: z.string().optional(),
  sectionName: z.string().optional(),
  port: z.int32().min(1).max(65535).optional(),
});

export const storageConfigSchema = z.object({
  defaultStorageClassName: z.string().optional(),
  pvcHeadroomPercent: z.int32().min(0).optional(),
});

/** access modes a model-weights PVC may have */
export const ARTIFACT_ACCESS_MODES = ['ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteOncePod'] as const;

/** a runtime config's storage: the service's inline subset plus what only artifacts use */
const configStorageSchema = storageConfigSchema.extend({
  /** access mode of the artifacts' PVCs (default ReadWriteMany: shared caches and replicas on several nodes) */
  artifactAccessMode: z.enum(ARTIFACT_ACCESS_MODES).optional(),
});

export const routingConfigSchema = z.object({
  enabled: z.boolean().optional(),
  gatewayRef: gatewayParentRefSchema.optional(),
  pathTemplate: z.string().optional(),
  /** a Go duration, e.g. "30s" or "1m30s" (Gateway API HTTPRoute timeouts.request) */
  requestTimeout: z
    .string()
    .regex(/^([0-9]+(\.[0-9]+)?(h|m|s|ms|us|µs|ns))+$/)
    .optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

export const labelPropagationSchema = z.object({
  enabled: z.boolean().optional(),
  match: z.array(z.string().min(1)).optional(),
});

/** what an AIMService may carry inline (AIMServiceRuntimeConfig) */
export const serviceRuntimeConfigShape = {
  storage: storageConfigSchema.optional(),
  routing: routingConfigSchema.optional(),
  env: envListSchema.optional(),
};

/** AIMRuntimeConfigCommon: identical for both scopes */
const commonShape = {
  ...serviceRuntimeConfigShape,
  storage: configStorageSchema.optional(),
  model: z.object({ autoDiscovery: z.boolean().optional() }).optional(),
  labelPropagation: labelPropagationSchema.optional(),
  /** deprecated spelling of storage.defaultStorageClassName (still what docs/aim.md's examples use) */
  defaultStorageClassName: z.string().optional(),
  /** deprecated spelling of storage.pvcHeadroomPercent */
  pvcHeadroomPercent: z.int32().min(0).optional(),
};

/** Cluster scope has no auth fields: secrets and service accounts only exist in a namespace. */
export const clusterRuntimeConfigSpecSchema = z.object(commonShape);

export const runtimeConfigSpecSchema = z.object({
  ...commonShape,
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  serviceAccountName: z.string().optional(),
});

export const runtimeConfigStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: conditionListSchema.optional(),
});

export type ClusterRuntimeConfigSpec = z.infer<typeof clusterRuntimeConfigSpecSchema>;
export type NamespaceRuntimeConfigSpec = z.infer<typeof runtimeConfigSpecSchema>;
export type RuntimeConfigStatus = z.infer<typeof runtimeConfigStatusSchema>;

// The resolver in src/common works on RuntimeConfigSpec; these keep the CRD and it from drifting apart.
const _clusterFitsResolver: RuntimeConfigSpec = {} as ClusterRuntimeConfigSpec;
const _namespaceFitsResolver: RuntimeConfigSpec = {} as NamespaceRuntimeConfigSpec;
const _resolverFitsSchema: ClusterRuntimeConfigSpec = {} as RuntimeConfigSpec;
const _inlineFitsResolver: ServiceRuntimeConfig = {} as z.infer<z.ZodObject<typeof serviceRuntimeConfigShape>>;
void [_clusterFitsResolver, _namespaceFitsResolver, _resolverFitsSchema, _inlineFitsResolver];

const columns = [readyColumn, ageColumn];

export const clusterRuntimeConfigCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMClusterRuntimeConfig',
    plural: 'aimclusterruntimeconfigs',
    shortNames: ['aimclrc'],
    categories: AIM_CATEGORIES,
    scope: 'Cluster',
    versions: [
      {
        name: AIM_VERSION,
        spec: clusterRuntimeConfigSpecSchema,
        status: runtimeConfigStatusSchema,
        specRequired: false,
        printerColumns: columns,
      },
    ],
  });

export const runtimeConfigCrd = () =>
  crdFromZod({
    group: AIM_GROUP,
    kind: 'AIMRuntimeConfig',
    plural: 'aimruntimeconfigs',
    shortNames: ['aimrc'],
    categories: AIM_CATEGORIES,
    scope: 'Namespaced',
    versions: [
      {
        name: AIM_VERSION,
        spec: runtimeConfigSpecSchema,
        status: runtimeConfigStatusSchema,
        specRequired: false,
        printerColumns: columns,
      },
    ],
  });
