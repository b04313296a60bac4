// The Kubernetes CEL environment: compile once (cached per expression, variables and limits), evaluate many
// times under a cost and time budget. Used by the API server for CRD `x-kubernetes-validations` and by the
// operator for KubeAIRunway provider selection rules.
//
//   const p = compileCel('self.spec.replicas <= 10', { variables: ['self'] });
//   p.evaluate({ self: toCel(obj, schema) });   // → true | false | …, or throws CelEvalError
//
// Values passed to evaluate() must already be CEL values (see toCel): integers as BigInt.

import { type CelVariable, environmentFor, normalizeVariables, variablesKey } from './environment.ts';
import { CelCompileError, CelEvalError, toCompileError, toEvalError } from './errors.ts';
import { instrumentProgram } from './instrument.ts';
import { budgetExceeded, type CelLimits, costSpent, DEFAULT_CEL_LIMITS, enterBudget, exitBudget } from './limits.ts';

export { escapeCelProperty, fromCel, type OpenAPISchemaLike, toCel } from './convert.ts';
export type { CelVariable } from './environment.ts';
export { CelCompileError, CelEvalError } from './errors.ts';
export { normalizeFieldPath } from './field-path.ts';
export { type CelLimits, COST_LIMIT_MESSAGE, DEFAULT_CEL_LIMITS } from './limits.ts';

export interface CelProgram {
  readonly expression: string;
  /** the statically checked result type: 'bool', 'string', 'dyn', … */
  readonly type: string;
  /** identifiers the expression references, e.g. to tell whether a rule uses oldSelf */
  readonly identifiers: ReadonlySet<string>;
  evaluate(vars: Record<string, unknown>): unknown;
}

export interface CompileCelOptions {
  /** names (typed dyn) or {name, type}; defaults to ['self'] */
  variables?: ReadonlyArray<string | CelVariable>;
  limits?: Partial<CelLimits>;
}

type Evaluate = (vars: Record<string, unknown>) => unknown;

let lastCost = 0;

/** runtime cost units the most recent evaluate() spent, for callers that keep a budget across rules */
export function lastEvaluationCost(): number {
  return lastCost;
}

class CompiledProgram implements CelProgram {
  constructor(
    readonly expression: string,
    readonly type: string,
    readonly identifiers: ReadonlySet<string>,
    private readonly run: Evaluate,
    private readonly limits: CelLimits,
  ) {}

  evaluate(vars: Record<string, unknown>): unknown {
    const saved = enterBudget(this.limits);
    try {
      const result = this.run(vars);
      const exceeded = budgetExceeded();
      if (exceeded) throw exceeded;
      return result;
    } catch (err) {
      throw toEvalError(err, this.expression);
    } finally {
      lastCost = costSpent() + 1;
      exitBudget(saved);
    }
  }
}

const CACHE_SIZE = 4096;
const cache = new Map<string, CelProgram | CelCompileError>();

function limitsKey(l: CelLimits): string {
  return `${l.maxExpressionLength}/${l.maxAstNodes}/${l.maxDepth}/${l.maxCost}/${l.maxEvalMillis}/${l.maxStringLength}`;
}

function build(expression: string, variables: CelVariable[], limits: CelLimits): CelProgram {
  if (typeof expression !== 'string')
    throw new CelCompileError('ERROR: <input>: expression must be a string', String(expression));
  if (expression.trim() === '') throw new CelCompileError('ERROR: <input>: expression is empty', expression);
  if (expression.length > limits.maxExpressionLength) {
    throw new CelCompileError(
      `ERROR: <input>: expression is ${expression.length} characters long, the limit is ${limits.maxExpressionLength}`,
      expression,
    );
  }
  const env = environmentFor(variables, limits);
  let parsed: ReturnType<typeof env.parse>;
  try {
    parsed = env.parse(expression);
  } catch (err) {
    throw toCompileError(err, expression);
  }
  const checked = parsed.check();
  if (!checked.valid) throw toCompileError(checked.error, expression);
  const { nodes, identifiers } = instrumentProgram(parsed.ast);
  if (nodes > limits.maxAstNodes) {
    throw new CelCompileError(
      `ERROR: <input>: expression expands to ${nodes} nodes, the limit is ${limits.maxAstNodes}`,
      expression,
    );
  }
  return new CompiledProgram(expression, checked.type ?? 'dyn', identifiers, parsed as Evaluate, limits);
}

/**
 * Compiles (or returns the cached program for) `expression`. Throws CelCompileError with cel-go style
 * position information for syntax errors, unknown variables or functions, type errors and size limits.
 */
export function compileCel(expression: string, opts?: CompileCelOptions): CelProgram {
  const variables = normalizeVariables(opts?.variables ?? ['self']);
  const limits: CelLimits = opts?.limits ? { ...DEFAULT_CEL_LIMITS, ...opts.limits } : DEFAULT_CEL_LIMITS;
  const key = `${variablesKey(variables)}\n${limitsKey(limits)}\n${expression}`;
  let entry = cache.get(key);
  if (entry === undefined) {
    try {
      entry = build(expression, variables, limits);
    } catch (err) {
      entry = toCompileError(err, expression);
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, entry);
  }
  if (entry instanceof CelCompileError) throw entry;
  return entry;
}

/** evaluates and requires a boolean result, as validation and selection rules do */
export function evaluateBool(program: CelProgram, vars: Record<string, unknown>): boolean {
  const result = program.evaluate(vars);
  if (typeof result !== 'boolean') {
    throw new CelEvalError(
      `expression must evaluate to a bool, got ${typeof result === 'bigint' ? 'int' : typeof result}`,
      program.expression,
    );
  }
  return result;
}
