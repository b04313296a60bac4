// Building blocks for the external projects' CRDs. Each CRD keeps the real names, scope, short names,
// categories and printer columns, types the fields our controllers and simulators read or write, and
// lets everything else through with x-kubernetes-preserve-unknown-fields, so any object the real project
// accepts is accepted here too (the real schemas run to hundreds of thousands of lines).

import type { CustomResourceDefinition } from '../../kube/index.ts';

export type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const int32 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int32', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const strings = (): Schema => arr(str());
export const stringMap = (): Schema => ({ type: 'object', additionalProperties: str() });
export const mapOf = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });

/** an object with typed properties that also keeps any field it does not name */
export const open = (properties: Record<string, Schema> = {}, extra: Schema = {}): Schema => ({
  type: 'object',
  ...(Object.keys(properties).length > 0 ? { properties } : {}),
  'x-kubernetes-preserve-unknown-fields': true,
  ...extra,
});

/** an object with exactly these properties (unknown fields are pruned, as in the real CRD) */
export const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });

/** a Kubernetes quantity: "1", 1, "500m", "8Gi" */
export const quantity = (): Schema => ({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
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

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

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
  /** the root's properties besides apiVersion, kind and metadata */
  properties: Record<string, Schema>;
  required?: string[];
  columns?: PrinterColumn[];
  /** default true */
  statusSubresource?: boolean;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export interface CrdSpec {
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

export function crd(spec: CrdSpec): CustomResourceDefinition {
  const singular = spec.singular ?? spec.kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${spec.plural}.${spec.group}`,
      labels: { 'app.kubernetes.io/managed-by': 'modelplane-dev', 'sim.modelplane.io/external-crd': 'true' },
      ...(spec.annotations ? { annotations: spec.annotations } : {}),
    },
    spec: {
      group: spec.group,
      names: {
        kind: spec.kind,
        listKind: `${spec.kind}List`,
        plural: spec.plural,
        singular,
        ...(spec.shortNames ? { shortNames: spec.shortNames } : {}),
        ...(spec.categories ? { categories: spec.categories } : {}),
      },
      scope: spec.scope,
      versions: spec.versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { apiVersion: str(), kind: str(), metadata: { type: 'object' }, ...v.properties },
            ...(v.required ? { required: v.required } : {}),
          },
        },
        subresources: {
          ...(v.statusSubresource === false ? {} : { status: {} as Record<string, never> }),
          ...(v.scale ? { scale: v.scale } : {}),
        },
        ...(v.columns ? { additionalPrinterColumns: v.columns as unknown as Array<Record<string, unknown>> } : {}),
      })),
    },
  };
}
