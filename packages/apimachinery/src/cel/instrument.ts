// Hooks the runtime budget (limits.ts) into a parsed cel-js program. cel-js expands the list macros (all,
// exists, exists_one, map, filter) into `comprehension` nodes hanging off the call node as `meta.alternate`;
// every child is evaluated through `node.evaluate(ev, node, ctx)`. Giving a comprehension's iterable and step
// nodes an own `evaluate` that charges the budget therefore meters every loop without touching the library:
// the iterable charges `elements × (step size + 1)` before the loop starts (so a runaway nested loop stops
// before doing the work), and the step ticks the wall clock.
//
// This relies on cel-js 8 internals (ASTNode.meta, comprehension args); test/cel-limits.test.ts (in this package) fails
// if an upgrade changes them.

import { charge, tick } from './limits.ts';

interface NodeMeta {
  alternate?: CelNode;
  macro?: Record<string, unknown> & { evaluate(ev: unknown, macro: unknown, ctx: unknown): unknown };
  evaluate(ev: unknown, ast: CelNode, ctx: unknown): unknown;
}

interface CelNode {
  op: string;
  args: unknown;
  readonly meta: NodeMeta;
  evaluate(ev: unknown, ast: CelNode, ctx: unknown): unknown;
}

interface Evaluator {
  run(node: CelNode, ctx: unknown): unknown;
}

function isNode(x: unknown): x is CelNode {
  return typeof x === 'object' && x !== null && typeof (x as CelNode).op === 'string' && 'meta' in x;
}

/** the AST nodes directly below `node`, macro expansions included */
function children(node: CelNode): CelNode[] {
  const out: CelNode[] = [];
  const collect = (x: unknown, depth: number): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x) && depth < 2) for (const y of x) collect(y, depth + 1);
  };
  const args = node.args;
  if (node.op === 'comprehension') {
    const c = args as { iterable: CelNode; init: CelNode; step: CelNode };
    out.push(c.iterable, c.init, c.step);
  } else {
    collect(args, 0);
  }
  const meta = node.meta;
  if (meta.alternate) out.push(meta.alternate);
  if (meta.macro) for (const v of Object.values(meta.macro)) collect(v, 1);
  return out;
}

/** the node's normal evaluation, replicating ASTNode.prototype.evaluate's dispatch */
function evaluateUnwrapped(node: CelNode, ev: Evaluator, ctx: unknown): unknown {
  const meta = node.meta;
  if (meta.alternate) return ev.run(meta.alternate, ctx);
  if (meta.macro) return meta.macro.evaluate(ev, meta.macro, ctx);
  return meta.evaluate(ev, node, ctx);
}

function sizeOf(collection: unknown): number {
  if (Array.isArray(collection)) return collection.length;
  if (collection instanceof Map || collection instanceof Set) return collection.size;
  if (typeof collection === 'object' && collection !== null) {
    let n = 0;
    for (const _ in collection) n++;
    return n;
  }
  return 0;
}

function countNodes(node: CelNode, seen: Set<CelNode>): number {
  if (seen.has(node)) return 0;
  seen.add(node);
  let n = 1;
  for (const c of children(node)) n += countNodes(c, seen);
  return n;
}

/** replaces the node's evaluation with `hook(value)` applied to its normal result */
function meterResult(node: CelNode, hook: (value: unknown) => void): void {
  node.evaluate = (ev, _ast, ctx) => {
    const value = evaluateUnwrapped(node, ev as Evaluator, ctx);
    hook(value);
    return value;
  };
}

const chargeSize = (value: unknown) => charge(sizeOf(value));
/** strings are charged per 64 characters: concatenation is cheap per byte, but not free */
const chargeConcat = (value: unknown) => charge(typeof value === 'string' ? value.length >> 6 : sizeOf(value));

function meterComprehension(node: CelNode): void {
  const c = node.args as { iterable: CelNode; step: CelNode };
  const weight = countNodes(c.step, new Set()) + 1;
  meterResult(c.iterable, (collection) => charge(sizeOf(collection) * weight));
  const step = c.step;
  step.evaluate = (ev, _ast, ctx) => {
    tick();
    return evaluateUnwrapped(step, ev as Evaluator, ctx);
  };
}

/**
 * Operators whose work grows with their operands: `x in list` scans the list, `==` on lists and maps
 * compares deeply, `+` on lists and strings copies. Their collection operands are charged by size.
 */
function meterOperator(node: CelNode): void {
  const args = node.args as CelNode[];
  switch (node.op) {
    case 'in':
      meterResult(args[1]!, chargeSize);
      break;
    case '==':
    case '!=':
      meterResult(args[0]!, chargeSize);
      meterResult(args[1]!, chargeSize);
      break;
    case '+':
      meterResult(node, chargeConcat);
      break;
  }
}

export interface ProgramShape {
  /** distinct AST nodes, macro expansions included */
  nodes: number;
  /** identifiers the program references (variables, constants, comprehension variables) */
  identifiers: Set<string>;
}

/** Installs the budget hooks on every comprehension and size-dependent operator below `root`. */
export function instrumentProgram(root: unknown): ProgramShape {
  const identifiers = new Set<string>();
  if (!isNode(root)) return { nodes: 0, identifiers };
  const seen = new Set<CelNode>();
  const stack: CelNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.op === 'id' && typeof node.args === 'string') identifiers.add(node.args);
    if (node.op === 'comprehension') meterComprehension(node);
    else meterOperator(node);
    for (const c of children(node)) stack.push(c);
  }
  return { nodes: seen.size, identifiers };
}
