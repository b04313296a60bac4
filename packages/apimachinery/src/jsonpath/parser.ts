/**
 * Parser for the Kubernetes JSONPath template dialect, following client-go util/jsonpath/parser.go step by step,
 * including its surprises: `['a.b']` is re-parsed as `.a.b` (so the dot splits the key), `["a"]` is
 * `invalid array index "a"`, `*` inside brackets means `:`, and unknown words only fail when evaluated.
 */
import {
  type ArrayNode,
  type FilterNode,
  GoFloat,
  type JsonPathNode,
  type JsonPathTemplate,
  type ListNode,
  type SliceParam,
  type TextNode,
} from './ast.ts';
import { JsonPathError } from './errors.ts';
import { unquoteExtend } from './unquote.ts';

const EOF = -1;
const DICT_KEY = /^'([^']*)'$/;
const SLICE_OPERATOR = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
// Go's `.` does not match '\n' but does match '\r'; JS's `.` matches neither, hence [^\n].
const FILTER_COMPARISON = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/;
const GO_INT = /^[+-]?[0-9]+$/;
const GO_FLOAT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

type MutableList = { type: 'list'; nodes: JsonPathNode[] };

/** Parses a whole template; throws JsonPathError with client-go's message on a syntax error. */
export function parseTemplate(source: string): JsonPathTemplate {
  let nodes: (ListNode | TextNode)[];
  try {
    nodes = new TemplateParser(source).parse();
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new JsonPathError(err.message, 'parse', source);
    throw err;
  }
  return deepFreeze({ source, nodes });
}

class TemplateSyntaxError extends Error {}

class TemplateParser {
  private pos = 0;
  private start = 0;
  private width = 0;
  private readonly root: (MutableList | TextNode)[] = [];

  constructor(private readonly input: string) {}

  parse(): (ListNode | TextNode)[] {
    const { input } = this;
    for (;;) {
      const brace = input.indexOf('{', this.pos);
      this.pos = brace < 0 ? input.length : brace;
      if (this.pos > this.start) this.root.push({ type: 'text', text: this.consumeText() });
      if (brace < 0) return this.root;
      this.pos += 1;
      this.consumeText();
      const action: MutableList = { type: 'list', nodes: [] };
      this.root.push(action);
      this.parseInsideAction(action.nodes);
    }
  }

  /** Parses nodes of one `{...}` action until its closing brace has been consumed. */
  private parseInsideAction(cur: JsonPathNode[]): void {
    const { input } = this;
    for (;;) {
      if (input.startsWith('}', this.pos)) {
        this.pos += 1;
        this.consumeText();
        return;
      }
      if (input.startsWith('[?(', this.pos)) {
        this.parseFilter(cur);
        continue;
      }
      if (input.startsWith('..', this.pos)) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || r === 0x0d || r === 0x0a) throw new TemplateSyntaxError('unclosed action');
      if (r === 0x20 || r === 0x40 || r === 0x24) {
        // ' ', '@' (current object) and '$' (root, which is the current object at this point) carry no meaning.
        this.consumeText();
      } else if (r === 0x5b) {
        this.parseArray(cur);
      } else if (r === 0x22 || r === 0x27) {
        this.parseQuote(cur, r);
      } else if (r === 0x2e) {
        this.parseField(cur);
      } else if (r === 0x2b || r === 0x2d || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else {
        throw new TemplateSyntaxError(`unrecognized character in action: ${formatRune(r)}`);
      }
    }
  }

  private parseIdentifier(cur: JsonPathNode[]): void {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.push({ type: 'bool', value: value === 'true' });
    else cur.push({ type: 'identifier', name: value });
  }

  private parseRecursive(cur: JsonPathNode[]): void {
    if (cur.length > 0 && cur[cur.length - 1]!.type === 'recursive') {
      throw new TemplateSyntaxError('invalid multiple recursive descent');
    }
    this.pos += 2;
    this.consumeText();
    cur.push({ type: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JsonPathNode[]): void {
    const sign = this.peek();
    if (sign === 0x2b || sign === 0x2d) this.next();
    for (;;) {
      const r = this.next();
      if (r !== 0x2e && !isDigit(r)) break;
    }
    this.backup();
    const value = this.consumeText();
    const int = parseGoInt(value);
    if (int !== undefined) {
      cur.push({ type: 'int', value: int });
      return;
    }
    if (GO_FLOAT.test(value)) {
      const float = Number(value);
      if (Number.isFinite(float)) {
        cur.push({ type: 'float', value: new GoFloat(float) });
        return;
      }
    }
    throw new TemplateSyntaxError(`cannot parse number ${value}`);
  }

  private parseArray(cur: JsonPathNode[]): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new TemplateSyntaxError('unterminated array');
      if (r === 0x5d) break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      const branches = parts.map((part) => parseAction(`[${trimSpaces(part)}]`));
      cur.push({ type: 'union', branches });
      return;
    }

    const dictKey = DICT_KEY.exec(text);
    if (dictKey) {
      // client-go re-parses `['key']` as `.key`, so dots in key split it into several fields.
      for (const node of parseAction(`.${dictKey[1]}`).nodes) cur.push(node);
      return;
    }

    const slice = SLICE_OPERATOR.exec(text);
    if (!slice) throw new TemplateSyntaxError(`invalid array index ${text}`);
    cur.push({ type: 'array', params: sliceParams([slice[1] ?? '', slice[2] ?? '', slice[3] ?? '']) });
  }

