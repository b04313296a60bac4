import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReverseIndex } from '../src/reverse-index.ts';

describe('ReverseIndex', () => {
  it('finds the holders of a key through changes and deletions', () => {
    const idx = new ReverseIndex();
    idx.set('ns/r1', ['svc:a', 'svc:b']);
    idx.set('ns/r2', ['svc:a']);
    assert.deepEqual(idx.holdersOf('svc:a').sort(), ['ns/r1', 'ns/r2']);
    idx.set('ns/r1', ['svc:c']);
    assert.deepEqual(idx.holdersOf('svc:a'), ['ns/r2']);
    assert.deepEqual(idx.holdersOf('svc:b'), []);
    assert.equal(idx.hasHolders('svc:b'), false);
    assert.deepEqual(idx.refsFrom('ns/r1'), ['svc:c']);
    idx.delete('ns/r2');
    assert.deepEqual(idx.holdersOf('svc:a'), []);
    assert.deepEqual(idx.holdersOf('svc:c'), ['ns/r1']);
  });

  it('records each reference once and forgets a holder that refers to nothing', () => {
    const idx = new ReverseIndex();
    idx.set('child', ['u1', 'u1', 'u2']);
    assert.deepEqual(idx.refsFrom('child'), ['u1', 'u2']);
    assert.equal(idx.size, 1);
    idx.set('child', []);
    assert.equal(idx.size, 0);
    assert.equal(idx.hasHolders('u1'), false);
  });

  it('holdersOf is a snapshot: changing the index while iterating it is safe', () => {
    const idx = new ReverseIndex();
    for (const h of ['a', 'b', 'c']) idx.set(h, ['k']);
    const seen: string[] = [];
    for (const h of idx.holdersOf('k')) {
      idx.delete(h);
      seen.push(h);
    }
    assert.deepEqual(seen.sort(), ['a', 'b', 'c']);
    assert.equal(idx.hasHolders('k'), false);
  });
});
