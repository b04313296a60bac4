// The syntax error Go's encoding/json reports for a text that is not JSON, word for word
// (`unexpected end of JSON input`, `invalid character 'n' looking for beginning of object key string`, …):
// kube-apiserver puts it in the 400 it answers a malformed body, patch or continue token with, and clients
// and users see that message. A small scanner walks the text as Go's does and names the first character
// Go would refuse, in Go's words; it only runs on texts JSON.parse already refused.

const WS = new Set([' ', '\t', '\n', '\r']);

/** Go's quoteChar: the character as a single-quoted Go literal */
function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const quoted = JSON.stringify(c);
  // Go's strconv.Quote escapes control characters as \x.. where JSON writes \u00..
  const inner = quoted.slice(1, -1).replace(/\\u00([0-9a-f]{2})/g, (_, h: string) => `\\x${h}`);
  return `'${inner}'`;
}

class GoSyntaxError extends Error {}

const invalid = (c: string, context: string) => new GoSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
const END = 'unexpected end of JSON input';

class Scanner {
  private i = 0;

  constructor(private readonly s: string) {}

  private peek(): string | undefined {
    return this.s[this.i];
  }

  private skipSpace(): void {
    while (this.i < this.s.length && WS.has(this.s[this.i]!)) this.i++;
  }

  private next(): string {
    const c = this.s[this.i++];
    if (c === undefined) throw new GoSyntaxError(END);
    return c;
  }

  /** the whole text: one value, then only whitespace */
  document(): void {
    this.skipSpace();
    this.value('looking for beginning of value');
    this.skipSpace();
    const c = this.peek();
    if (c !== undefined) throw invalid(c, 'after top-level value');
  }

  private value(context: string): void {
    const c = this.next();
    if (c === '{') this.object();
    else if (c === '[') this.array();
    else if (c === '"') this.string();
    else if (c === '-' || (c >= '0' && c <= '9')) this.number(c);
    else {
      const literal = ['true', 'false', 'null'].find((l) => c === l[0]);
      if (!literal) throw invalid(c, context);
      this.literal(literal);
    }
  }

  private object(): void {
    this.skipSpace();
    if (this.peek() === '}') {
      this.i++;
      return;
    }
    for (;;) {
      const k = this.next();
      if (k !== '"') throw invalid(k, 'looking for beginning of object key string');
      this.string();
      this.skipSpace();
      const colon = this.next();
      if (colon !== ':') throw invalid(colon, 'after object key');
      this.skipSpace();
      this.value('looking for beginning of value');
      this.skipSpace();
      const sep = this.next();
      if (sep === '}') return;
      if (sep !== ',') throw invalid(sep, 'after object key:value pair');
      this.skipSpace();
    }
  }

  private array(): void {
    this.skipSpace();
    if (this.peek() === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value('looking for beginning of value');
      this.skipSpace();
      const sep = this.next();
      if (sep === ']') return;
      if (sep !== ',') throw invalid(sep, 'after array element');
      this.skipSpace();
    }
  }

  private string(): void {
    for (;;) {
      const c = this.next();
      if (c === '"') return;
      if (c < ' ') throw invalid(c, 'in string literal');
      if (c !== '\\') continue;
      const e = this.next();
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          const h = this.next();
          if (!/[0-9a-fA-F]/.test(h)) throw invalid(h, 'in \\u hexadecimal character escape');
        }
      } else if (!'"\\/bfnrt'.includes(e)) throw invalid(e, 'in string escape code');
    }
  }

  private digits(): void {
    while (this.peek() !== undefined && this.peek()! >= '0' && this.peek()! <= '9') this.i++;
  }

  private number(first: string): void {
    let c = first;
    if (c === '-') {
      c = this.next();
      if (!(c >= '0' && c <= '9')) throw invalid(c, 'in numeric literal');
    }
    if (c !== '0') this.digits();
    if (this.peek() === '.') {
      this.i++;
      const d = this.next();
      if (!(d >= '0' && d <= '9')) throw invalid(d, 'after decimal point in numeric literal');
      this.digits();
    }
    if (this.peek() === 'e' || this.peek() === 'E') {
      this.i++;
      let d = this.next();
      if (d === '+' || d === '-') d = this.next();
      if (!(d >= '0' && d <= '9')) throw invalid(d, 'in exponent of numeric literal');
      this.digits();
    }
  }

  private literal(word: string): void {
    for (let k = 1; k < word.length; k++) {
      const c = this.next();
      if (c !== word[k]) throw invalid(c, `in literal ${word} (expecting ${quoteChar(word[k]!)})`);
    }
  }
}

/** Go's encoding/json syntax error for `text`, or undefined when Go would parse it */
export function goJsonSyntaxError(text: string): string | undefined {
  try {
    new Scanner(text).document();
    return undefined;
  } catch (e) {
    if (e instanceof GoSyntaxError) return e.message;
    throw e;
  }
}
