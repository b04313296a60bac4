// Size and cost limits for CEL programs. CEL has no loops, but nested comprehensions over large lists, string
// growth through replace/format and regexes over long inputs can still make one rule run for minutes; a
// rule written into a CRD must never be able to stall the API server. So every program is bounded three ways:
// statically (source length, AST nodes, nesting depth), by a runtime cost budget charged before a
// comprehension iterates (elements × step size, the shape of kube's runtime cost) and by the library
// functions in proportion to the data they touch, and by a wall-clock deadline checked while iterating.
//
// Evaluation is synchronous and single-threaded, so the budget of the evaluation in progress lives in module
// state; `enterBudget`/`exitBudget` save and restore it so an evaluation started from inside another (a
// messageExpression evaluated by a caller, say) gets its own budget.

export interface CelLimits {
  /** characters of source text */
  maxExpressionLength: number;
  /** parsed AST nodes, macro expansions included */
  maxAstNodes: number;
  /** nesting depth of the parse tree */
  maxDepth: number;
  /** runtime cost units per evaluation (kube's per-expression limit is 1,000,000) */
  maxCost: number;
  /** wall-clock milliseconds per evaluation */
  maxEvalMillis: number;
  /** longest string a library function (replace, format, join, …) may build */
  maxStringLength: number;
}

export const DEFAULT_CEL_LIMITS: Readonly<CelLimits> = Object.freeze({
  maxExpressionLength: 16_384,
  maxAstNodes: 5_000,
  maxDepth: 64,
  maxCost: 1_000_000,
  maxEvalMillis: 250,
  maxStringLength: 1 << 22,
});

/** kube-apiserver's wording, so callers can map it to the same field error kube reports */
export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export class CelLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelLimitError';
  }
}

interface BudgetState {
  cost: number;
  maxCost: number;
  deadline: number;
  maxEvalMillis: number;
  maxStringLength: number;
  ticks: number;
  exceeded: CelLimitError | undefined;
}

// Outside any evaluation (e.g. a library function called directly by a test) nothing is limited.
let state: BudgetState = {
  cost: 0,
  maxCost: Number.POSITIVE_INFINITY,
  deadline: Number.POSITIVE_INFINITY,
  maxEvalMillis: Number.POSITIVE_INFINITY,
  maxStringLength: Number.MAX_SAFE_INTEGER,
  ticks: 0,
  exceeded: undefined,
};

export function enterBudget(limits: CelLimits): BudgetState {
  const saved = state;
  state = {
    cost: 0,
    maxCost: limits.maxCost,
    deadline: performance.now() + limits.maxEvalMillis,
    maxEvalMillis: limits.maxEvalMillis,
    maxStringLength: limits.maxStringLength,
    ticks: 0,
    exceeded: undefined,
  };
  return saved;
}

export function exitBudget(saved: BudgetState): void {
  state = saved;
}

/**
 * The error that stopped the current evaluation, if any. CEL absorbs errors in `a || b`, `a && b` and in
 * exists(), so a limit error thrown deep inside can be swallowed; the limit is sticky and checked again once
 * the evaluation returns.
 */
export function budgetExceeded(): CelLimitError | undefined {
  return state.exceeded;
}

export function costSpent(): number {
  return state.cost;
}

function fail(message: string): never {
  state.exceeded ??= new CelLimitError(message);
  throw state.exceeded;
}

/** adds `units` to the running cost; throws once the budget is spent */
export function charge(units: number): void {
  if (state.exceeded) throw state.exceeded;
  if ((state.cost += units) > state.maxCost) fail(COST_LIMIT_MESSAGE);
}

/** called once per comprehension step; looks at the clock every 1024 steps */
export function tick(): void {
  if (state.exceeded) throw state.exceeded;
  if ((++state.ticks & 1023) === 0 && performance.now() > state.deadline) {
    fail(`operation cancelled: evaluation exceeded the time limit of ${state.maxEvalMillis}ms`);
  }
}

/** guards a string a library function is about to build */
export function checkStringLength(length: number, what: string): void {
  if (length > state.maxStringLength) {
    fail(`operation cancelled: ${what} would build a string of ${length} characters (limit ${state.maxStringLength})`);
  }
  charge(1 + (length >> 6));
}
