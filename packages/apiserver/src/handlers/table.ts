// meta.k8s.io/v1 Table responses (`kubectl get` asks for them): columns and cells from the built-in
// printers, or from a CRD version's additionalPrinterColumns evaluated with Kubernetes JSONPath.
import { printerColumnCell } from '@modelplane/apimachinery/jsonpath';
import { builtinTableColumns, builtinTableRow } from '../builtin/printers/index.ts';
import { StatusError } from '../errors.ts';
import type { PrinterColumn, ResourceType } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';
import type { ResourceRequest } from './request.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const nameColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
const ageColumn: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};

function crdColumns(rt: ResourceType, version: string): PrinterColumn[] {
  const v = rt.versions.find((x) => x.name === version);
  return v?.printerColumns && v.printerColumns.length > 0 ? v.printerColumns : [ageColumn];
}

export function tableColumns(rt: ResourceType, version: string): Record<string, unknown>[] {
  if (rt.builtin) return builtinTableColumns(rt.group, rt.kind).map((c) => ({ ...c }));
  return [
    nameColumn,
    ...crdColumns(rt, version).map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
}

export function tableRow(
  rt: ResourceType,
  version: string,
  obj: KubeObject,
  include: IncludeObject,
  now = Date.now(),
): Record<string, unknown> {
  const cells = rt.builtin
    ? builtinTableRow(rt.group, rt.kind, obj, now)
    : [obj.metadata.name, ...crdColumns(rt, version).map((c) => cellOrNull(c, obj, now))];
  const row: Record<string, unknown> = { cells };
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') row.object = partialMetadata(obj);
  return row;
}

export function partialMetadata(obj: KubeObject, metaVersion = 'v1'): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${metaVersion}`, metadata: obj.metadata };
}

export function table(
  rt: ResourceType,
  version: string,
  objs: KubeObject[],
  include: IncludeObject,
  listMeta: Record<string, unknown>,
  metaVersion = 'v1',
): Record<string, unknown> {
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${metaVersion}`,
    metadata: listMeta,
    columnDefinitions: tableColumns(rt, version),
    rows: objs.map((o) => tableRow(rt, version, o, include, now)),
  };
}

/** includeObject: what each Table row carries (None, Metadata, Object); anything else is a 400 as kube decodes it */
export function includeObjectParam(r: ResourceRequest): IncludeObject {
  const v = r.query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw new StatusError(
    400,
    'BadRequest',
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** The Go type kube-apiserver names in a 406 about a conversion: its internal type, or unstructured for CRs. */
function goType(rt: ResourceType, list: boolean): string {
  if (!rt.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = rt.group === '' || rt.group === 'events.k8s.io' ? 'core' : rt.group.split('.')[0]!;
  return `*${pkg}.${rt.kind}${list ? 'List' : ''}`;
}

/** One object in the shape `as=` asked for: a Table of one row, or PartialObjectMetadata. */
export function convertObject(r: ResourceRequest, obj: KubeObject): Record<string, unknown> {
  const { convert, convertVersion } = r.out;
  if (convert === 'PartialObjectMetadataList') {
    throw new StatusError(
      406,
      'NotAcceptable',
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(r.rt, false)})`,
    );
  }
  if (convert === 'Table')
    return table(
      r.rt,
      r.info.version,
      [obj],
      includeObjectParam(r),
      { resourceVersion: obj.metadata.resourceVersion },
      convertVersion,
    );
  return partialMetadata(obj, convertVersion);
}

/** A list page in the shape `as=` asked for: a Table, or PartialObjectMetadataList. */
export function convertList(
  r: ResourceRequest,
  items: KubeObject[],
  listMeta: Record<string, unknown>,
): Record<string, unknown> {
  const { convert, convertVersion } = r.out;
  if (convert === 'PartialObjectMetadata') {
    throw new StatusError(
      406,
      'NotAcceptable',
      `you requested PartialObjectMetadata, but the requested object is a list (${goType(r.rt, true)})`,
    );
  }
  if (convert === 'Table') return table(r.rt, r.info.version, items, includeObjectParam(r), listMeta, convertVersion);
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${convertVersion}`,
    metadata: listMeta,
    items: items.map((o) => partialMetadata(o, convertVersion)),
  };
}

function cellOrNull(col: PrinterColumn, obj: KubeObject, now: number): unknown {
  try {
    return printerColumnCell(col, obj, now) ?? null;
  } catch {
    return null;
  }
}
