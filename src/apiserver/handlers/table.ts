// meta.k8s.io/v1 Table responses (`kubectl get` asks for them): columns and cells from the built-in
// printers, or from a CRD version's additionalPrinterColumns evaluated with Kubernetes JSONPath.
import { printerColumnCell } from '../../common/jsonpath/index.ts';
import { builtinTableColumns, builtinTableRow } from '../builtin/printers/index.ts';
import type { PrinterColumn, ResourceType } from '../registry/resource-type.ts';
import type { KubeObject } from '../types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

const nameColumn = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 };
const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.' };

function crdColumns(rt: ResourceType, version: string): PrinterColumn[] {
  const v = rt.versions.find((x) => x.name === version);
  return v?.printerColumns && v.printerColumns.length > 0 ? v.printerColumns : [ageColumn];
}

export function tableColumns(rt: ResourceType, version: string): Record<string, unknown>[] {
  if (rt.builtin) return builtinTableColumns(rt.group, rt.kind).map((c) => ({ ...c }));
  return [
    nameColumn,
    ...crdColumns(rt, version).map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description ?? '', priority: c.priority ?? 0 })),
  ];
}

export function tableRow(rt: ResourceType, version: string, obj: KubeObject, include: IncludeObject, now = Date.now()): Record<string, unknown> {
  const cells = rt.builtin ? builtinTableRow(rt.group, rt.kind, obj, now) : [obj.metadata.name, ...crdColumns(rt, version).map((c) => cellOrNull(c, obj, now))];
  const row: Record<string, unknown> = { cells };
  if (include === 'Object') row.object = obj;
  else if (include === 'Metadata') row.object = partialMetadata(obj);
  return row;
}

export function partialMetadata(obj: KubeObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function table(rt: ResourceType, version: string, objs: KubeObject[], include: IncludeObject, listMeta: Record<string, unknown>): Record<string, unknown> {
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: tableColumns(rt, version),
    rows: objs.map((o) => tableRow(rt, version, o, include, now)),
  };
}

export type ResponseShape = 'object' | 'table' | 'partial';

/** What the client asked for in Accept: a Table, PartialObjectMetadata(List), or the object itself. */
export function negotiateShape(accept: string | undefined): ResponseShape {
  if (!accept) return 'object';
  for (const part of accept.split(',')) {
    const p = part.replace(/\s+/g, '');
    if (!p.startsWith('application/json') && !p.startsWith('*/*')) continue;
    if (p.includes('as=Table') && p.includes('g=meta.k8s.io')) return 'table';
    if (p.includes('as=PartialObjectMetadata') && p.includes('g=meta.k8s.io')) return 'partial';
    if (!p.includes('as=')) return 'object';
  }
  return 'object';
}

function cellOrNull(col: PrinterColumn, obj: KubeObject, now: number): unknown {
  try {
    return printerColumnCell(col, obj, now) ?? null;
  } catch {
    return null;
  }
}
