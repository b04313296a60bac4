// Kubernetes' CEL list library (isSorted, sum, min, max, indexOf, lastIndexOf), the cel-go lists extension
// functions kube enables (slice, flatten, reverse, distinct, sort) and the sets library (sets.contains,
// sets.equivalent, sets.intersects). Receivers are typed `list` so they accept the dyn lists that come out of
// JSON objects; element types are checked at run time.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { charge } from './limits.ts';
import { celCompare, celEquals, describe } from './values.ts';

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;

export function listSum(list: unknown[]): unknown {
  charge(1 + list.length);
  if (list.length === 0) return 0n;
  if (list.every((v) => typeof v === 'bigint')) {
    let total = 0n;
    for (const v of list as bigint[]) {
      total += v;
      if (total > MAX_INT || total < MIN_INT) throw new EvaluationError('integer overflow');
    }
    return total;
  }
  if (list.every((v) => typeof v === 'number')) return (list as number[]).reduce((a, b) => a + b, 0);
  throw new EvaluationError(
    `no such overload: sum() over list of ${describe(list.find((v) => typeof v !== 'bigint'))}`,
  );
}

function extreme(list: unknown[], name: string, better: (c: number) => boolean): unknown {
  charge(1 + list.length);
  if (list.length === 0) throw new EvaluationError(`${name} called on empty list`);
  let best = list[0];
  for (let i = 1; i < list.length; i++) if (better(celCompare(list[i], best))) best = list[i];
  return best;
}

export function listIsSorted(list: unknown[]): boolean {
  charge(1 + list.length);
  for (let i = 1; i < list.length; i++) if (celCompare(list[i - 1], list[i]) > 0) return false;
  return true;
}

export function listIndexOf(list: unknown[], v: unknown): bigint {
  charge(1 + list.length);
  return BigInt(list.findIndex((x) => celEquals(x, v)));
}

export function listLastIndexOf(list: unknown[], v: unknown): bigint {
  charge(1 + list.length);
  return BigInt(list.findLastIndex((x) => celEquals(x, v)));
}

export function listSlice(list: unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n)
    throw new EvaluationError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end)
    throw new EvaluationError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (end > BigInt(list.length))
    throw new EvaluationError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  charge(1 + Number(end - start));
  return list.slice(Number(start), Number(end));
}

export function listFlatten(list: unknown[], depth = 1n): unknown[] {
  if (depth < 0n) throw new EvaluationError('level must be non-negative');
  let out = list;
  for (let d = 0n; d < depth; d++) {
    charge(1 + out.length);
    out = out.flatMap((x) => (Array.isArray(x) ? x : [x]));
  }
  return out;
}

export function listDistinct(list: unknown[]): unknown[] {
  charge(1 + list.length * list.length);
  const out: unknown[] = [];
  for (const v of list) if (!out.some((x) => celEquals(x, v))) out.push(v);
  return out;
}

export function listSort(list: unknown[]): unknown[] {
  charge(1 + list.length * Math.ceil(Math.log2(list.length + 1)));
  return [...list].sort(celCompare);
}

function setsContains(a: unknown[], b: unknown[]): boolean {
  charge(1 + a.length * b.length);
  return b.every((x) => a.some((y) => celEquals(x, y)));
}

function setsIntersects(a: unknown[], b: unknown[]): boolean {
  charge(1 + a.length * b.length);
  return b.some((x) => a.some((y) => celEquals(x, y)));
}

/** receiver for `sets.contains(...)`: cel-js resolves `sets` as a constant of this type */
class CelSetsNamespace {}

export function registerListsLibrary(env: Environment): void {
  env.registerFunction('list.sum(): dyn', listSum);
  env.registerFunction('list.min(): dyn', (l: unknown[]) => extreme(l, 'min', (c) => c < 0));
  env.registerFunction('list.max(): dyn', (l: unknown[]) => extreme(l, 'max', (c) => c > 0));
  env.registerFunction('list.isSorted(): bool', listIsSorted);
  env.registerFunction('list.indexOf(dyn): int', listIndexOf);
  env.registerFunction('list.lastIndexOf(dyn): int', listLastIndexOf);
  env.registerFunction('list.slice(int, int): list', listSlice);
  env.registerFunction('list.flatten(): list', (l: unknown[]) => listFlatten(l));
  env.registerFunction('list.flatten(int): list', listFlatten);
  env.registerFunction('list.reverse(): list', (l: unknown[]) => {
    charge(1 + l.length);
    return [...l].reverse();
  });
  env.registerFunction('list.distinct(): list', listDistinct);
  env.registerFunction('list.sort(): list', listSort);

  env.registerType('CelSetsNamespace', CelSetsNamespace);
  env.registerConstant('sets', 'CelSetsNamespace', new CelSetsNamespace());
  env.registerFunction('CelSetsNamespace.contains(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) =>
    setsContains(a, b),
  );
  env.registerFunction(
    'CelSetsNamespace.equivalent(list, list): bool',
    (_: unknown, a: unknown[], b: unknown[]) => setsContains(a, b) && setsContains(b, a),
  );
  env.registerFunction('CelSetsNamespace.intersects(list, list): bool', (_: unknown, a: unknown[], b: unknown[]) =>
    setsIntersects(a, b),
  );
}
