// String formats a CRD schema can declare. kube-apiserver validates the go-openapi formats it lists as
// supported (apiextensions-apiserver validation/formats.go) and silently ignores every other format; the
// checkers below follow the Go parsers those formats are defined by (net.ParseIP, net.ParseCIDR,
// net.ParseMAC, url.ParseRequestURI, time.ParseDuration, strfmt's regexes).
import { isIPv4, isIPv6 } from 'node:net';
import { isQuantity } from '@modelplane/apimachinery/quantity';

type Check = (s: string) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HOST_LABEL = /^[\p{L}\p{N}\p{S}](?:[\p{L}\p{N}\p{S}-]{0,61}[\p{L}\p{N}\p{S}])?$/u;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:?\d{2})?$/;
const GO_DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const HUMAN_DURATION = /^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$/;
const HUMAN_DURATION_PART = /(\d+)\s*([A-Za-zµ]+)/g;
const HUMAN_UNITS = new Set([
  'ns',
  'us',
  'µs',
  'ms',
  's',
  'sec',
  'secs',
  'second',
  'seconds',
  'm',
  'min',
  'mins',
  'minute',
  'minutes',
  'h',
  'hr',
  'hrs',
  'hour',
  'hours',
  'd',
  'day',
  'days',
  'w',
  'wk',
  'wks',
  'week',
  'weeks',
]);
const MAC_COLON = /^[0-9a-fA-F]{2}(?:([:-])[0-9a-fA-F]{2})+$/;
const MAC_DOT = /^[0-9a-fA-F]{4}(?:\.[0-9a-fA-F]{4})+$/;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m || !isDate(m[1]!)) return false;
  return Number(m[2]) < 24 && Number(m[3]) < 60 && (m[4] === undefined || Number(m[4]) < 60);
}

/** net.ParseIP for the dotted form: four decimal octets, no leading zeros (Go ≥ 1.17). */
function isGoIPv4(s: string): boolean {
  return isIPv4(s) && s.split('.').every((o) => o === '0' || !o.startsWith('0'));
}

function isGoIPv6(s: string): boolean {
  return !s.includes('%') && isIPv6(s);
}

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return false;
  if (isGoIPv4(ip)) return Number(bits) <= 32;
  return isGoIPv6(ip) && Number(bits) <= 128;
}

/** net.ParseMAC: 6, 8 or 20 octets, colon/hyphen separated pairs or dot separated quads. */
function isMac(s: string): boolean {
  let octets = 0;
  if (MAC_COLON.test(s)) octets = (s.length + 1) / 3;
  else if (MAC_DOT.test(s)) octets = ((s.length + 1) / 5) * 2;
  else return false;
  if (MAC_COLON.test(s) && new Set(s.replace(/[0-9a-fA-F]/g, '')).size > 1) return false;
  return octets === 6 || octets === 8 || octets === 20;
}

/** url.ParseRequestURI: an absolute URI (scheme:...) or an absolute path; no spaces or control characters. */
function isUri(s: string): boolean {
  if (s === '' || /[\s\x00-\x1f\x7f]/.test(s)) return false;
  if (s.startsWith('/')) return true;
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(s);
  if (!m) return false;
  const rest = m[2]!;
  if (!rest.startsWith('//')) return true;
  const authority = rest.slice(2).split(/[/?#]/, 1)[0]!;
  const host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
  return /^(\[[0-9a-fA-F:.]+\]|[^[\]]*)(:\d*)?$/.test(host);
}

/** net/mail.ParseAddress for the common forms: `local@domain` and `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const addr = /^[^<>]*<([^<>]+)>$/.exec(s)?.[1] ?? s;
  return /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/.test(addr) && !addr.endsWith('.') && !addr.includes('..');
}

function isHostname(s: string): boolean {
  if (s.length === 0 || s.length > 255) return false;
  return s.split('.').every((label) => HOST_LABEL.test(label));
}

function isDuration(s: string): boolean {
  if (s === '0' || GO_DURATION.test(s)) return true;
  if (!HUMAN_DURATION.test(s)) return false;
  for (const m of s.matchAll(HUMAN_DURATION_PART)) if (!HUMAN_UNITS.has(m[2]!.toLowerCase())) return false;
  return true;
}

function isbn10(d: string): boolean {
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (d[i] === 'X' ? 10 : Number(d[i])) * (10 - i);
  return sum % 11 === 0;
}

function isbn13(d: string): boolean {
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 ? 3 : 1);
  return sum % 10 === 0;
}

const isbnDigits = (s: string) => s.replace(/[\s-]/g, '');

/** The formats kube-apiserver validates, keyed by go-openapi's normalised name (dashes removed). */
const KUBE_FORMATS: Record<string, Check> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: isGoIPv4,
  ipv6: isGoIPv6,
  cidr: isCidr,
  mac: isMac,
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isbn10(isbnDigits(s)) || isbn13(isbnDigits(s)),
  isbn10: (s) => isbn10(isbnDigits(s)),
  isbn13: (s) => isbn13(isbnDigits(s)),
  creditcard: (s) => CREDIT_CARD.test(s.replace(/\D/g, '')),
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(?:25[0-5]|2[0-4]\d|1?\d?\d)\s*,\s*(?:25[0-5]|2[0-4]\d|1?\d?\d)\s*,\s*(?:25[0-5]|2[0-4]\d|1?\d?\d)\s*\)$/.test(
      s,
    ),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** The checker for a string format kube validates, or undefined when kube ignores the format. */
export function kubeStringFormat(format: string | undefined): Check | undefined {
  return format ? KUBE_FORMATS[format.replaceAll('-', '')] : undefined;
}

/**
 * Formats kube-apiserver strips before validating (it never checks them) but that this server enforces
 * because the project's CRDs rely on them: numeric ranges for int32/int64/float/double, and quantity strings.
 */
export const NUMBER_FORMAT_RANGES: Record<string, { type: 'integer' | 'number'; min: number; max: number }> = {
  int32: { type: 'integer', min: -(2 ** 31), max: 2 ** 31 - 1 },
  int64: { type: 'integer', min: -(2 ** 63), max: 2 ** 63 - 1 },
  float: { type: 'number', min: -3.4028234663852886e38, max: 3.4028234663852886e38 },
  double: { type: 'number', min: -Number.MAX_VALUE, max: Number.MAX_VALUE },
};

export function isQuantityString(s: string): boolean {
  return isQuantity(s);
}
