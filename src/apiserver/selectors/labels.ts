// Label selectors with the semantics of k8s.io/apimachinery/pkg/labels: the same lexer and recursive-descent
// parser (so `in`/`notin` are identifiers inside value lists, `()` means the empty value, `a===b` fails the
// same way), the same error strings, and the same normalised String() form (requirements sorted by key,
// set values sorted). Also the metav1.LabelSelector object form (LabelSelectorAsSelector).
import { aggregateMessage, causeString, fieldErrors, goQuote, goStringSlice, NIL_PATH } from '../validation/field-errors.ts';
import { isQualifiedName, isValidLabelValue } from '../validation/names.ts';

/** selection.Operator values, spelled as kube spells them. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export type Labels = Readonly<Record<string, string>> | undefined | null;

/** A selector string or object kube would reject; `message` is kube's error text (served as a 400). */
export class LabelSelectorError extends Error {}

const BINARY_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

const INT64 = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(v, 10, 64); undefined when Go would fail. */
function parseInt64(v: string): bigint | undefined {
  if (!INT64.test(v)) return undefined;
  const n = BigInt(v);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * labels.NewRequirement: validates key, operator arity and values, throwing kube's aggregated field errors
 * (paths `key`, `values`, `values[i][key]`).
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(causeString(fieldErrors.invalid('key', key, keyErrs.join('; '))));
  // Go passes a nil slice for an empty list, which %#v prints as []string(nil)
  const asValue = goStringSlice(values.length === 0 ? null : values);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(causeString(fieldErrors.invalid('values', asValue, "for 'in', 'notin' operators, values set can't be empty")));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(causeString(fieldErrors.invalid('values', asValue, 'exact-match compatibility requires one single value')));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(causeString(fieldErrors.invalid('values', asValue, 'values set must be empty for exists and does not exist')));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(causeString(fieldErrors.invalid('values', asValue, "for 'Gt', 'Lt' operators, exactly one value is required")));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(causeString(fieldErrors.invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer")));
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(causeString(fieldErrors.invalid(`values[${i}][${key}]`, v, valueErrs.join('; '))));
  });
  if (errs.length > 0) throw new LabelSelectorError(aggregateMessage(errs));
  return { key, operator, values: [...values] };
}

function hasValue(r: LabelRequirement, value: string): boolean {
  return r.values.includes(value);
}

