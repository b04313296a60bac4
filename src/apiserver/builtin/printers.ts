// Table columns and cells for built-in kinds, matching kube-apiserver's pkg/printers/internalversion (what
// `kubectl get` shows against a real cluster). The server always prints the wide form; kubectl hides the
// priority-1 columns unless -o wide. Cells are strings, integers or booleans exactly where kube uses them.
// Kinds without a printer get kube's default table (Name, Created At), as Roles and CRDs do in kube.
import { formatLabelSelector, formatLabels, labelSelectorFromObject } from '../selectors/labels.ts';
import type { KubeObject } from '../types.ts';

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

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration, for a duration in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

// ---- loose JSON accessors (stored objects are plain JSON; missing fields read as Go zero values) ------

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const int = (v: unknown): number => (typeof v === 'number' ? Math.trunc(v) : 0);
const path = (o: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((cur, k) => rec(cur)[k], o);
const strMap = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(rec(v)).map(([k, x]) => [k, str(x)]));

/** translateTimestampSince: `<unknown>` for an unset time. */
function since(ts: unknown, now: number): string {
  const t = typeof ts === 'string' && ts ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

function isSet(ts: unknown): boolean {
  return typeof ts === 'string' && ts !== '' && !Number.isNaN(Date.parse(ts));
}

/** IntOrString.String() */
function intOrString(v: unknown): string {
  return typeof v === 'number' ? String(Math.trunc(v)) : str(v);
}

function containerCells(podSpec: unknown): [string, string] {
  const cs = arr(rec(podSpec).containers).map(rec);
  return [cs.map((c) => str(c.name)).join(','), cs.map((c) => str(c.image)).join(',')];
}

function selectorString(selector: unknown): string {
  try {
    return labelSelectorFromObject(selector as never).toString();
  } catch {
    return '<invalid>';
  }
}

// ---- columns ------------------------------------------------------------------------------------------

const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const col = (name: string, type: string, description: string, priority = 0): TableColumnDefinition => ({ name, type, format: '', description, priority });
const NAME = (): TableColumnDefinition => ({ name: 'Name', type: 'string', format: 'name', description: NAME_DOC, priority: 0 });
const AGE = () => col('Age', 'string', CREATED_DOC);
const WIDE_TEMPLATE = () => [
  col('Containers', 'string', 'Names of each container in the template.', 1),
  col('Images', 'string', 'Images referenced by each container in the template.', 1),
];
const SELECTOR = (doc: string) => col('Selector', 'string', doc, 1);

const DEFAULT_COLUMNS = (): TableColumnDefinition[] => [NAME(), col('Created At', 'date', CREATED_DOC)];

/** rest.NewDefaultTableConvertor's row: name and the creation time in RFC 3339 (UTC, whole seconds). */
function defaultRow(o: KubeObject): unknown[] {
  const ts = o.metadata?.creationTimestamp;
  const created = isSet(ts) ? `${new Date(Date.parse(ts!)).toISOString().slice(0, 19)}Z` : '0001-01-01T00:00:00Z';
  return [o.metadata?.name ?? '', created];
}

interface Printer {
  columns: () => TableColumnDefinition[];
  row: (o: KubeObject, now: number) => unknown[];
}
