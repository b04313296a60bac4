// Label selector requirements with the semantics of k8s.io/apimachinery/pkg/labels: validation
// (NewRequirement, with kube's aggregated field-error text), matching and the normalised String() form.
import { aggregateMessage, causeString, fieldErrors, goStringSlice } from '../validation/field-errors.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';

/** selection.Operator values, spelled as kube spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

/** A selector string or object kube would reject; `message` is kube's error text (served as a 400). */
export class LabelSelectorError extends Error {}

export const BINARY_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

const INT64 = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(v, 10, 64); undefined when Go would fail. */
function parseInt64(v: string): bigint | undefined {
  if (!INT64.test(v)) return undefined;
  const n = BigInt(v);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * labels.NewRequirement: validates key, operator arity and values, throwing kube's aggregated field errors
 * (paths `key`, `values`, `values[i][key]`).
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(causeString(fieldErrors.invalid('key', key, keyErrs.join('; '))));
  // Go passes a nil slice for an empty list, which %#v prints as []string(nil)
  const asValue = goStringSlice(values.length === 0 ? null : values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        errs.push(
          causeString(fieldErrors.invalid('values', asValue, "for 'in', 'notin' operators, values set can't be empty")),
        );
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(
          causeString(fieldErrors.invalid('values', asValue, 'exact-match compatibility requires one single value')),
        );
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(
          causeString(fieldErrors.invalid('values', asValue, 'values set must be empty for exists and does not exist')),
        );
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(
          causeString(
            fieldErrors.invalid('values', asValue, "for 'Gt', 'Lt' operators, exactly one value is required"),
          ),
        );
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(
            causeString(
              fieldErrors.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
            ),
          );
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0)
      errs.push(causeString(fieldErrors.invalid(`values[${i}][${key}]`, v, valueErrs.join('; '))));
  });
  if (errs.length > 0) throw new LabelSelectorError(aggregateMessage(errs));
  return { key, operator, values: [...values] };
}

function hasValue(r: LabelRequirement, value: string): boolean {
  return r.values.includes(value);
}

export function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const present = labels != null && Object.hasOwn(labels, r.key);
  const value = present ? labels![r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return present && hasValue(r, value!);
    case 'notin':
    case '!=':
      return !present || !hasValue(r, value!);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present || r.values.length !== 1) return false;
      const have = parseInt64(value!);
      const want = parseInt64(r.values[0]!);
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const op = { in: ' in ', notin: ' notin ', '=': '=', '==': '==', '!=': '!=', gt: '>', lt: '<' }[r.operator];
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort(byteOrder).join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${r.key}${op}(${values})` : `${r.key}${op}${values}`;
}
