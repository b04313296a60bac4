// Derives the served ResourceType from a CustomResourceDefinition object.
import type { JSONSchemaProps } from '../schema/types.ts';
import type { KubeObject } from '../types.ts';
import type { PrinterColumn, ResourceType, ResourceVersion, ScaleSubresource } from './resource-type.ts';

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: object; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

export interface CrdSpec {
  group: string;
  names: {
    plural: string;
    singular?: string;
    kind: string;
    listKind?: string;
    shortNames?: string[];
    categories?: string[];
  };
  scope: 'Namespaced' | 'Cluster';
  versions: CrdVersion[];
  conversion?: { strategy: 'None' | 'Webhook'; webhook?: unknown };
}

export function crdSpec(crd: KubeObject): CrdSpec {
  return crd.spec as CrdSpec;
}

export function resourceTypeFromCrd(crd: KubeObject): ResourceType {
  const spec = crdSpec(crd);
  // Kubernetes serves status/scale for a CRD when (all versions agree and) the version declares them.
  const first = spec.versions.find((v) => v.storage) ?? spec.versions[0]!;
  const versions: ResourceVersion[] = spec.versions.map((v) => ({
    name: v.name,
    served: v.served,
    storage: v.storage,
    ...(v.schema?.openAPIV3Schema ? { schema: v.schema.openAPIV3Schema } : {}),
    ...(v.additionalPrinterColumns ? { printerColumns: v.additionalPrinterColumns } : {}),
    ...(v.selectableFields ? { selectableFields: v.selectableFields.map((f) => f.jsonPath) } : {}),
  }));
  const names = spec.names;
  return {
    group: spec.group,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    kind: names.kind,
    listKind: names.listKind || `${names.kind}List`,
    namespaced: spec.scope === 'Namespaced',
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    versions,
    subresources: {
      status: first.subresources?.status !== undefined,
      ...(first.subresources?.scale ? { scale: first.subresources.scale } : {}),
    },
    builtin: false,
    generation: 'spec',
    storageKey: `${spec.group}/${names.plural}`,
    conversion: spec.conversion ?? { strategy: 'None' },
    ...(crd.metadata.uid ? { crdUid: crd.metadata.uid } : {}),
  };
}
