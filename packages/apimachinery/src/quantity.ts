// Kubernetes resource.Quantity: parse, compare, add and print exactly as k8s.io/apimachinery does, because
// the API server's `quantity` format, CEL's quantity() library and the controllers' resource arithmetic must
// all agree with what kubectl and a real cluster accept and print ('1.5Gi' prints as '1536Mi', '0.1' as '100m').
//
// The value is held exactly as `unscaled × 10^scale` (BigInt mantissa, trailing zeros stripped), never as a
// float. Parsing rounds fractions finer than 1n up (away from zero) and caps BinarySI values at 2^63-1, as
// kube does.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const NANO_SCALE = -9;
const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;
/** largest power-of-ten gap we materialise when aligning two values (keeps '1e999999999' from eating memory) */
const MAX_ALIGN_DIGITS = 10_000;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIX_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

export class QuantityParseError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

function pow10(n: number): bigint {
  if (n > MAX_ALIGN_DIGITS) throw new RangeError(`quantity exponent out of range (10^${n})`);
  return 10n ** BigInt(n);
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** strips trailing decimal zeros into the exponent so equal values share one representation */
function normalize(unscaled: bigint, scale: number): [bigint, number] {
  if (unscaled === 0n) return [0n, 0];
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    scale++;
  }
  return [unscaled, scale];
}

/** divides rounding the magnitude up, as inf.RoundUp does */
function divRoundAwayFromZero(v: bigint, d: bigint): bigint {
  const q = v / d;
  return v % d === 0n ? q : q + (v < 0n ? -1n : 1n);
}

export class Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;

  constructor(unscaled: bigint, scale: number, format: QuantityFormat = 'DecimalSI') {
    [this.unscaled, this.scale] = normalize(unscaled, scale);
    this.format = format;
  }

  static parse(s: string): Quantity {
    return parseQuantity(s);
  }

  static fromInt(v: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(v), 0, format);
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const sa = this.sign();
    const sb = other.sign();
    if (sa !== sb) return sa < sb ? -1 : 1;
    if (sa === 0) return 0;
    // different orders of magnitude decide without materialising huge powers of ten
    const magA = abs(this.unscaled).toString().length + this.scale;
    const magB = abs(other.unscaled).toString().length + other.scale;
    if (magA !== magB) return magA > magB === sa > 0 ? 1 : -1;
    const [a, b] = align(this, other);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** kube's Add: the receiver's format wins unless the receiver is zero */
  add(other: Quantity): Quantity {
    const [a, b, scale] = alignWithScale(this, other);
    return new Quantity(a + b, scale, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    const [a, b, scale] = alignWithScale(this, other);
    return new Quantity(a - b, scale, this.isZero() ? other.format : this.format);
  }

  neg(): Quantity {
    return new Quantity(-this.unscaled, this.scale, this.format);
  }

  isInteger(): boolean {
    if (this.scale < 0) return false;
    if (this.scale > 19) return false;
    const v = this.unscaled * pow10(this.scale);
    return v >= MIN_INT64 && v <= MAX_INT64;
  }

  /** the exact int64 value; throws when the quantity has a fraction or does not fit */
  asInteger(): bigint {
    if (!this.isInteger()) throw new RangeError('cannot convert value to integer');
    return this.unscaled * pow10(this.scale);
  }

  asApproximateFloat(): number {
    return Number(this.unscaled) * 10 ** this.scale;
  }

  /** ceil(value × 10^scale), kube's ScaledValue: Value() is scaledValue(0), MilliValue() is scaledValue(3) */
  scaledValue(scale: number): bigint {
    const shift = this.scale + scale;
    if (shift >= 0) return this.unscaled * pow10(shift);
    const d = pow10(-shift);
    const q = this.unscaled / d;
    return this.unscaled % d !== 0n && this.unscaled > 0n ? q + 1n : q;
  }

  value(): bigint {
    return this.scaledValue(0);
  }

  milliValue(): bigint {
    return this.scaledValue(3);
  }

  /** canonical form, e.g. '1500m', '1536Mi', '1e3', '0' */
  toString(): string {
    if (this.unscaled === 0n) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      const small = this.cmp(Quantity.fromInt(-1024)) > 0 && this.cmp(Quantity.fromInt(1024)) < 0;
      if (small || this.scale < 0) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      let v = this.unscaled * pow10(this.scale);
      let power = 0;
      while (power < BINARY_SUFFIX_BY_POWER.length - 1 && v % 1024n === 0n) {
        v /= 1024n;
        power++;
      }
      return `${v}${BINARY_SUFFIX_BY_POWER[power]}`;
    }
    let mantissa = this.unscaled;
    let exponent = this.scale;
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent--;
    }
    if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
    const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
    return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

function alignWithScale(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.unscaled * pow10(a.scale - scale), b.unscaled * pow10(b.scale - scale), scale];
}

function align(a: Quantity, b: Quantity): [bigint, bigint] {
  const [x, y] = alignWithScale(a, b);
  return [x, y];
}

interface ScannedQuantity {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/** the scanner of apimachinery's parseQuantityString: sign, leading zeros, numerator, '.', denominator, suffix */
function scan(str: string): ScannedQuantity {
  let pos = 0;
  const end = str.length;
  let positive = true;
  if (str[0] === '-') {
    positive = false;
    pos++;
  } else if (str[0] === '+') pos++;

  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };

  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  const num = str.slice(pos, i) || '0';
  pos = i;
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    pos = i;
  }
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) throw new QuantityParseError(str, ERR_FORMAT_WRONG);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

interface SuffixMeaning {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  const dec = DECIMAL_SUFFIXES[suffix];
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = BINARY_SUFFIXES[suffix];
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    const exponent = Number(suffix.slice(1));
    if (Math.abs(exponent) <= 2 ** 31 - 1) return { base: 10, exponent, format: 'DecimalExponent' };
  }
  return undefined;
}

/** ParseQuantity with kube's error messages; throws QuantityParseError */
export function parseQuantity(str: string): Quantity {
  if (typeof str !== 'string' || str.length === 0) throw new QuantityParseError(String(str), ERR_FORMAT_WRONG);
  if (str === '0') return new Quantity(0n, 0, 'DecimalSI');
  const { positive, num, denom, suffix } = scan(str);
  const meaning = interpretSuffix(suffix);
  if (!meaning) throw new QuantityParseError(str, ERR_SUFFIX);
  let format = meaning.format;

  let unscaled = BigInt(num + denom);
  let scale = -denom.length;
  if (meaning.base === 10) scale += meaning.exponent;
  else unscaled <<= BigInt(meaning.exponent);

  if (scale < NANO_SCALE) {
    if (-scale - 9 > MAX_ALIGN_DIGITS) unscaled = unscaled === 0n ? 0n : 1n;
    else unscaled = divRoundAwayFromZero(unscaled, pow10(NANO_SCALE - scale));
    scale = NANO_SCALE;
  }
  if (format === 'BinarySI') {
    const q = new Quantity(unscaled, scale);
    if (q.cmp(Quantity.fromInt(MAX_INT64)) > 0) [unscaled, scale] = [MAX_INT64, 0];
    else if (q.sign() > 0 && q.cmp(Quantity.fromInt(1)) < 0) format = 'DecimalSI';
  }
  return new Quantity(positive ? unscaled : -unscaled, scale, format);
}

export function isQuantity(s: string): boolean {
  try {
    parseQuantity(s);
    return true;
  } catch {
    return false;
  }
}
