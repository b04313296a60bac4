/**
 * Column values built on JSONPath the way Kubernetes builds them:
 * - CRD additionalPrinterColumns, as kube-apiserver's tableconvertor fills Table cells;
 * - kubectl's `-o custom-columns` cells.
 */

import { humanDuration } from '../duration.ts';
import { NO_VALUE } from './ast.ts';
import { JsonPathError } from './errors.ts';
import { findResults } from './evaluate.ts';
import { parseJsonPath, relaxedJsonPath, toPlainValue } from './execute.ts';
import { goFormatValue, isGoInt, resultText } from './go-format.ts';

const NOT_FOUND: unique symbol = Symbol('jsonpath.notFound');

/** The first result of the first block, or NOT_FOUND when evaluation fails or finds nothing (tableconvertor rules). */
function firstColumnResult(jsonPath: string, obj: unknown): unknown {
  // kube-apiserver parses `{` + jsonPath + `}` with missing keys allowed; CRD validation makes paths start with '.'.
  const template = parseJsonPath(jsonPath.startsWith('.') ? `{${jsonPath}}` : relaxedJsonPath(jsonPath));
  let blocks: unknown[][];
  try {
    blocks = findResults(template, obj, true);
  } catch (err) {
    if (err instanceof JsonPathError) return NOT_FOUND;
    throw err;
  }
  if (blocks.length === 0 || blocks[0]!.length === 0) return NOT_FOUND;
  return blocks[0]![0];
}

/**
 * Raw value of a CRD additionalPrinterColumn for obj: undefined when the path finds nothing or fails to evaluate.
 * Throws JsonPathError when the path itself does not parse (kube-apiserver rejects such a column definition).
 */
export function printerColumnValue(jsonPath: string, obj: unknown): unknown {
  const value = firstColumnResult(jsonPath, obj);
  return value === NOT_FOUND ? undefined : toPlainValue(value);
}

export interface PrinterColumnSpec {
  readonly jsonPath: string;
  /** The column's OpenAPI type: string, integer, number, boolean or date. */
  readonly type: string;
}

/**
 * The Table cell kube-apiserver returns for a CRD column (null for an absent value): `string` columns get the
 * JSONPath text of the value (maps as JSON, null as `<no value>`), `integer` truncates floats, `date` becomes a
 * human-readable age such as `5m` relative to `now` (ms since the epoch); a value of the wrong type gives null.
 */
export function printerColumnCell(column: PrinterColumnSpec, obj: unknown, now: number = Date.now()): unknown {
  const value = firstColumnResult(column.jsonPath, obj);
  if (value === NOT_FOUND) return null;
  if (column.type === 'string') return resultText(value === null ? NO_VALUE : value);
  const plain = toPlainValue(value);
  switch (column.type) {
    case 'integer':
      if (typeof plain === 'number') return isGoInt(plain) ? plain : Math.trunc(plain);
      return null;
    case 'number':
      return typeof plain === 'number' ? plain : null;
    case 'boolean':
      return typeof plain === 'boolean' ? plain : null;
    case 'date':
      return typeof plain === 'string' ? humanReadableAge(plain, now) : null;
    default:
      return null;
  }
}

/** kubectl's custom-columns cell: `<none>` when nothing matches, otherwise fmt %v of each value joined by commas. */
export function customColumnText(path: string, obj: unknown): string {
  const blocks = findResults(parseJsonPath(relaxedJsonPath(path)), obj, true);
  const parts: string[] = [];
  if (blocks.length === 0 || blocks[0]!.length === 0) parts.push('<none>');
  for (const block of blocks) for (const value of block) parts.push(escapeTerminal(goFormatValue(value)));
  return parts.join(',');
}

function escapeTerminal(text: string): string {
  return text.replaceAll('\x1b', '^[').replaceAll('\r', '\\r');
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** metav1.Time query-parameter parsing followed by ConvertToHumanReadableDateType. */
function humanReadableAge(timestamp: string, now: number): string {
  if (timestamp === '' || timestamp === 'null') return '<unknown>';
  const m = RFC3339.exec(timestamp);
  if (!m) return '<invalid>';
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = m[9] ? Number(m[9]) : 0;
  const offsetMinutes = m[10] ? Number(m[10]) : 0;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) {
    return '<invalid>';
  }
  if (offsetHours > 23 || offsetMinutes > 59) return '<invalid>';
  const fractionMs = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const offsetMs = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const instant = date.getTime() + fractionMs - offsetMs;
  // Go's zero time.Time (0001-01-01T00:00:00Z) means "unset".
  if (instant === ZERO_TIME) return '<unknown>';
  return humanDuration(now - instant);
}

const ZERO_TIME = (() => {
  const zero = new Date(0);
  zero.setUTCFullYear(1, 0, 1);
  zero.setUTCHours(0, 0, 0, 0);
  return zero.getTime();
})();

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
