// go-yaml v2's implicit typing of plain scalars (resolve.go): a string is written unquoted only when reading
// it back plain gives the same string, not a bool (YAML 1.1: y, yes, on…), null, number or timestamp.

const KEYWORDS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);

/** go-yaml's resolveTable: the first character decides which interpretations are tried. */
function hintOf(s: string): 'S' | 'D' | 'M' | '.' | undefined {
  const c = s[0];
  if (c === undefined) return 'M';
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~<'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** strconv.ParseInt(s, 0, 64) (or ParseUint when `unsigned`) succeeds. */
function goParsesInt(s: string, unsigned: boolean): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  if (unsigned && m[1]) return false;
  const body = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(body)) v = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) v = BigInt(`0o${body.slice(1)}`);
  else v = BigInt(body);
  if (m[1] === '-') v = -v;
  return unsigned ? v < 2n ** 64n : v >= -(2n ** 63n) && v < 2n ** 63n;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** go-yaml's parseTimestamp: the formats it hands to time.Parse, with Go's range checks. */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?)?$/.exec(
      s,
    );
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > (month === 2 && !leap ? 28 : DAYS[month - 1]!)) return false;
  const [h, min, sec] = m[4] !== undefined ? [m[4], m[5], m[6]] : [m[9], m[10], m[11]];
  if (h !== undefined && (Number(h) > 23 || Number(min) > 59 || Number(sec) > 59)) return false;
  if (m[7] !== undefined && (Number(m[7]) > 24 || Number(m[8]) > 60)) return false;
  return true;
}

/** Whether go-yaml would write `s` as a plain scalar as far as typing goes (the emitter may still quote it). */
export function plainResolvesToString(s: string): boolean {
  const hint = hintOf(s);
  if (hint !== undefined) {
    if (KEYWORDS.has(s)) return false;
    if (hint === '.' && /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s)) return false;
    if (hint === 'D' || hint === 'S') {
      if (hint === 'D' && isTimestamp(s)) return false;
      const plain = s.replace(/_/g, '');
      if (goParsesInt(plain, false) || goParsesInt(plain, true) || YAML_STYLE_FLOAT.test(plain)) return false;
      if (/^-?0b[01]+$/.test(plain)) return false;
    }
  }
  const c = s[0];
  const base60 =
    c !== undefined && (c === '+' || c === '-' || (c >= '0' && c <= '9')) && s.includes(':') && BASE60_FLOAT.test(s);
  return !base60;
}