export function requirementMatches(r: LabelRequirement, labels: Labels): boolean {
  const present = labels != null && Object.hasOwn(labels, r.key);
  const value = present ? labels![r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return present && hasValue(r, value!);
    case 'notin':
    case '!=':
      return !present || !hasValue(r, value!);
    case 'exists':
      return present;
    case '!':
      return !present;
    case 'gt':
    case 'lt': {
      if (!present || r.values.length !== 1) return false;
      const have = parseInt64(value!);
      const want = parseInt64(r.values[0]!);
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function requirementString(r: LabelRequirement): string {
  if (r.operator === 'exists') return r.key;
  if (r.operator === '!') return `!${r.key}`;
  const op = { in: ' in ', notin: ' notin ', '=': '=', '==': '==', '!=': '!=', gt: '>', lt: '<' }[r.operator];
  const values = r.values.length === 1 ? r.values[0]! : [...r.values].sort(byteOrder).join(',');
  return r.operator === 'in' || r.operator === 'notin' ? `${r.key}${op}(${values})` : `${r.key}${op}${values}`;
}

export class LabelSelector {
  private constructor(
    readonly requirements: readonly LabelRequirement[],
    /** labels.Nothing(): what a nil metav1.LabelSelector converts to */
    readonly matchesNothing: boolean,
  ) {}

  static of(requirements: readonly LabelRequirement[]): LabelSelector {
    // kube sorts by key on every Add; a stable sort keeps same-key requirements in input order
    return new LabelSelector([...requirements].sort((a, b) => byteOrder(a.key, b.key)), false);
  }

  static everything(): LabelSelector {
    return new LabelSelector([], false);
  }

  static nothing(): LabelSelector {
    return new LabelSelector([], true);
  }

  matches(labels: Labels): boolean {
    if (this.matchesNothing) return false;
    return this.requirements.every((r) => requirementMatches(r, labels));
  }

  /** True when the selector does not restrict anything (Nothing() is not empty). */
  empty(): boolean {
    return !this.matchesNothing && this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }

  /** The single value `key` must have, when the selector pins it (=, == or a one-value `in`). */
  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (!r || (r.operator !== '=' && r.operator !== '==' && r.operator !== 'in') || r.values.length !== 1) return undefined;
    return r.values[0];
  }
}

// ---- lexer -------------------------------------------------------------------------------------------

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';

interface Item {
  tok: Tok;
  lit: string;
}

const SYMBOL_TOKENS = new Set([')', ',', '!', '==', '=', '>', '<', '!=', '(']);
const EOF = '\0';

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++]!;
    return EOF;
  }

  private unread(): void {
    this.pos--;
  }

  lex(): Item {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === EOF) return { tok: 'eos', lit: '' };
    this.unread();
    return isSpecial(ch) ? this.scanSpecial() : this.scanIdOrKeyword();
  }

  private scanIdOrKeyword(): Item {
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buf += ch;
    }
    if (buf === 'in' || buf === 'notin') return { tok: buf, lit: buf };
    return { tok: 'id', lit: buf };
  }

  private scanSpecial(): Item {
    let buf = '';
    let last: Item | undefined;
    for (;;) {
      const ch = this.read();
      if (ch === EOF) break;
      if (!isSpecial(ch)) {
        this.unread();
        break;
      }
      buf += ch;
      if (SYMBOL_TOKENS.has(buf)) {
        last = { tok: buf as Tok, lit: buf };
      } else if (last) {
        this.unread();
        break;
      }
    }
    return last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` };
  }
}

// ---- parser ------------------------------------------------------------------------------------------

class Parser {
  private readonly items: Item[] = [];
  private position = 0;

  constructor(input: string) {
    const lexer = new Lexer(input);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === 'eos') break;
    }
  }

  /** In a values context the keywords `in`/`notin` are ordinary identifiers. */
  private lookahead(values: boolean): Item {
    return this.contextual(this.items[this.position]!, values);
  }

  private consume(values: boolean): Item {
    return this.contextual(this.items[this.position++]!, values);
  }

  private contextual(item: Item, values: boolean): Item {
    return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'id' && tok !== '!') throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        throw new LabelSelectorError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const next = this.consume(true);
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'id' && after.tok !== '!') throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(byteOrder));
  }

  private parseKeyAndInferOperator(): { key: string; operator: LabelOperator | undefined } {
    let operator: LabelOperator | undefined;
    let item = this.consume(true);
    if (item.tok === '!') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== 'id') throw new Error(`found '${item.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(item.lit);
    if (keyErrs.length > 0) throw new Error(causeString(fieldErrors.invalid(NIL_PATH, item.lit, keyErrs.join('; '))));
    const next = this.lookahead(true).tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in':
        return 'in';
      case 'notin':
        return 'notin';
      case '=':
        return '=';
      case '==':
        return '==';
      case '!=':
        return '!=';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new Error(`found '${lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'id' || tok === ',') {
      const set = this.parseIdentifiersList();
      if (this.consume(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
      return set;
    }
    if (tok === ')') {
      this.consume(true);
      return new Set(['']);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'id') {
        set.add(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return set;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok === ',') {
        // "(," and ",," and ",)" each stand for an empty value
        if (set.size === 0) set.add('');
        const next = this.lookahead(true).tok;
        if (next === ')') {
          set.add('');
          return set;
        }
        if (next === ',') set.add('');
        continue;
      }
      throw new Error(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'id') return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/** labels.Parse. Throws LabelSelectorError with kube's message. An empty string selects everything. */
export function parseLabelSelector(selector: string): LabelSelector {
  return LabelSelector.of(new Parser(selector).parse());
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: null/undefined selects nothing, `{}` selects everything. matchLabels become
 * `=` requirements, matchExpressions keep their operator.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === null || selector === undefined) return LabelSelector.nothing();
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const exprs = selector.matchExpressions ?? [];
  if (matchLabels.length + exprs.length === 0) return LabelSelector.everything();
  const reqs: LabelRequirement[] = matchLabels.map(([k, v]) => newRequirement(k, '=', [v]));
  for (const expr of exprs) {
    const op = OBJECT_OPERATORS[expr.operator];
    if (!op) throw new LabelSelectorError(`${goQuote(String(expr.operator ?? ''))} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return LabelSelector.of(reqs);
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelectorObject | null | undefined): string {
  try {
    return labelSelectorFromObject(selector).toString() || '<none>';
  } catch {
    return '<error>';
  }
}

/** labels.SelectorFromSet: every key must equal its value (no validation, like kube's). */
export function selectorFromSet(set: Readonly<Record<string, string>> | null | undefined): LabelSelector {
  return LabelSelector.of(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=' as const, values: [v] })));
}

/** labels.FormatLabels: sorted `k=v` pairs, `<none>` for an empty map. */
export function formatLabels(labels: Readonly<Record<string, string>> | null | undefined): string {
  const pairs = Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort(byteOrder);
  return pairs.length > 0 ? pairs.join(',') : '<none>';
}
