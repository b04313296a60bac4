import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSelector, selectorFromObject } from '../src/meta/labels.ts';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'frontend', 'example.com/team': 'a' };
  const cases: Array<[selector: string, matches: boolean]> = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['tier in (frontend, backend)', true],
    ['tier in (backend)', false],
    ['tier notin (backend)', true],
    ['missing notin (x)', true],
    ['missing in (x)', false],
    ['app=web,tier in (frontend),!legacy', true],
    ['app=web,tier=backend', false],
    ['example.com/team=a', true],
    [' app = web ', true],
  ];
  for (const [selector, expected] of cases) {
    it(`"${selector}" ${expected ? 'matches' : 'does not match'}`, () => {
      assert.equal(parseSelector(selector).matches(labels), expected);
    });
  }

  it('canonicalises so equivalent selectors share a cache key', () => {
    assert.equal(parseSelector('b=2, a in (y,x)').toString(), parseSelector('a in (x, y),b==2').toString());
  });

  it('names the bad part of an invalid selector', () => {
    assert.throws(() => parseSelector('app=we b'), /invalid label value "we b"/);
    assert.throws(() => parseSelector('a,,b'), /empty requirement/);
    assert.throws(() => parseSelector('-bad=1'), /invalid label key "-bad"/);
  });

  it('converts metav1.LabelSelector objects', () => {
    const sel = selectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(sel.matches(labels), true);
    assert.equal(sel.matches({ ...labels, legacy: 'y' }), false);
    assert.throws(
      () => selectorFromObject({ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }),
      /key "x"/,
    );
  });
});
