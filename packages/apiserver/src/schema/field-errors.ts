// Field-level causes worded exactly like k8s.io/apimachinery's field.Error.ErrorBody(), including the Go
// formatting of the offending value (%q for strings, %v for numbers, %#v for maps and lists), because
// kubectl prints these messages verbatim and users and tests compare them with real clusters.
import type { StatusCause } from '../errors.ts';

/** Go's strconv.Quote for the characters JSON values can contain. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if ((c >= 0x80 && c < 0xa0) || c === 0x2028 || c === 0x2029 || c === 0xfeff)
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** Go's %v for a float64: strconv 'g' with the shortest digits, exponent form when exp < -4 || exp >= 6 (1e6 → "1e+06"). */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

/** A JSON number as Go sees it after decoding into unstructured content: integers are int64, the rest float64. */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? String(n) : goFloat(n);
}

/** Go's %#v of an unstructured JSON value (map[string]interface {}, []interface {}, string, int64, float64, bool). */
export function goSyntax(v: unknown, nested = false): string {
  if (v === null || v === undefined) return nested ? 'interface {}(nil)' : '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'bigint') return String(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, true)).join(', ')}}`;
  if (typeof v === 'object') {
    const keys = Object.keys(v as object).sort();
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax((v as Record<string, unknown>)[k], true)}`).join(', ')}}`;
  }
  return String(v);
}

/** The bad-value part of ErrorBody: %q for strings, %v for scalars, %#v otherwise, "null" for nil. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return goSyntax(v);
}

/** A value that is already rendered (e.g. a typed Go struct we cannot reproduce byte for byte). */
export class RenderedValue {
  constructor(readonly text: string) {}
}

function body(kind: string, value: unknown, detail: string): string {
  const shown = value instanceof RenderedValue ? value.text : goValue(value);
  return detail ? `${kind}: ${shown}: ${detail}` : `${kind}: ${shown}`;
}

function withDetail(kind: string, detail: string): string {
  return detail ? `${kind}: ${detail}` : kind;
}

export const fieldError = {
  required: (field: string, detail = ''): StatusCause => ({
    reason: 'FieldValueRequired',
    message: withDetail('Required value', detail),
    field,
  }),
  forbidden: (field: string, detail: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    message: withDetail('Forbidden', detail),
    field,
  }),
  invalid: (field: string, value: unknown, detail: string): StatusCause => ({
    reason: 'FieldValueInvalid',
    message: body('Invalid value', value, detail),
    field,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): StatusCause => ({
    reason: 'FieldValueTypeInvalid',
    message: body('Invalid value', value, detail),
    field,
  }),
  notSupported: (field: string, value: unknown, supported: string[]): StatusCause => ({
    reason: 'FieldValueNotSupported',
    message: body(
      'Unsupported value',
      value,
      supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
    ),
    field,
  }),
  duplicate: (field: string, value: unknown): StatusCause => ({
    reason: 'FieldValueDuplicate',
    message: body('Duplicate value', value, ''),
    field,
  }),
  /** field.TooLongMaxLength */
  tooLong: (field: string, maxLength: number): StatusCause => ({
    reason: 'FieldValueTooLong',
    message: maxLength >= 0 ? `Too long: may not be longer than ${maxLength}` : 'Too long: value is too long',
    field,
  }),
  /** field.TooLong with a byte limit, as kube's OpenAPI schema validation reports maxLength */
  tooLongBytes: (field: string, maxLength: number): StatusCause => ({
    reason: 'FieldValueTooLong',
    message: `Too long: may not be more than ${maxLength} bytes`,
    field,
  }),
  tooMany: (field: string, actual: number, max: number): StatusCause => ({
    reason: 'FieldValueTooMany',
    message: `${actual >= 0 ? `Too many: ${actual}` : 'Too many'}: ${max >= 0 ? `must have at most ${max} items` : 'has too many items'}`,
    field,
  }),
};

/** field.Path rendering helpers: `a.b`, `a[0]`, `a[key]`. */
export const fieldPath = {
  child: (parent: string, name: string) => (parent ? `${parent}.${name}` : name),
  index: (parent: string, i: number) => `${parent}[${i}]`,
  key: (parent: string, k: string) => `${parent}[${k}]`,
};
