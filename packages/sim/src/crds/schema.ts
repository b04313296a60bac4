// Shorthands for the external projects' CRDs, written in zod and built by packages/runtime/src/crd like every
// other CRD. Each CRD keeps the real names, scope, short names, categories and printer columns, types the
// fields our controllers and simulators read or write, and lets everything else through
// (x-kubernetes-preserve-unknown-fields), so any object the real project accepts is accepted here too
// (the real schemas run to hundreds of thousands of lines). Every field is optional unless an object
// lists it in `required`, as in the projects' own schemas.

import type { CustomResourceDefinition } from '@modelplane/runtime/client';
import { type CrdVersionSpec, crdFromZod, type PrinterColumn } from '@modelplane/runtime/crd';
import { z } from 'zod';

export type Schema = z.ZodType;
/** OpenAPI keywords a field adds (format, enum, default, pattern, x-kubernetes-*) */
type Extra = Record<string, unknown>;

const withExtra = <T extends z.ZodType>(schema: T, extra: Extra): T =>
  Object.keys(extra).length > 0 ? schema.meta(extra) : schema;

export const str = (extra: Extra = {}): Schema => withExtra(z.string(), extra);
export const int = (extra: Extra = {}): Schema => withExtra(z.number().int(), extra);
export const int32 = (extra: Extra = {}): Schema => int({ format: 'int32', ...extra });
export const bool = (extra: Extra = {}): Schema => withExtra(z.boolean(), extra);
export const arr = (items: Schema, extra: Extra = {}): Schema => withExtra(z.array(items), extra);
export const strings = (): Schema => arr(str());
export const stringMap = (): Schema => z.record(z.string(), z.string());
export const mapOf = (values: Schema): Schema => z.record(z.string(), values);

/** properties, optional unless `extra.required` names them; the rest of `extra` annotates the object */
function shape(properties: Record<string, Schema>, required: readonly string[] = []): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(properties).map(([name, s]) => [name, required.includes(name) ? s : s.optional()]),
  );
}

/** an object with typed properties that also keeps any field it does not name */
export const open = (
  properties: Record<string, Schema> = {},
  { required, ...extra }: Extra & { required?: string[] } = {},
): Schema =>
  withExtra(
    Object.keys(properties).length > 0 ? z.looseObject(shape(properties, required)) : z.record(z.string(), z.unknown()),
    extra,
  );

/** an object with exactly these properties (unknown fields are pruned, as in the real CRD) */
export const obj = (
  properties: Record<string, Schema>,
  { required, ...extra }: Extra & { required?: string[] } = {},
): Schema => withExtra(z.object(shape(properties, required)), extra);

/** a Kubernetes quantity: "1", 1, "500m", "8Gi" */
export const quantity = (): Schema =>
  z.union([z.number().int(), z.string()]).meta({
    'x-kubernetes-int-or-string': true,
    pattern:
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  });

export const labelSelector = (): Schema =>
  obj(
    {
      matchLabels: stringMap(),
      matchExpressions: arr(obj({ key: str(), operator: str(), values: strings() }, { required: ['key', 'operator'] })),
    },
    { 'x-kubernetes-map-type': 'atomic' },
  );

/** metav1.Condition, kept loose on required fields so status written by hand in tests is accepted */
export const conditions = (): Schema =>
  arr(
    obj(
      {
        type: str(),
        status: str(),
        observedGeneration: int({ format: 'int64' }),
        lastTransitionTime: str({ format: 'date-time' }),
        reason: str(),
        message: str(),
      },
      { required: ['type', 'status'] },
    ),
    { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
  );

/** Knative-style conditions (KServe): no observedGeneration, an extra severity */
export const knativeConditions = (): Schema =>
  arr(
    obj(
      { type: str(), status: str(), severity: str(), lastTransitionTime: str(), reason: str(), message: str() },
      { required: ['type', 'status'] },
    ),
  );

export const age = (): PrinterColumn => ({ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' });
export const conditionColumn = (name: string, type = name): PrinterColumn => ({
  name,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
});

export interface CrdVersion {
  name: string;
  storage: boolean;
  /** default true */
  served?: boolean;
  /** the root's properties besides apiVersion, kind and metadata: spec, status and any root-level fields */
  properties: Record<string, Schema>;
  required?: string[];
  columns?: PrinterColumn[];
  /** default true */
  statusSubresource?: boolean;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export interface ExternalCrdSpec {
  group: string;
  kind: string;
  plural: string;
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  annotations?: Record<string, string>;
}

/** an external project's CRD, marked as installed by `modelplane dev` */
export function crd(spec: ExternalCrdSpec): CustomResourceDefinition {
  const { versions, annotations, ...names } = spec;
  return crdFromZod({
    ...names,
    labels: { 'app.kubernetes.io/managed-by': 'modelplane-dev', 'sim.modelplane.io/external-crd': 'true' },
    ...(annotations ? { annotations } : {}),
    versions: versions.map(versionSpec),
  });
}

function versionSpec(v: CrdVersion): CrdVersionSpec {
  const { spec, status, ...rootFields } = v.properties;
  const required = v.required ?? [];
  return {
    name: v.name,
    storage: v.storage,
    served: v.served ?? true,
    ...(spec ? { spec, specRequired: required.includes('spec') } : {}),
    ...(status ? { status } : {}),
    rootFields: shape(rootFields, required),
    subresources: {
      ...(v.statusSubresource === false ? {} : { status: {} as Record<string, never> }),
      ...(v.scale ? { scale: v.scale } : {}),
    },
    ...(v.columns ? { printerColumns: v.columns } : {}),
  };
}
