// `application/yaml` response bodies as kube-apiserver writes them: sigs.k8s.io/yaml's JSONToYAML, i.e. the
// JSON read back by go-yaml v2 and marshalled again. So: map keys in go-yaml's "natural" order, block style
// with sequences not indented under their key, empty collections as `{}`/`[]`, strings quoted exactly when
// a plain scalar would read back as something else (numbers, booleans, null, timestamps, `a: b`…), literal
// `|` blocks for multi-line text, and long lines folded at spaces past column 80 (go-yaml v2.4's default).
import { plainResolvesToString } from './yaml-resolve.ts';

const BEST_WIDTH = 80;
const INDENT_STEP = 2;

/** go-yaml v2 keyList.Less for string keys: letters after other characters, digit runs compared as numbers. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]!);
    const bl = isLetter(br[i]!);
    if (al && bl) return ar[i]! < br[i]!;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = an * 10 + (ar[ai]!.charCodeAt(0) - 48);
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = bn * 10 + (br[bi]!.charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]! < br[i]!;
  }
  return ar.length < br.length;
}

const isLetter = (c: string) => /\p{L}/u.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

/** yaml_emitter_analyze_scalar: which styles the emitter allows for a string. */
interface Analysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

const isBreak = (c: string) => c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlankOrEnd = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || isBreak(c);

/** go-yaml's is_printable: LF, 0x20-0x7E, U+00A0-U+D7FF, U+E000-U+FFFD but not the BOM (nothing beyond the BMP). */
function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  if (cp === 0x0a || (cp >= 0x20 && cp <= 0x7e)) return true;
  if (cp >= 0xa0 && cp <= 0xd7ff) return true;
  return cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff;
}

function analyze(value: string): Analysis {
  if (value === '') return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  const chars = [...value];
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) blockIndicators = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const followedByWhitespace = isBlankOrEnd(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) blockIndicators = true;
    else if (c === '#' && precededByWhitespace) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankOrEnd(c) || c === '\0';
  }
  const a: Analysis = { multiline: lineBreaks, blockPlain: true, singleQuoted: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.blockPlain = false;
    a.singleQuoted = false;
  }
  if (spaceBreak || special) {
    a.blockPlain = false;
    a.singleQuoted = false;
    a.block = false;
  }
  if (lineBreaks || blockIndicators) a.blockPlain = false;
  return a;
}

type Style = 'plain' | 'single' | 'double' | 'literal';

/** go-yaml's encoder stringv plus the emitter's style selection. */
function stringStyle(s: string, a: Analysis, simpleKey: boolean): Style {
  let style: Style;
  if (s.includes('\n')) style = 'literal';
  else if (plainResolvesToString(s)) style = 'plain';
  else style = 'double';
  if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
  if (style === 'plain' && (!a.blockPlain || (s === '' && simpleKey))) style = 'single';
  // (line breaks other than \n inside quotes get folded by go-yaml; double quotes escape them instead)
  if (style === 'single' && (!a.singleQuoted || a.multiline)) style = 'double';
  return style;
}

class Emitter {
  out = '';
  column = 0;
  /** the last thing written was whitespace (or nothing), as go-yaml tracks it for indicators */
  whitespace = true;
  indention = true;

  put(s: string): void {
    this.out += s;
    this.column += [...s].length;
  }

