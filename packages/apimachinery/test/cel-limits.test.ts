import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CelCompileError, CelEvalError, COST_LIMIT_MESSAGE, compileCel, toCel } from '../src/cel/index.ts';

const list200 = toCel(Array.from({ length: 200 }, (_, i) => i));

function limitError(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CelEvalError, `expected CelEvalError, got ${String(err)}`);
    assert.equal(err.limitExceeded, true);
    assert.match(err.message, message);
    return true;
  });
}

/** cel.bind(v1, self + self + self + self, cel.bind(v2, v1 + v1 + v1 + v1, …)): the list quadruples per level */
function growList(levels: number): string {
  let expr = `v${levels}.size()`;
  for (let i = levels; i >= 1; i--) {
    const prev = i === 1 ? 'self' : `v${i - 1}`;
    expr = `cel.bind(v${i}, ${prev} + ${prev} + ${prev} + ${prev}, ${expr})`;
  }
  return expr;
}

describe('runtime cost budget', () => {
  const costly: [string, string][] = [
    ['nested comprehensions', 'self.all(a, self.all(b, self.all(c, a + b + c >= 0)))'],
    ['nested exists that never short-circuits', 'self.exists(a, self.exists(b, self.exists(c, a + b + c < 0)))'],
    ['list growth through cel.bind', growList(8)],
    ['a swallowed error on the left of ||', 'self.all(a, self.all(b, self.all(c, true))) || true'],
    [
      'a swallowed error on the right of &&',
      'false && self.all(a, true) || self.all(a, self.all(b, self.all(c, true)))',
    ],
  ];
  for (const [name, expr] of costly) {
    // a generous wall clock, so the cost budget (not the machine's load) is what stops these
    it(`stops ${name}`, () =>
      limitError(
        () => compileCel(expr, { limits: { maxEvalMillis: 120_000 } }).evaluate({ self: list200 }),
        new RegExp(`^${COST_LIMIT_MESSAGE}`),
      ));
  }

  it('lets cheap and short-circuiting programs through', () => {
    assert.equal(compileCel('self.all(a, a >= 0)').evaluate({ self: list200 }), true);
    assert.equal(compileCel('self.exists(a, self.all(b, self.all(c, true)))').evaluate({ self: list200 }), true);
  });

  it('stops string growth through replace before allocating it', () => {
    const expr = "'aaaaaaaaaa'" + ".replace('', 'aaaaaaaaaa')".repeat(8) + '.size()';
    limitError(() => compileCel(expr).evaluate({}), /would build a string of \d+ characters/);
  });

  it('honours per-program limits and gives every evaluation a fresh budget', () => {
    const tight = compileCel('self.all(a, self.all(b, true))', { limits: { maxCost: 1000 } });
    limitError(() => tight.evaluate({ self: list200 }), /actual cost limit exceeded/);
    assert.equal(tight.evaluate({ self: toCel([1, 2, 3]) }), true);
    assert.equal(compileCel('self.all(a, self.all(b, true))').evaluate({ self: list200 }), true);
  });

  it('stops on the wall clock when the cost model underestimates the work', () => {
    const big = toCel(Array.from({ length: 5000 }, (_, i) => i));
    const slow = compileCel('self.all(a, a in self)', { limits: { maxCost: 1e15, maxEvalMillis: 5 } });
    limitError(() => slow.evaluate({ self: big }), /time limit of 5ms/);
  });
});

describe('static limits', () => {
  it('rejects over-long expressions', () => {
    assert.throws(
      () => compileCel(`self.a == '${'x'.repeat(100)}'`, { limits: { maxExpressionLength: 50 } }),
      (e: unknown) => e instanceof CelCompileError && /limit is 50/.test(e.message),
    );
  });
  it('rejects expressions with too many AST nodes', () => {
    const expr = Array.from({ length: 60 }, (_, i) => `self.a == ${i}`).join(' || ');
    assert.throws(
      () => compileCel(expr, { limits: { maxAstNodes: 100 } }),
      (e: unknown) => e instanceof CelCompileError && /maxAstNodes|nodes/.test(e.message),
    );
  });
  it('rejects deeply nested expressions', () => {
    const expr = `${'('.repeat(100)}1${')'.repeat(100)} == 1`;
    assert.throws(
      () => compileCel(expr),
      (e: unknown) => e instanceof CelCompileError && /maxDepth/.test(e.message),
    );
  });
});
