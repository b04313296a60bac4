/**
 * AST of a parsed Kubernetes JSONPath template (mirrors client-go util/jsonpath node.go) and the few Go value kinds
 * that plain JSON data cannot express but the evaluator produces.
 */

/** One bound of `[start:end:step]`; `derived` marks the end bound that `[n]` implies (n+1), as client-go does. */
export interface SliceParam {
  readonly known: boolean;
  readonly value: number;
  readonly derived: boolean;
}

export interface ListNode {
  readonly type: 'list';
  readonly nodes: readonly JsonPathNode[];
}
export interface TextNode {
  readonly type: 'text';
  readonly text: string;
}
export interface FieldNode {
  readonly type: 'field';
  readonly name: string;
}
export interface ArrayNode {
  readonly type: 'array';
  readonly params: readonly [SliceParam, SliceParam, SliceParam];
}
export interface FilterNode {
  readonly type: 'filter';
  readonly left: ListNode;
  readonly right: ListNode;
  /** `==`, `!=`, `<`, `>`, `<=`, `>=`, `exists`, or any other run of `!<>=` (rejected only when evaluated). */
  readonly operator: string;
}
export interface IntNode {
  readonly type: 'int';
  readonly value: number;
}
export interface FloatNode {
  readonly type: 'float';
  readonly value: GoFloat;
}
export interface BoolNode {
  readonly type: 'bool';
  readonly value: boolean;
}
export interface WildcardNode {
  readonly type: 'wildcard';
}
export interface RecursiveNode {
  readonly type: 'recursive';
}
export interface UnionNode {
  readonly type: 'union';
  readonly branches: readonly ListNode[];
}
/** `range`, `end`, or any other bare word (the latter fails only when evaluated: `unrecognized identifier x`). */
export interface IdentifierNode {
  readonly type: 'identifier';
  readonly name: string;
}

export type JsonPathNode =
  | ListNode
  | TextNode
  | FieldNode
  | ArrayNode
  | FilterNode
  | IntNode
  | FloatNode
  | BoolNode
  | WildcardNode
  | RecursiveNode
  | UnionNode
  | IdentifierNode;

/** A parsed template: top-level nodes are literal text and `{...}` actions (list nodes). Deeply frozen. */
export interface JsonPathTemplate {
  readonly source: string;
  readonly nodes: readonly (ListNode | TextNode)[];
}

/**
 * Go scalar kinds that JSON data has no separate representation for. Plain JS numbers in data stand for Go int64
 * when they are integers in int64 range (kubectl decodes JSON integers as int64) and float64 otherwise.
 */
export abstract class GoScalar {
  constructor(readonly value: number) {}
}
/** A float64 written as a literal in the template (`3.0` is float64 in Go and does not compare equal to int64 3). */
export class GoFloat extends GoScalar {}
/** A byte of a string's UTF-8 encoding, produced when `*` or `..` descends into a string (Go indexes strings by byte). */
export class GoByte extends GoScalar {}

/** Go's invalid reflect.Value: what a `{range}` iteration sees for a null element, or the data itself when it is null. */
export const NO_VALUE: unique symbol = Symbol('jsonpath.noValue');
