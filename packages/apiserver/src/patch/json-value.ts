// JSON value helpers shared by the patch and apply code: equality, cloning, and the two Go renderings
// kube-apiserver's output depends on — encoding/json text (sorted keys, HTML-escaped strings), which
// appears inside fieldsV1 keys and the last-applied annotation, and fmt's %v, which appears in the
// messages of strategic-merge-patch errors.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(o: object, k: string): boolean {
  return Object.hasOwn(o, k);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

const HTML_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** A string as Go's encoding/json writes it (it escapes <, >, & and the JS line separators). */
export function goQuote(s: string): string {
  // Printable ASCII other than `"`, `\`, `<`, `>` and `&` is written as is by both encoders; keys and
  // values in managedFields almost always are, so they skip JSON.stringify and the escape scan.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26)
      return quoteEscaped(s);
  }
  return `"${s}"`;
}

function quoteEscaped(s: string): string {
  const q = JSON.stringify(s);
  return HTML_UNSAFE.test(q) ? q.replace(HTML_UNSAFE_ALL, (c) => HTML_ESCAPES[c]!) : q;
}
const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;

/** Compact JSON as Go's encoding/json (and jsoniter's std-compatible config) writes it: map keys sorted. */
export function goJson(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  const keys = Object.keys(v).sort(compareStrings);
  return `{${keys.map((k) => `${goQuote(k)}:${goJson(v[k]!)}`).join(',')}}`;
}

/** Byte-wise string order (Go's strings.Compare on UTF-8), which differs from UTF-16 order only for astral code points. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Without a surrogate where they first differ (or just before the end of a common prefix), code
  // unit order is code point order; only strings with astral characters need the slow walk.
  if (i < n) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if ((ca & 0xf800) !== 0xd800 && (cb & 0xf800) !== 0xd800) return ca < cb ? -1 : 1;
  } else if (i === 0 || (a.charCodeAt(i - 1) & 0xfc00) !== 0xd800) return a.length < b.length ? -1 : 1;
  return compareCodePoints(a, b);
}

function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(i)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    if (ca > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Go's fmt %v of a decoded JSON value (map[k:v], [a b], <nil>), used verbatim in kube error messages. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goFormat).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort(compareStrings);
    return `map[${keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ')}]`;
  }
  return String(v);
}

/** Go's %q of a string, which matches JSON quoting for the text kube prints. */
export function goQuoteString(s: string): string {
  return JSON.stringify(s);
}

function rank(v: Json): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

/** structured-merge-diff's total order on values: numbers < strings < booleans < lists < maps < null. */
export function compareValues(a: Json, b: Json): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (typeof a === 'number') return a === b ? 0 : a < (b as number) ? -1 : 1;
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const bl = b as Json[];
    for (let i = 0; i < Math.min(a.length, bl.length); i++) {
      const c = compareValues(a[i]!, bl[i]!);
      if (c !== 0) return c;
    }
    return a.length === bl.length ? 0 : a.length < bl.length ? -1 : 1;
  }
  if (isObject(a)) return compareStrings(goJson(a), goJson(b as JsonObject));
  return 0;
}

/** SMD's value.ToString, used when a path is printed in a conflict: strings quoted, others bare. */
export function valueToString(v: Json): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return goQuoteString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(', ')}]`;
  const keys = Object.keys(v).sort(compareStrings);
  return `{${keys.map((k) => `${k}=${valueToString(v[k]!)}`).join(', ')}}`;
}
