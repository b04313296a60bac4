/**
 * Evaluates a parsed template against JSON-like data with client-go's JSONPath.FindResults semantics, including
 * its range/end bookkeeping (a `{range}` without results still walks its body, so with allowMissingKeys=false a
 * body field on an empty list fails), its bounds checks (`[0]` on an empty list is an error, `[0:10]` on a
 * 3-element list too), and per-value quirks: null elements of a range are Go's invalid value (`<no value>`),
 * `*` and `..` descend into strings byte by byte.
 */
import {
  type ArrayNode,
  type FilterNode,
  GoByte,
  GoScalar,
  type JsonPathNode,
  type JsonPathTemplate,
  type ListNode,
  NO_VALUE,
  type TextNode,
  type UnionNode,
} from './ast.ts';
import { compareValues } from './compare.ts';
import { EvalFailure, JsonPathError } from './errors.ts';
import { goFormatValue, goTypeName } from './go-format.ts';

type Values = readonly unknown[];

/** Result values per top-level block (literal text blocks included), as client-go's FindResults returns them. */
export function findResults(template: JsonPathTemplate, data: unknown, allowMissingKeys: boolean): unknown[][] {
  const evaluator = new Evaluator(template.nodes, allowMissingKeys);
  try {
    return evaluator.findResults(data, 0);
  } catch (err) {
    if (err instanceof EvalFailure) throw new JsonPathError(err.message, 'execute', template.source);
    throw err;
  }
}

const BYTES: readonly GoByte[] = Array.from({ length: 256 }, (_, b) => Object.freeze(new GoByte(b)));
const utf8Encoder = new TextEncoder();

class Evaluator {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  /** Index of the top-level node holding the most recent `{end}`; client-go keeps a pointer to it. */
  private lastEndNode = -1;

  constructor(
    private readonly nodes: readonly (ListNode | TextNode)[],
    private readonly allowMissingKeys: boolean,
  ) {}

