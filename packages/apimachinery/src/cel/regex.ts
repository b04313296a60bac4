// Regular expressions for CEL, always through RE2 (re2js): linear-time matching and RE2 syntax (`(?i)`,
// `\p{L}`), as cel-go and kube use. cel-js's built-in `string.matches` compiles the pattern with JS RegExp,
// whose backtracking takes 105 s on `('a' * 36 + '!').matches('^(a+)+$')`, and cel-js refuses to register a
// second `string.matches(string)` overload. A macro, though, is looked up by name and arity before any
// overload, so registering `matches` as a one-argument macro on an otherwise unused receiver type captures
// every `x.matches(re)` call at parse time and the built-in is never reached.

import { type Environment, EvaluationError } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { charge } from './limits.ts';

const CACHE_SIZE = 512;
const cache = new Map<string, RE2JS>();

/** compiles (and caches) an RE2 pattern; throws with Go's regexp error text */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = RE2JS.compile(pattern);
  } catch (err) {
    throw new EvaluationError(err instanceof Error ? err.message : `error parsing regexp: ${String(err)}`);
  }
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(pattern, re);
  return re;
}

/** RE2 search is O(input × pattern); charge accordingly */
function chargeMatch(input: string, pattern: string): void {
  charge(1 + ((input.length * (pattern.length + 1)) >> 6));
}

export function re2Matches(input: string, pattern: string): boolean {
  chargeMatch(input, pattern);
  return compileRegex(pattern).test(input);
}

export function re2Find(input: string, pattern: string): string {
  chargeMatch(input, pattern);
  const m = compileRegex(pattern).matcher(input);
  return m.find() ? (m.group() ?? '') : '';
}

export function re2FindAll(input: string, pattern: string, limit = -1n): string[] {
  chargeMatch(input, pattern);
  const out: string[] = [];
  if (limit === 0n) return out;
  const m = compileRegex(pattern).matcher(input);
  while (m.find()) {
    out.push(m.group() ?? '');
    if (limit > 0n && BigInt(out.length) >= limit) break;
  }
  return out;
}

function noOverload(recv: unknown, arg: unknown): EvaluationError {
  return new EvaluationError(`no such overload: ${typeof recv}.matches(${typeof arg})`);
}

interface Checker {
  check(node: unknown, ctx: unknown): { name: string };
  getType(name: string): unknown;
  createError(code: string, message: string, node: unknown): Error;
}

interface Runner {
  run(node: unknown, ctx: unknown): unknown;
}

interface MatchesMacro {
  call: unknown;
  receiver: { op: string; args: unknown };
  pattern: { op: string; args: unknown };
}

/** marker type that nothing ever has; the macro only needs a receiver type distinct from `string` */
class RegexMacroReceiver {}

export function registerRegexLibrary(env: Environment): void {
  env.registerType('RegexMacroReceiver', RegexMacroReceiver);
  env.registerFunction(
    'RegexMacroReceiver.matches(ast): bool',
    ({ ast, args, receiver }: { ast: unknown; args: unknown[]; receiver: unknown }) => ({
      call: ast,
      receiver,
      pattern: args[0],
      async: false,
      typeCheck(chk: Checker, m: MatchesMacro, ctx: unknown) {
        const recvType = chk.check(m.receiver, ctx).name;
        const patType = chk.check(m.pattern, ctx).name;
        const ok = (t: string) => t === 'string' || t === 'dyn';
        if (!ok(recvType) || !ok(patType)) {
          throw chk.createError(
            'no_matching_overload',
            `found no matching overload for '${recvType}.matches(${patType})'`,
            m.call,
          );
        }
        // a constant pattern is compiled now so a bad regex is a compile error, as in kube
        if (m.pattern.op === 'value' && typeof m.pattern.args === 'string') {
          try {
            compileRegex(m.pattern.args);
          } catch (err) {
            throw chk.createError('invalid_regex', (err as Error).message, m.pattern);
          }
        }
        return chk.getType('bool');
      },
      evaluate(ev: Runner, m: MatchesMacro, ctx: unknown) {
        const input = ev.run(m.receiver, ctx);
        const pattern = ev.run(m.pattern, ctx);
        if (typeof input !== 'string' || typeof pattern !== 'string') throw noOverload(input, pattern);
        return re2Matches(input, pattern);
      },
    }),
  );
  env.registerFunction('matches(string, string): bool', (input: string, pattern: string) => re2Matches(input, pattern));
  env.registerFunction('string.find(string): string', (input: string, pattern: string) => re2Find(input, pattern));
  env.registerFunction('string.findAll(string): list<string>', (input: string, pattern: string) =>
    re2FindAll(input, pattern),
  );
  env.registerFunction('string.findAll(string, int): list<string>', (input: string, pattern: string, limit: bigint) =>
    re2FindAll(input, pattern, limit),
  );
}
