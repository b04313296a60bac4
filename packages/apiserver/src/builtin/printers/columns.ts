// Table column definitions shared by the built-in printers, the Printer shape they all implement, and
// kube's default table (Name, Created At) for kinds without a dedicated printer.
import type { KubeObject } from '../../types.ts';
import { isSet } from './format.ts';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: 'Completed';
  status: 'True';
  reason: string;
  message: string;
}

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const col = (name: string, type: string, description: string, priority = 0): TableColumnDefinition => ({
  name,
  type,
  format: '',
  description,
  priority,
});
export const NAME = (): TableColumnDefinition => ({
  name: 'Name',
  type: 'string',
  format: 'name',
  description: NAME_DOC,
  priority: 0,
});
export const AGE = () => col('Age', 'string', CREATED_DOC);
export const WIDE_TEMPLATE = () => [
  col('Containers', 'string', 'Names of each container in the template.', 1),
  col('Images', 'string', 'Images referenced by each container in the template.', 1),
];
export const SELECTOR = (doc: string) => col('Selector', 'string', doc, 1);

const DEFAULT_COLUMNS = (): TableColumnDefinition[] => [NAME(), col('Created At', 'date', CREATED_DOC)];

/** rest.NewDefaultTableConvertor's row: name and the creation time in RFC 3339 (UTC, whole seconds). */
function defaultRow(o: KubeObject): unknown[] {
  const ts = o.metadata?.creationTimestamp;
  const created = isSet(ts) ? `${new Date(Date.parse(ts!)).toISOString().slice(0, 19)}Z` : '0001-01-01T00:00:00Z';
  return [o.metadata?.name ?? '', created];
}

export interface Printer {
  columns: () => TableColumnDefinition[];
  row: (o: KubeObject, now: number) => unknown[];
}

export const defaultPrinter: Printer = { columns: DEFAULT_COLUMNS, row: defaultRow };