  newline(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.newline();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** `indent` is where continuation lines of the scalar start */
  scalar(text: string, indent: number, simpleKey: boolean, forced?: 'plain'): void {
    const style = forced ?? stringStyle(text, analyze(text), simpleKey);
    if (style === 'plain') this.plain(text, indent, !simpleKey);
    else if (style === 'single') this.singleQuoted(text, indent, !simpleKey);
    else if (style === 'double') this.doubleQuoted(text, indent, !simpleKey);
    else this.literal(text, indent);
  }

  private plain(text: string, indent: number, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && chars[i + 1] !== ' ') this.writeIndent(indent);
        else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(text: string, indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ')
          this.writeIndent(indent);
        else this.put(c);
        spaces = true;
      } else {
        this.put(c === "'" ? "''" : c);
        this.indention = false;
        spaces = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(text: string, indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = [...text];
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (!isPrintable(c) || c === '\ufeff' || isBreak(c) || c === '"' || c === '\\') {
        this.put(`\\${escapeChar(c)}`);
        spaces = false;
      } else if (c === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
          this.writeIndent(indent);
          if (chars[i + 1] === ' ') this.put('\\');
        } else this.put(c);
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(text: string, indent: number): void {
    this.indicator('|', true, false, false);
    if (text.startsWith(' ') || isBreak(text[0] ?? '')) this.indicator(String(INDENT_STEP), false, false, false);
    // chomping: strip a missing final newline, keep several
    const last = text[text.length - 1] ?? '';
    if (!isBreak(last)) this.indicator('-', false, false, false);
    else if (text.length === 1 || isBreak(text[text.length - 2]!)) this.indicator('+', false, false, false);
    this.newline();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of text) {
      if (isBreak(c)) {
        this.newline();
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) {
          this.writeIndent(indent);
          this.indention = false;
        }
        this.put(c);
        breaks = false;
      }
    }
  }
}

function escapeChar(c: string): string {
  const simple: Record<string, string> = {
    '\0': '0',
    '\x07': 'a',
    '\b': 'b',
    '\t': 't',
    '\n': 'n',
    '\v': 'v',
    '\f': 'f',
    '\r': 'r',
    '\x1b': 'e',
    '"': '"',
    '\\': '\\',
    '\u0085': 'N',
    '\u00a0': '_',
    '\u2028': 'L',
    '\u2029': 'P',
  };
  if (simple[c]) return simple[c]!;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `u${hex.padStart(4, '0')}`;
  return `U${hex.padStart(8, '0')}`;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isCollection = (v: Json): v is Json[] | { [k: string]: Json } => v !== null && typeof v === 'object';
const isEmptyCollection = (v: Json) =>
  isCollection(v) && (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);

/** strconv.FormatFloat(f, 'g', -1, 64) as go-yaml writes floats. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (!Number.isFinite(n)) return n > 0 ? '.inf' : '-.inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  const digits = mantissa.replace(/[-.]/g, '');
  const neg = n < 0 ? '-' : '';
  if (exp < 0) return `${neg}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${neg}${intPart}${frac ? `.${frac}` : ''}`;
}

/** How go-yaml prints a JSON number after reading it back: integers as integers, others as Go floats. */
function numberText(n: number): string {
  const text = JSON.stringify(n);
  if (/^-?\d+$/.test(text)) {
    const big = BigInt(text);
    if (big >= -(2n ** 63n) && big < 2n ** 64n) return text;
  }
  return goFloat(n);
}

/** Replaces lone surrogates (which Go's JSON never produces) with U+FFFD. */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

function emitValue(e: Emitter, v: Json, indent: number): void {
  if (v === null) e.scalar('null', indent, false, 'plain');
  else if (typeof v === 'boolean') e.scalar(String(v), indent, false, 'plain');
  else if (typeof v === 'number') e.scalar(numberText(v), indent, false, 'plain');
  else if (typeof v === 'string') e.scalar(wellFormed(v), indent, false);
  else if (isEmptyCollection(v)) e.indicator(Array.isArray(v) ? '[]' : '{}', true, false, false);
}

function emitMapping(e: Emitter, obj: { [k: string]: Json }, indent: number): void {
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort((a, b) => (yamlKeyLess(a, b) ? -1 : yamlKeyLess(b, a) ? 1 : 0));
  for (const rawKey of keys) {
    const value = obj[rawKey]!;
    const key = wellFormed(rawKey);
    e.writeIndent(indent);
    const simple = Buffer.byteLength(key) <= 128 && !analyze(key).multiline;
    if (simple) {
      e.scalar(key, indent + INDENT_STEP, true);
      e.indicator(':', false, false, false);
    } else {
      e.indicator('?', true, false, true);
      e.scalar(key, indent + INDENT_STEP, false);
      e.writeIndent(indent);
      e.indicator(':', true, false, true);
    }
    emitNode(e, value, indent, true);
  }
}

function emitSequence(e: Emitter, items: Json[], indent: number): void {
  for (const item of items) {
    e.writeIndent(indent);
    e.indicator('-', true, false, true);
    emitNode(e, item, indent, false);
  }
}

/** A value after `key:` or `-` at `parentIndent`. */
function emitNode(e: Emitter, v: Json, parentIndent: number, inMapping: boolean): void {
  if (!isCollection(v) || isEmptyCollection(v)) {
    emitValue(e, v, parentIndent + INDENT_STEP);
    return;
  }
  if (Array.isArray(v)) {
    // a sequence directly under a mapping key is not indented (go-yaml's indentless sequences)
    emitSequence(e, v, inMapping && !e.indention ? parentIndent : parentIndent + INDENT_STEP);
    return;
  }
  emitMapping(e, v, parentIndent + INDENT_STEP);
}

/** The YAML document for a JSON value (an object or its JSON text). */
export function toYaml(value: unknown): string {
  const v = (typeof value === 'string' ? JSON.parse(value) : JSON.parse(JSON.stringify(value))) as Json;
  const e = new Emitter();
  if (isCollection(v) && !isEmptyCollection(v)) {
    if (Array.isArray(v)) emitSequence(e, v, 0);
    else emitMapping(e, v, 0);
  } else emitValue(e, v, 0);
  e.writeIndent(0);
  return e.out;
}
