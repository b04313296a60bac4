// Shapes shared by the aim.eai.amd.com kinds: core/v1 pieces they embed, conditions and resolved references.
import { z } from 'zod';

export const AIM_GROUP = 'aim.eai.amd.com';
export const AIM_VERSION = 'v1alpha1';
export const AIM_API_VERSION = `${AIM_GROUP}/${AIM_VERSION}`;
export const AIM_CATEGORIES = ['aim', 'all'];

/** core/v1 EnvVar; valueFrom is kept as the user wrote it (the operator only passes it through). */
export const envVarSchema = z.object({
  name: z.string().min(1),
  value: z.string().optional(),
  valueFrom: z.record(z.string(), z.unknown()).optional(),
});

/** env lists merge by name, so the API server keeps them as a map list keyed by name */
export const envListSchema = z
  .array(envVarSchema)
  .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] });

export const localObjectReferenceSchema = z.object({ name: z.string() }).meta({ 'x-kubernetes-map-type': 'atomic' });

/** a Kubernetes quantity: 1, "500m", "8Gi" */
export const quantitySchema = z.union([z.number().int(), z.string()]).meta({
  'x-kubernetes-int-or-string': true,
});

/** core/v1 ResourceRequirements */
export const resourceRequirementsSchema = z.object({
  limits: z.record(z.string(), quantitySchema).optional(),
  requests: z.record(z.string(), quantitySchema).optional(),
  claims: z
    .array(z.object({ name: z.string(), request: z.string().optional() }))
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
    .optional(),
});

export { conditionListSchema, conditionSchema } from '@modelplane/runtime/crd';

/** AIMResolvedReference: which object a consumer resolved, with its uid so a recreated object is noticed */
export const resolvedReferenceSchema = z.object({
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  scope: z.enum(['Namespace', 'Cluster', 'Merged', 'Unknown']).optional(),
  uid: z.string().optional(),
});

export const resolvedRuntimeConfigSchema = z.object({
  kind: z.enum(['AIMRuntimeConfig', 'AIMClusterRuntimeConfig']),
  name: z.string(),
  namespace: z.string(),
  scope: z.enum(['Namespace', 'Cluster']),
  uid: z.string(),
});

/** Printer column showing the Ready condition, the one a user scans `kubectl get` for. */
export const readyColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
} as const;
export const ageColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;

/** a CEL rule making a field immutable, with a message naming it and what to do instead */
export function immutableField(field: string, instead: string) {
  return {
    'x-kubernetes-validations': [
      { rule: 'self == oldSelf', message: `${field} is immutable; create a new ${instead} instead` },
    ],
  };
}
