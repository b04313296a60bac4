/**
 * Go's ways of turning values into text, as kubectl applies them to JSONPath results:
 * - encoding/json for maps and lists (sorted keys, HTML-safe escapes, int64 vs float64 numbers),
 * - fmt's %v for scalars (floats as %g with Go's exponent rules: 1.2345675e+06, 1e-05),
 * - fmt's %v for whole values in error messages (map[a:1 b:[x y]]).
 *
 * Data numbers are Go int64 when they are integers within int64 range (kubectl decodes JSON integers as int64) and
 * float64 otherwise.
 */
import { GoByte, GoFloat, GoScalar, NO_VALUE } from './ast.ts';

const TWO_63 = 2 ** 63;

/** True when kubectl would hold this JSON number as int64 rather than float64. */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && n >= -TWO_63 && n < TWO_63;
}

function formatInt(n: number): string {
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** fmt %v of a float64: strconv 'g' with the shortest digits, switching to an exponent below 1e-4 or from 1e+06. */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = (negative ? mantissa.slice(1) : mantissa).replace('.', '');
  const exp = Number(expText);
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits[0]}${fraction}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fraction = digits.slice(exp + 1);
  return fraction ? `${sign}${intPart}.${fraction}` : `${sign}${intPart}`;
}

/** Text client-go's PrintResults writes for one result: JSON for maps and lists, fmt %v for the rest. */
export function resultText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return isGoInt(v) ? formatInt(v) : formatGoFloat(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      if (v === null) return 'null';
      if (v instanceof GoScalar) return v instanceof GoFloat ? formatGoFloat(v.value) : String(v.value);
      return goJson(v);
    case 'symbol':
      return v === NO_VALUE ? '<no value>' : String(v.description);
    case 'bigint':
      return v.toString();
    default:
      return 'null';
  }
}

/** encoding/json Marshal of a JSON-like value. */
export function goJson(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return goJsonString(v);
    case 'number':
      if (!Number.isFinite(v)) return 'null';
      return isGoInt(v) ? formatInt(v) : String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'object': {
      if (v === null) return 'null';
      if (v instanceof GoScalar) return String(v.value);
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + goJson(v[i]);
        return `${out}]`;
      }
      const map = v as Record<string, unknown>;
      let out = '{';
      let first = true;
      for (const key of sortedKeys(map)) {
        out += `${first ? '' : ','}${goJsonString(key)}:${goJson(map[key])}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return 'null';
  }
}

/** fmt %v of a whole value, as it appears in client-go error messages. */
export function goFormatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (v === NO_VALUE) return '<invalid reflect.Value>';
  if (typeof v === 'object') {
    if (v instanceof GoScalar) return resultText(v);
    if (Array.isArray(v)) return `[${v.map(goFormatValue).join(' ')}]`;
    const map = v as Record<string, unknown>;
    return `map[${sortedKeys(map)
      .map((key) => `${key}:${goFormatValue(map[key])}`)
      .join(' ')}]`;
  }
  return resultText(v);
}

/** Go type name of a value as client-go prints it in `... is not array or slice`. */
export function goTypeName(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return isGoInt(v) ? 'int64' : 'float64';
    case 'boolean':
      return 'bool';
    case 'object':
      if (v === null) return 'interface {}';
      if (v instanceof GoByte) return 'uint8';
      if (v instanceof GoFloat) return 'float64';
      return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

/** Keys with a defined value, in Go's map order for encoding/json and fmt: byte-wise UTF-8 order. */
export function sortedKeys(map: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const key of Object.keys(map)) if (map[key] !== undefined) keys.push(key);
  return keys.length > 1 ? keys.sort(compareUtf8) : keys;
}

/** Orders strings by code point, which is UTF-8 byte order (JS's default compares UTF-16 code units). */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) return utf8Rank(ca) - utf8Rank(cb);
  }
  return a.length - b.length;
}

/** Surrogates encode code points above U+FFFF, so they must sort after U+E000..U+FFFF. */
function utf8Rank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

// Characters encoding/json escapes: quote, backslash, controls, HTML-sensitive <>&, U+2028/2029, lone surrogates.
const JSON_ESCAPE_NEEDED = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const HEX = '0123456789abcdef';

export function goJsonString(s: string): string {
  if (!JSON_ESCAPE_NEEDED.test(s)) return `"${s}"`;
  let out = '"';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let replacement: string;
    if (c < 0x20) {
      replacement = CONTROL_ESCAPES[c] ?? `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    } else if (c === 0x22) {
      replacement = '\\"';
    } else if (c === 0x5c) {
      replacement = '\\\\';
    } else if (c === 0x3c) {
      replacement = '\\u003c';
    } else if (c === 0x3e) {
      replacement = '\\u003e';
    } else if (c === 0x26) {
      replacement = '\\u0026';
    } else if (c === 0x2028 || c === 0x2029) {
      replacement = c === 0x2028 ? '\\u2028' : '\\u2029';
    } else if (c >= 0xd800 && c < 0xe000) {
      const next = s.charCodeAt(i + 1);
      if (c < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        i++;
        continue;
      }
      replacement = '\\ufffd';
    } else {
      continue;
    }
    out += s.slice(last, i) + replacement;
    last = i + 1;
  }
  return `${out + s.slice(last)}"`;
}

const CONTROL_ESCAPES: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
