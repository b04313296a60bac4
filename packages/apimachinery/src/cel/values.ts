// Equality and ordering of CEL runtime values as cel-js represents them (bigint int, UnsignedInt, number
// double, string, boolean, Uint8Array bytes, Date timestamp, Duration, arrays, plain-object or Map maps),
// for the library functions that compare elements (list min/max/isSorted/indexOf, sets.*).

import { EvaluationError } from '@marcbachmann/cel-js';

function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && v.constructor?.name === 'UnsignedInt')
    return (v as { valueOf(): bigint }).valueOf();
  return undefined;
}

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.NaN;
  return x < y ? -1 : x > y ? 1 : 0;
}

function entriesOf(v: unknown): [unknown, unknown][] | undefined {
  if (v instanceof Map) return [...v.entries()];
  if (typeof v === 'object' && v !== null && (v.constructor === Object || v.constructor === undefined))
    return Object.entries(v);
  return undefined;
}

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb) === 0;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof (a as { equals?: unknown }).equals === 'function') return (a as { equals(o: unknown): boolean }).equals(b);
  const ea = entriesOf(a);
  const eb = entriesOf(b);
  if (ea && eb) {
    if (ea.length !== eb.length) return false;
    const mb = new Map(eb);
    return ea.every(([k, v]) => mb.has(k) && celEquals(v, mb.get(k)));
  }
  return a.valueOf() === b.valueOf();
}

/** -1/0/1 for two comparable CEL values; throws when CEL defines no ordering between them */
export function celCompare(a: unknown, b: unknown): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  if (typeof a === 'object' && a !== null && typeof (a as { cmp?: unknown }).cmp === 'function') {
    return (a as { cmp(o: unknown): number }).cmp(b);
  }
  if (a?.constructor?.name === 'Duration' && b?.constructor?.name === 'Duration') {
    return Math.sign(Number(a.valueOf()) - Number(b.valueOf()));
  }
  throw new EvaluationError(`no such overload: cannot compare ${describe(a)} and ${describe(b)}`);
}

export function describe(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'google.protobuf.Timestamp';
  if (typeof v === 'object' && v !== null)
    return v.constructor?.name === 'Object' ? 'map' : (v.constructor?.name ?? 'map');
  return typeof v;
}
