/**
 * client-go's UnquoteExtend: strconv.Unquote rules (Go escape sequences) for strings in single or double quotes,
 * where single quotes may hold any number of characters. Returns undefined where Go reports `invalid syntax`.
 */
const utf8Decoder = new TextDecoder('utf-8');

export function unquoteExtend(quoted: string): string | undefined {
  const n = quoted.length;
  if (n < 2) return undefined;
  const quote = quoted.charCodeAt(0);
  if (quote !== quoted.charCodeAt(n - 1) || (quote !== 0x22 && quote !== 0x27)) return undefined;
  const s = quoted.slice(1, -1);
  if (!s.includes('\\') && !s.includes(quoted[0]!)) return s;

  // Go builds a byte string: \x and octal escapes insert raw bytes, everything else is UTF-8 encoded.
  const bytes: number[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === quote) return undefined;
    if (c >= 0x80) {
      const cp = s.codePointAt(i)!;
      pushUtf8(bytes, cp);
      i += cp > 0xffff ? 2 : 1;
    } else if (c !== 0x5c) {
      bytes.push(c);
      i++;
    } else {
      const next = unescapeAt(s, i + 1, quote, bytes);
      if (next === undefined) return undefined;
      i = next;
    }
  }
  return utf8Decoder.decode(Uint8Array.from(bytes));
}

const SIMPLE_ESCAPES: Record<string, number> = {
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  '\\': 0x5c,
};

/** the escape whose letter is at s[at] (after a backslash): its bytes pushed, the index after it, or undefined */
function unescapeAt(s: string, at: number, quote: number, bytes: number[]): number | undefined {
  if (at >= s.length) return undefined;
  const escaped = s[at]!;
  const i = at + 1;
  const simple = SIMPLE_ESCAPES[escaped];
  if (simple !== undefined) {
    bytes.push(simple);
    return i;
  }
  if (escaped === 'x' || escaped === 'u' || escaped === 'U') return hexEscape(s, i, escaped, bytes);
  if (escaped >= '0' && escaped <= '7') return octalEscape(s, i, escaped, bytes);
  if ((escaped === "'" || escaped === '"') && escaped.charCodeAt(0) === quote) {
    bytes.push(quote);
    return i;
  }
  return undefined;
}

/** \xHH (a raw byte), \uHHHH and \UHHHHHHHH (a code point, UTF-8 encoded) */
function hexEscape(s: string, i: number, escaped: 'x' | 'u' | 'U', bytes: number[]): number | undefined {
  const digits = escaped === 'x' ? 2 : escaped === 'u' ? 4 : 8;
  if (i + digits > s.length) return undefined;
  let v = 0;
  for (let j = 0; j < digits; j++) {
    const h = hexValue(s.charCodeAt(i + j));
    if (h < 0) return undefined;
    v = v * 16 + h;
  }
  if (escaped === 'x') bytes.push(v);
  else if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return undefined;
  else pushUtf8(bytes, v);
  return i + digits;
}

/** \OOO: three octal digits, one raw byte up to 255 */
function octalEscape(s: string, i: number, first: string, bytes: number[]): number | undefined {
  if (i + 2 > s.length) return undefined;
  let v = first.charCodeAt(0) - 0x30;
  for (let j = 0; j < 2; j++) {
    const d = s.charCodeAt(i + j) - 0x30;
    if (d < 0 || d > 7) return undefined;
    v = v * 8 + d;
  }
  if (v > 255) return undefined;
  bytes.push(v);
  return i + 2;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function pushUtf8(bytes: number[], cp: number): void {
  if (cp < 0x80) {
    bytes.push(cp);
  } else if (cp < 0x800) {
    bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  } else {
    bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
}