  private parseFilter(cur: JsonPathNode[]): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = 0;
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new TemplateSyntaxError('unterminated filter');
      if (r === 0x22 || r === 0x27) {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === 0x29 && begin === end) {
        break;
      }
    }
    if (this.next() !== 0x5d) throw new TemplateSyntaxError('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const comparison = FILTER_COMPARISON.exec(text);
    let filter: FilterNode;
    if (!comparison) {
      filter = { type: 'filter', left: parseAction(text), right: { type: 'list', nodes: [] }, operator: 'exists' };
    } else {
      const left = parseAction(comparison[1]!);
      const right = parseAction(comparison[3]!);
      filter = { type: 'filter', left, right, operator: comparison[2]! };
    }
    cur.push(filter);
  }

  private parseQuote(cur: JsonPathNode[], quote: number): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === 0x0a) throw new TemplateSyntaxError('unterminated quoted string');
      if (r === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consumeText();
    const text = unquoteExtend(value);
    if (text === undefined) throw new TemplateSyntaxError(`unquote string ${value} error invalid syntax`);
    cur.push({ type: 'text', text });
  }

  private parseField(cur: JsonPathNode[]): void {
    this.consumeText();
    while (this.advance());
    const value = this.consumeText();
    if (value === '*') cur.push({ type: 'wildcard' });
    else cur.push({ type: 'field', name: value.replaceAll('\\', '') });
  }

  /** Steps over one character of a field name; a backslash escapes the character after it. */
  private advance(): boolean {
    const r = this.next();
    if (r === 0x5c) {
      this.next();
    } else if (isTerminator(r)) {
      this.backup();
      return false;
    }
    return true;
  }

  private next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = this.input.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    return r;
  }

  private peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }
}

/** client-go's parseAction: parses `{text}` and returns the action's node list. */
function parseAction(text: string): ListNode {
  return new TemplateParser(`{${text}}`).parse()[0] as ListNode;
}

function sliceParams(groups: [string, string, string]): ArrayNode['params'] {
  const params: SliceParam[] = [];
  for (let i = 0; i < 3; i++) {
    let value = groups[i]!;
    if (value !== '') {
      if (i > 0) value = value.slice(1);
      if (i > 0 && value === '') {
        params.push({ known: false, value: 0, derived: false });
      } else {
        const n = parseGoInt(value);
        if (n === undefined) throw new TemplateSyntaxError(`array index ${value} is not a number`);
        params.push({ known: true, value: n, derived: false });
      }
    } else if (i === 1) {
      // `[n]` is the slice `[n:n+1]`; the end is marked derived so that `[-1]` (end 0) becomes `[len-1:len]`.
      params.push({ known: true, value: params[0]!.value + 1, derived: true });
    } else {
      params.push({ known: false, value: 0, derived: false });
    }
  }
  return [params[0]!, params[1]!, params[2]!];
}

/** strconv.Atoi: optional sign, ASCII digits, int64 range. */
function parseGoInt(text: string): number | undefined {
  if (!GO_INT.test(text)) return undefined;
  if (text.length < 16) return Number(text);
  const big = BigInt(text);
  return big < INT64_MIN || big > INT64_MAX ? undefined : Number(big);
}

function trimSpaces(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && text.charCodeAt(from) === 0x20) from++;
  while (to > from && text.charCodeAt(to - 1) === 0x20) to--;
  return text.slice(from, to);
}

function isTerminator(r: number): boolean {
  switch (r) {
    case EOF:
    case 0x20: // ' '
    case 0x09: // '\t'
    case 0x0d: // '\r'
    case 0x0a: // '\n'
    case 0x2e: // '.'
    case 0x2c: // ','
    case 0x5b: // '['
    case 0x5d: // ']'
    case 0x24: // '$'
    case 0x40: // '@'
    case 0x7b: // '{'
    case 0x7d: // '}'
      return true;
    default:
      return false;
  }
}

function isDigit(r: number): boolean {
  if (r < 0x80) return r >= 0x30 && r <= 0x39;
  return DIGIT.test(String.fromCodePoint(r));
}

function isAlphaNumeric(r: number): boolean {
  if (r < 0x80) return r === 0x5f || (r >= 0x30 && r <= 0x39) || ((r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a);
  const ch = String.fromCodePoint(r);
  return LETTER.test(ch) || DIGIT.test(ch);
}

/** Go's %#U: `U+0023 '#'`, without the quoted character when it is not printable. */
function formatRune(r: number): string {
  const code = `U+${r.toString(16).toUpperCase().padStart(4, '0')}`;
  const ch = String.fromCodePoint(r);
  return r === 0x20 || PRINTABLE.test(ch) ? `${code} '${ch}'` : code;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}
