// The parts of cel-go's strings extension that Kubernetes enables and cel-js lacks: charAt, replace, format,
// reverse. (lowerAscii, upperAscii, trim, split, join, indexOf, lastIndexOf and substring are built into
// cel-js already.) Every function that builds a string checks the result size against the budget first, so
// `s.replace('', s)` nested a few times cannot allocate gigabytes.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { charge, checkStringLength } from './limits.ts';

function codePoints(s: string): string[] {
  return Array.from(s);
}

function countOccurrences(s: string, sub: string, limit: number): number {
  if (sub === '') return Math.min(codePoints(s).length + 1, limit);
  let n = 0;
  for (let i = s.indexOf(sub); i !== -1 && n < limit; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/** Go strings.Replace: n < 0 replaces all; an empty `old` matches before every code point and at the end */
export function replace(s: string, old: string, replacement: string, n = -1): string {
  const limit = n < 0 ? Number.POSITIVE_INFINITY : n;
  if (limit === 0) return s;
  const count = countOccurrences(s, old, limit);
  checkStringLength(s.length + count * (replacement.length - old.length), 'replace()');
  if (count === 0) return s;
  if (old === '') {
    const cps = codePoints(s);
    let out = '';
    for (let i = 0; i < cps.length; i++) out += (i < count ? replacement : '') + cps[i];
    return count > cps.length ? out + replacement : out;
  }
  let out = '';
  let from = 0;
  for (let done = 0; done < count; done++) {
    const at = s.indexOf(old, from);
    out += s.slice(from, at) + replacement;
    from = at + old.length;
  }
  return out + s.slice(from);
}

export function charAt(s: string, index: bigint): string {
  const cps = codePoints(s);
  if (index < 0n || index > BigInt(cps.length)) throw new EvaluationError(`index out of range: ${index}`);
  return cps[Number(index)] ?? '';
}

/** the text %s prints for a CEL value */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
    return String(v);
  }
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  if (v instanceof Map) {
    const entries = [...v.entries()]
      .map(([k, x]) => [formatValue(k), formatValue(x)])
      .sort(([a], [b]) => (a! < b! ? -1 : 1));
    return `{${entries.map(([k, x]) => `${k}: ${x}`).join(', ')}}`;
  }
  if (typeof v === 'object' && v.constructor === Object) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${k}: ${formatValue((v as Record<string, unknown>)[k])}`).join(', ')}}`;
  }
  return String(v);
}

function integerArg(v: unknown, verb: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'object' && v !== null && typeof (v as { valueOf(): unknown }).valueOf() === 'bigint') {
    return (v as { valueOf(): bigint }).valueOf();
  }
  throw new EvaluationError(`error during formatting: ${verb} requires an integer, got ${formatValue(v)}`);
}

function numberArg(v: unknown, verb: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new EvaluationError(`error during formatting: ${verb} requires a number, got ${formatValue(v)}`);
}

/** Go's %e: mantissa, 'e', sign, at least two exponent digits */
function goExponential(x: number, precision: number): string {
  const [m, e] = x.toExponential(precision).split('e');
  const exp = Number(e);
  return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function formatVerb(verb: string, precision: number | undefined, arg: unknown): string {
  switch (verb) {
    case 's':
      return formatValue(arg);
    case 'd':
      return integerArg(arg, '%d').toString();
    case 'b':
      return typeof arg === 'boolean' ? String(arg) : integerArg(arg, '%b').toString(2);
    case 'o':
      return integerArg(arg, '%o').toString(8);
    case 'x':
    case 'X': {
      let out: string;
      if (typeof arg === 'string') out = Buffer.from(arg, 'utf8').toString('hex');
      else if (arg instanceof Uint8Array) out = Buffer.from(arg).toString('hex');
      else out = integerArg(arg, `%${verb}`).toString(16);
      return verb === 'X' ? out.toUpperCase() : out;
    }
    case 'f':
      return numberArg(arg, '%f').toFixed(precision ?? 6);
    case 'e':
      return goExponential(numberArg(arg, '%e'), precision ?? 6);
    default:
      throw new EvaluationError(`error during formatting: unrecognized formatting clause "%${verb}"`);
  }
}

/** cel-go's string.format(list): %s %d %f %e %b %o %x %X with an optional precision (%.2f), and %% */
export function format(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const ch = template[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      let k = j + 1;
      while (k < template.length && template[k]! >= '0' && template[k]! <= '9') k++;
      precision = Number(template.slice(j + 1, k) || '0');
      j = k;
    }
    const verb = template[j];
    if (verb === undefined)
      throw new EvaluationError('error during formatting: unterminated formatting clause at end of string');
    if (next >= args.length) throw new EvaluationError(`error during formatting: index ${next} out of range`);
    out += formatVerb(verb, precision, args[next++]);
    checkStringLength(out.length, 'format()');
    i = j;
  }
  return out;
}

export function registerStringsLibrary(env: Environment): void {
  env.registerFunction('string.charAt(int): string', charAt);
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b));
  env.registerFunction('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) =>
    replace(s, a, b, Number(n)),
  );
  env.registerFunction('string.format(list): string', (s: string, args: unknown[]) => {
    charge(1 + args.length);
    return format(s, args);
  });
  env.registerFunction('string.reverse(): string', (s: string) => {
    charge(1 + (s.length >> 6));
    return codePoints(s).reverse().join('');
  });
}