  findResults(data: unknown, start: number): unknown[][] {
    // Go passes value.Interface(); reflect.ValueOf(nil) is the invalid value, not a nil map entry.
    const cur: Values = [data === null || data === undefined ? NO_VALUE : data];
    const { nodes } = this;
    const full: unknown[][] = [];
    for (let i = start; i < nodes.length; i++) {
      const results = this.walk(cur, nodes[i]!);
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = i;
        break;
      }
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        if (results.length > 0) {
          for (const value of results) for (const block of this.findResults(value, i + 1)) full.push(block);
        } else {
          // The body still runs once (on nothing) so that the matching {end} is found.
          this.findResults(null, i + 1);
        }
        this.inRange--;
        if (this.lastEndNode > i) i = this.lastEndNode;
        continue;
      }
      full.push(results as unknown[]);
    }
    return full;
  }

  private walk(input: Values, node: JsonPathNode): Values {
    switch (node.type) {
      case 'list':
        return this.evalList(input, node.nodes);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
      case 'float':
      case 'bool':
        return new Array(input.length).fill(node.value);
      case 'wildcard':
        return this.evalWildcard(input);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return this.evalUnion(input, node);
      case 'identifier':
        return this.evalIdentifier(input, node.name);
    }
  }

  private evalList(input: Values, nodes: readonly JsonPathNode[]): Values {
    let cur = input;
    for (let i = 0; i < nodes.length; i++) cur = this.walk(cur, nodes[i]!);
    return cur;
  }

  private evalIdentifier(input: Values, name: string): Values {
    switch (name) {
      case 'range':
        this.beginRange++;
        return input;
      case 'end':
        if (this.inRange > 0) {
          this.endRange++;
          return [];
        }
        throw new EvalFailure('not in range, nothing to end', []);
      default:
        throw new EvalFailure(`unrecognized identifier ${name}`, input);
    }
  }

  private evalField(input: Values, name: string): Values {
    const results: unknown[] = [];
    if (input.length === 0) return results;
    for (let i = 0; i < input.length; i++) {
      const value = input[i];
      if (!isMap(value)) continue;
      const field = value[name];
      if (field !== undefined && Object.hasOwn(value, name)) results.push(field);
    }
    if (results.length === 0 && !this.allowMissingKeys) throw new EvalFailure(`${name} is not found`, results);
    return results;
  }

  private evalArray(input: Values, node: ArrayNode): Values {
    const [start, end, step] = node.params;
    const result: unknown[] = [];
    for (const value of input) {
      if (value === null) continue;
      if (!Array.isArray(value)) {
        // Go calls value.Type() here, which panics for the invalid value.
        if (value === NO_VALUE) throw new EvalFailure('reflect: call of reflect.Value.Type on zero Value', input);
        throw new EvalFailure(`${goTypeName(value)} is not array or slice`, input);
      }
      const length = value.length;
      let from = start.known ? start.value : 0;
      if (from < 0) from += length;
      let to = end.known ? end.value : length;
      if (to < 0 || (to === 0 && end.derived)) to += length;
      // Requesting zero elements ends the whole evaluation of this node, as in client-go.
      if (to === from) return result;
      if (from >= length || from < 0) {
        throw new EvalFailure(`array index out of bounds: index ${from}, length ${length}`, input);
      }
      if (to > length || to < 0) {
        throw new EvalFailure(`array index out of bounds: index ${to - 1}, length ${length}`, input);
      }
      if (from > to) throw new EvalFailure(`starting index ${from} is greater than ending index ${to}`, input);
      let stride = 1;
      if (step.known) {
        if (step.value <= 0) throw new EvalFailure('step must be > 0', input);
        stride = step.value;
      }
      for (let i = from; i < to; i += stride) result.push(value[i] ?? null);
    }
    return result;
  }

  private evalUnion(input: Values, node: UnionNode): Values {
    const result: unknown[] = [];
    for (const branch of node.branches) {
      let values: Values;
      try {
        values = this.evalList(input, branch.nodes);
      } catch (err) {
        throw err instanceof EvalFailure ? new EvalFailure(err.message, input) : err;
      }
      for (const v of values) result.push(v);
    }
    return result;
  }

  private evalWildcard(input: Values): Values {
    const results: unknown[] = [];
    for (const value of input) pushChildren(value, results);
    return results;
  }

  /** Every value that has children, each followed by its descendants; leaves themselves are not included. */
  private evalRecursive(input: Values): Values {
    const result: unknown[] = [];
    for (const value of input) {
      const children: unknown[] = [];
      pushChildren(value, children);
      if (children.length === 0) continue;
      result.push(value);
      for (const descendant of this.evalRecursive(children)) result.push(descendant);
    }
    return result;
  }

  private evalFilter(input: Values, node: FilterNode): Values {
    const results: unknown[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) {
        throw new EvalFailure(`${goFormatValue(value)} is not array or slice and cannot be filtered`, input);
      }
      for (let i = 0; i < value.length; i++) {
        const item = value[i] ?? null;
        const temp = [item];
        let lefts: Values;
        let leftError: EvalFailure | undefined;
        try {
          lefts = this.evalList(temp, node.left.nodes);
        } catch (err) {
          if (!(err instanceof EvalFailure)) throw err;
          // `exists` ignores the error but looks at whatever partial result came with it.
          lefts = err.partial;
          leftError = err;
        }
        if (node.operator === 'exists') {
          if (lefts.length > 0) results.push(item);
          continue;
        }
        if (leftError) throw new EvalFailure(leftError.message, input);
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new EvalFailure('can only compare one element at a time', input);
        let rights: Values;
        try {
          rights = this.evalList(temp, node.right.nodes);
        } catch (err) {
          throw err instanceof EvalFailure ? new EvalFailure(err.message, input) : err;
        }
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new EvalFailure('can only compare one element at a time', input);
        if (compareValues(node.operator, lefts[0], rights[0], results)) results.push(item);
      }
    }
    return results;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof GoScalar);
}

/** Children as Go's reflection sees them: map values, slice elements, or the bytes of a string. */
function pushChildren(value: unknown, out: unknown[]): void {
  if (typeof value === 'string') {
    for (const byte of utf8Encoder.encode(value)) out.push(BYTES[byte]);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out.push(value[i] ?? null);
  } else if (isMap(value)) {
    for (const key of Object.keys(value)) {
      const child = value[key];
      if (child !== undefined) out.push(child);
    }
  }
}
