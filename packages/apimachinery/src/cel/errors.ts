// Errors of the CEL environment, worded like cel-go so API-server messages read as kube-apiserver's do:
// compile errors as `ERROR: <input>:1:6: <what>` followed by the source line and a caret, evaluation errors
// as the bare cause (`no such key: replicas`, `division by zero`).

import { CelLimitError } from './limits.ts';

export class CelCompileError extends Error {
  constructor(
    message: string,
    readonly expression: string,
    /** 0-based offset into the expression of the offending token, when known */
    readonly offset?: number,
  ) {
    super(message);
    this.name = 'CelCompileError';
  }
}

export class CelEvalError extends Error {
  constructor(
    message: string,
    readonly expression: string,
    /** true when the cost or time budget stopped the evaluation */
    readonly limitExceeded = false,
  ) {
    super(message);
    this.name = 'CelEvalError';
  }
}

interface CelLibraryError {
  summary?: string;
  message: string;
  node?: { pos?: number };
  range?: { start: number; end: number };
}

/** cel-go's layout: `ERROR: <input>:line:col: summary`, then ` | <source line>` and ` | ....^` */
export function formatCompileError(expression: string, summary: string, offset?: number): string {
  if (offset === undefined || offset < 0 || offset > expression.length) return `ERROR: <input>: ${summary}`;
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const lineEnd = expression.indexOf('\n', offset);
  const sourceLine = expression.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  return `ERROR: <input>:${line}:${column + 1}: ${summary}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

/** lower-cases and rewords cel-js runtime messages into cel-go's */
export function celGoWording(summary: string): string {
  const index = /^No such key: index out of bounds, index (-?\d+)/.exec(summary);
  if (index) return `index out of bounds: ${index[1]}`;
  if (summary.startsWith('No such key: ')) return `no such key: ${summary.slice('No such key: '.length)}`;
  return summary;
}

function summaryOf(err: unknown): string {
  if (err instanceof Error) return (err as CelLibraryError).summary ?? err.message;
  return String(err);
}

export function offsetOf(err: unknown): number | undefined {
  const e = err as CelLibraryError;
  return e?.node?.pos ?? e?.range?.start;
}

/** rewords the most common cel-js compile messages into cel-go's */
export function celGoCompileWording(summary: string): string {
  const unknown = /^Unknown variable: (\S+)$/.exec(summary);
  if (unknown) return `undeclared reference to '${unknown[1]}' (in container '')`;
  const binary = /^no such overload: (\S+) (\S+) (\S+)$/.exec(summary);
  if (binary) return `found no matching overload for '_${binary[2]}_' applied to '(${binary[1]}, ${binary[3]})'`;
  return summary;
}

export function toCompileError(err: unknown, expression: string): CelCompileError {
  if (err instanceof CelCompileError) return err;
  const offset = offsetOf(err);
  return new CelCompileError(
    formatCompileError(expression, celGoCompileWording(summaryOf(err)), offset),
    expression,
    offset,
  );
}

export function toEvalError(err: unknown, expression: string): CelEvalError {
  if (err instanceof CelEvalError) return err;
  if (err instanceof CelLimitError) return new CelEvalError(err.message, expression, true);
  if (err instanceof RangeError) return new CelEvalError(`operation cancelled: ${err.message}`, expression, true);
  return new CelEvalError(celGoWording(summaryOf(err)), expression);
}
