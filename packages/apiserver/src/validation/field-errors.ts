// Field errors shaped exactly like k8s.io/apimachinery/pkg/util/validation/field: kube-apiserver turns each
// field.Error into a StatusCause {reason: <ErrorType>, message: <ErrorBody>, field: <path>}, and clients print
// `<field>: <message>`. The value inside the message is rendered the way Go's fmt renders it (%q for strings,
// %v for numbers and bools, %#v for slices), because users compare these strings with real clusters.
import type { StatusCause } from '../errors.ts';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** A value already rendered the Go way (used for structs and slices, whose Go rendering we spell out by hand). */
export class GoRendered {
  constructor(readonly text: string) {}
}

/** Go's strconv.Quote: printable Unicode is kept, control characters are escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if ((cp >= 0x80 && cp < 0xa0) || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp < 0xe000))
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %#v of a []string (a nil slice prints as `[]string(nil)`). */
export function goStringSlice(values: readonly string[] | undefined | null): GoRendered {
  if (!values || values.length === 0) return new GoRendered(values ? '[]string{}' : '[]string(nil)');
  return new GoRendered(`[]string{${values.map(goQuote).join(', ')}}`);
}

/** field.Error.ErrorBody(): the cause message without the field path. */
export function errorBody(type: FieldErrorType, value: unknown, detail: string): string {
  let s: string;
  if (
    type === 'FieldValueRequired' ||
    type === 'FieldValueForbidden' ||
    type === 'FieldValueTooLong' ||
    type === 'InternalError' ||
    value === omitValue
  ) {
    s = typeText[type];
  } else {
    s = `${typeText[type]}: ${renderValue(value)}`;
  }
  return detail ? `${s}: ${detail}` : s;
}

/** Marker for errors whose value must not be printed (Go's omitValue). */
export const omitValue = Symbol('omitValue');

function renderValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof GoRendered) return value.text;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return goStringSlice(value).text;
  return JSON.stringify(value);
}

function make(type: FieldErrorType, field: string, value: unknown, detail: string): StatusCause {
  return { reason: type, message: errorBody(type, value, detail), field };
}

export const fieldErrors = {
  invalid: (field: string, value: unknown, detail: string) => make('FieldValueInvalid', field, value, detail),
  required: (field: string, detail = '') => make('FieldValueRequired', field, '', detail),
  forbidden: (field: string, detail: string) => make('FieldValueForbidden', field, '', detail),
  duplicate: (field: string, value: unknown) => make('FieldValueDuplicate', field, value, ''),
  notFound: (field: string, value: unknown) => make('FieldValueNotFound', field, value, ''),
  typeInvalid: (field: string, value: unknown, detail: string) => make('FieldValueTypeInvalid', field, value, detail),
  /** field.TooLong: the value is never printed */
  tooLong: (field: string, maxBytes: number) =>
    make('FieldValueTooLong', field, '', `must have at most ${maxBytes} bytes`),
  tooMany: (field: string, actual: number, max: number) =>
    make('FieldValueTooMany', field, actual, `must have at most ${max} items`),
  notSupported: (field: string, value: unknown, supported: readonly string[]) =>
    make(
      'FieldValueNotSupported',
      field,
      value,
      supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
    ),
  internal: (field: string, detail: string) => make('InternalError', field, null, detail),
};

/** How Go prints a nil *field.Path (label selector parse errors carry it). */
export const NIL_PATH = '<nil>';

/** field.Error.Error(): `<path>: <body>`. */
export function causeString(cause: StatusCause): string {
  return `${cause.field}: ${cause.message}`;
}

/**
 * utilerrors.Aggregate.Error(): one message alone, several (deduplicated) as `[a, b]`.
 * Returns '' for an empty list.
 */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return '';
  if (unique.length === 1) return unique[0]!;
  return `[${unique.join(', ')}]`;
}
