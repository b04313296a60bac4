// The label selector lexer and recursive-descent parser of k8s.io/apimachinery/pkg/labels, token for token,
// so that odd inputs (`a===b`, `in in (in)`, `x in (,)`) parse or fail exactly as in kube, with its messages.
import { causeString, fieldErrors, NIL_PATH } from '../validation/field-errors.ts';
import { isQualifiedName } from '../validation/names.ts';
import {
  BINARY_OPERATORS,
  byteOrder,
  type LabelOperator,
  type LabelRequirement,
  LabelSelectorError,
  newRequirement,
} from './label-requirement.ts';

// ---- lexer -------------------------------------------------------------------------------------------

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';

interface Item {
  tok: Tok;
  lit: string;
}

const SYMBOL_TOKENS = new Set([')', ',', '!', '==', '=', '>', '<', '!=', '(']);
const EOF = '\0';

const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) =>
  c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

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

export class Parser {
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
      if (tok !== 'id' && tok !== '!')
        throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        throw new LabelSelectorError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const next = this.consume(true);
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'id' && after.tok !== '!')
        throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
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
