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
      continue;
    }
    if (c !== 0x5c) {
      bytes.push(c);
      i++;
      continue;
    }
    if (i + 1 >= s.length) return undefined;
    const escaped = s[i + 1]!;
    i += 2;
    switch (escaped) {
      case 'a':
        bytes.push(0x07);
        break;
      case 'b':
        bytes.push(0x08);
        break;
      case 'f':
        bytes.push(0x0c);
        break;
      case 'n':
        bytes.push(0x0a);
        break;
      case 'r':
        bytes.push(0x0d);
        break;
      case 't':
        bytes.push(0x09);
        break;
      case 'v':
        bytes.push(0x0b);
        break;
      case 'x':
      case 'u':
      case 'U': {
        const digits = escaped === 'x' ? 2 : escaped === 'u' ? 4 : 8;
        if (i + digits > s.length) return undefined;
        let v = 0;
        for (let j = 0; j < digits; j++) {
          const h = hexValue(s.charCodeAt(i + j));
          if (h < 0) return undefined;
          v = v * 16 + h;
        }
        i += digits;
        if (escaped === 'x') {
          bytes.push(v);
        } else {
          if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) return undefined;
          pushUtf8(bytes, v);
        }
        break;
      }
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        if (i + 2 > s.length) return undefined;
        let v = escaped.charCodeAt(0) - 0x30;
        for (let j = 0; j < 2; j++) {
          const d = s.charCodeAt(i + j) - 0x30;
          if (d < 0 || d > 7) return undefined;
          v = v * 8 + d;
        }
        i += 2;
        if (v > 255) return undefined;
        bytes.push(v);
        break;
      }
      case '\\':
        bytes.push(0x5c);
        break;
      case "'":
      case '"':
        if (escaped.charCodeAt(0) !== quote) return undefined;
        bytes.push(quote);
        break;
      default:
        return undefined;
    }
  }
  return utf8Decoder.decode(Uint8Array.from(bytes));
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
