// The checks kube's custom JSON decoders make on a value, with their Go error text: metav1.Time and
// MicroTime (time.Parse with RFC 3339 layouts), []byte (base64.StdEncoding) and resource.Quantity.
// Each returns the error message, or undefined when Go would accept the value.

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * time.Parse(RFC3339 or RFC3339Micro, value): Go's layout elements in order, failing where Go fails with
 * `parsing time "V" as "LAYOUT": cannot parse "REST" as "ELEM"` or `parsing time "V": month out of range`.
 */
export function goTimeError(value: string, micro: boolean): string | undefined {
  const layout = micro ? RFC3339_MICRO : RFC3339;
  const q = JSON.stringify;
  const cannot = (rest: string, elem: string) =>
    `parsing time ${q(value)} as ${q(layout)}: cannot parse ${q(rest)} as ${q(elem)}`;
  const range = (what: string) => `parsing time ${q(value)}: ${what} out of range`;
  let rest = value;
  const nums: number[] = [];
  // [layout element, digits, range name, max] for the numeric parts; separators are literal prefixes
  const steps: Array<[string, number, string, number] | string> = [
    ['2006', 4, '', 9999],
    '-',
    ['01', 2, 'month', 12],
    '-',
    ['02', 2, '', 99],
    'T',
    ['15', 2, 'hour', 23],
    ':',
    ['04', 2, 'minute', 59],
    ':',
    ['05', 2, 'second', 59],
  ];
  for (const step of steps) {
    if (typeof step === 'string') {
      if (!rest.startsWith(step)) return cannot(rest, step);
      rest = rest.slice(step.length);
      continue;
    }
    const [elem, digits, name, max] = step;
    const part = rest.slice(0, digits);
    if (part.length < digits || ![...part].every(isDigit)) return cannot(rest, elem);
    const n = Number(part);
    rest = rest.slice(digits);
    // the day is checked against its month only once the whole value parsed
    if (name && (n > max || (name === 'month' && n === 0))) return range(name);
    nums.push(n);
  }
  const [year, month, day] = nums as [number, number, number];
  if (micro) {
    if (rest.length < 7 || rest[0] !== '.' || ![...rest.slice(1, 7)].every(isDigit)) return cannot(rest, '.000000');
    rest = rest.slice(7);
  } else if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest[1])) {
    // a fraction the layout does not name is still accepted
    let i = 1;
    while (isDigit(rest[i])) i++;
    rest = rest.slice(i);
  }
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else if (
    rest.length >= 6 &&
    (rest[0] === '+' || rest[0] === '-') &&
    isDigit(rest[1]) &&
    isDigit(rest[2]) &&
    rest[3] === ':' &&
    isDigit(rest[4]) &&
    isDigit(rest[5])
  ) {
    if (Number(rest.slice(1, 3)) > 24 || Number(rest.slice(4, 6)) > 60) return range('time zone offset');
    rest = rest.slice(6);
  } else return cannot(rest, 'Z07:00');
  if (rest !== '') return `parsing time ${q(value)}: extra text: ${q(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return range('day');
  return undefined;
}

const TIME_PARTS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;
const CANONICAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const CANONICAL_MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * How Go re-encodes a time that goTimeError accepted: in UTC, whole seconds for metav1.Time (the fraction is
 * dropped) and six fraction digits for MicroTime (truncated, not rounded). Undefined when it is already so.
 */
export function goTimeCanonical(value: string, micro: boolean): string | undefined {
  if ((micro ? CANONICAL_MICRO_TIME : CANONICAL_TIME).test(value)) return undefined;
  const m = TIME_PARTS.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, fraction = '', zone] = m;
  const t = new Date(0);
  t.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  t.setUTCHours(Number(h), Number(mi), Number(sec), 0);
  if (zone !== 'Z') {
    const sign = zone![0] === '-' ? -1 : 1;
    t.setTime(t.getTime() - sign * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6))) * 60_000);
  }
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const base = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  const out = micro ? `${base}.${fraction.slice(0, 6).padEnd(6, '0')}Z` : `${base}Z`;
  return out === value ? undefined : out;
}

const B64 = /[A-Za-z0-9+/]/;

/** base64.StdEncoding.Decode's CorruptInputError offset (newlines are skipped, padding is required). */
export function goBase64Error(s: string): string | undefined {
  const corrupt = (at: number) => `illegal base64 data at input byte ${at}`;
  const skipNewlines = (i: number) => {
    while (i < s.length && (s[i] === '\n' || s[i] === '\r')) i++;
    return i;
  };
  let si = 0;
  while (si < s.length) {
    for (let j = 0; j < 4; j++) {
      if (si === s.length) {
        if (j === 0) return undefined;
        return corrupt(si - j);
      }
      const c = s[si]!;
      si++;
      if (B64.test(c)) continue;
      if (c === '\n' || c === '\r') {
        j--;
        continue;
      }
      if (c !== '=') return corrupt(si - 1);
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        si = skipNewlines(si);
        if (si === s.length) return corrupt(s.length);
        if (s[si] !== '=') return corrupt(si - 1);
        si++;
      }
      si = skipNewlines(si);
      return si < s.length ? corrupt(si) : undefined;
    }
  }
  return undefined;
}

const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);

/** resource.ParseQuantity's error (the JSON text of a number or the content of a string). */
export function goQuantityError(text: string): string | undefined {
  const m = QUANTITY_SHAPE.exec(text.trim());
  // (the shape admits several dots; kube's parser stops at the second and finds no valid suffix there)
  if (!m || m[1]!.indexOf('.') !== m[1]!.lastIndexOf('.')) return QUANTITY_FORMAT;
  const suffix = m[2]!;
  if (!SUFFIXES.has(suffix) && !/^[eE][-+]?[0-9]+$/.test(suffix)) return "unable to parse quantity's suffix";
  return undefined;
}
