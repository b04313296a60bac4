/**
 * Filter comparisons with the semantics of client-go's forked text/template funcs (Equal, Less, ...):
 * only bool, int, uint, float and string compare; mixing int64 data with a float literal (or 1.5 with 1) is
 * `incompatible types for comparison`; ordering bools is `invalid type for comparison`.
 */
import { GoByte, GoFloat } from './ast.ts';
import { EvalFailure } from './errors.ts';
import { compareUtf8, isGoInt } from './go-format.ts';

const Kind = { Bool: 0, Int: 1, Uint: 2, Float: 3, String: 4 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

const BAD_TYPE = 'invalid type for comparison';
const INCOMPATIBLE = 'incompatible types for comparison';

/** Applies a filter operator; throws EvalFailure (partial = results so far) on an unsupported operator or types. */
export function compareValues(operator: string, left: unknown, right: unknown, partial: readonly unknown[]): boolean {
  // Fast path for the common `[?(@.type=="Ready")]`.
  if (operator === '==' && typeof left === 'string' && typeof right === 'string') return left === right;
  let outcome: boolean | string;
  switch (operator) {
    case '==':
      outcome = equal(left, right);
      break;
    case '!=':
      outcome = negate(equal(left, right));
      break;
    case '<':
      outcome = less(left, right);
      break;
    case '>':
      // Go: Greater = !LessEqual, where LessEqual = Less || Equal.
      outcome = negate(lessOrEqual(left, right));
      break;
    case '<=':
      outcome = lessOrEqual(left, right);
      break;
    case '>=':
      outcome = negate(less(left, right));
      break;
    default:
      outcome = `unrecognized filter operator ${operator}`;
  }
  if (typeof outcome === 'string') throw new EvalFailure(outcome, partial);
  return outcome;
}

function negate(outcome: boolean | string): boolean | string {
  return typeof outcome === 'string' ? outcome : !outcome;
}

function lessOrEqual(left: unknown, right: unknown): boolean | string {
  const lt = less(left, right);
  return lt === false ? equal(left, right) : lt;
}

function kindOf(v: unknown): Kind | undefined {
  switch (typeof v) {
    case 'string':
      return Kind.String;
    case 'boolean':
      return Kind.Bool;
    case 'number':
      return isGoInt(v) ? Kind.Int : Kind.Float;
    case 'object':
      if (v instanceof GoFloat) return Kind.Float;
      if (v instanceof GoByte) return Kind.Uint;
      return undefined;
    default:
      return undefined;
  }
}

function scalar(v: unknown): number | string | boolean {
  return v instanceof GoFloat || v instanceof GoByte ? v.value : (v as number | string | boolean);
}

/** Go's Equal: a boolean, or the error message when the values cannot be compared. */
function equal(left: unknown, right: unknown): boolean | string {
  const k1 = kindOf(left);
  if (k1 === undefined) return BAD_TYPE;
  const k2 = kindOf(right);
  if (k2 === undefined) return BAD_TYPE;
  const a = scalar(left);
  const b = scalar(right);
  if (k1 !== k2) {
    // Go compares signed and unsigned integers by value; every other mix is an error.
    if ((k1 === Kind.Int && k2 === Kind.Uint) || (k1 === Kind.Uint && k2 === Kind.Int)) return a === b;
    return INCOMPATIBLE;
  }
  return a === b;
}

/** Go's Less: a boolean, or the error message when the values cannot be ordered. */
function less(left: unknown, right: unknown): boolean | string {
  const k1 = kindOf(left);
  if (k1 === undefined) return BAD_TYPE;
  const k2 = kindOf(right);
  if (k2 === undefined) return BAD_TYPE;
  const a = scalar(left);
  const b = scalar(right);
  if (k1 !== k2) {
    if ((k1 === Kind.Int && k2 === Kind.Uint) || (k1 === Kind.Uint && k2 === Kind.Int)) return a < b;
    return INCOMPATIBLE;
  }
  if (k1 === Kind.Bool) return BAD_TYPE;
  if (k1 === Kind.String) return compareUtf8(a as string, b as string) < 0;
  return a < b;
}
