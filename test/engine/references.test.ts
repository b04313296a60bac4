import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bestCandidate,
  FetchResult,
  fetchUnlessDownstreamExists,
  fromCandidates,
  lockedReference,
  resolveWithStoredReference,
} from '../../src/engine/index.ts';
import { apiError } from './helpers/fake-cluster.ts';

interface Tpl {
  metadata: { name: string; uid: string };
  ready: boolean;
  priority?: number;
}
const tpl = (name: string, ready: boolean, uid = `${name}-uid`, priority = 0): Tpl => ({
  metadata: { name, uid },
  ready,
  priority,
});
const isReady = (t: Tpl) => t.ready;

describe('resolved-reference pattern', () => {
  async function resolve(stored: FetchResult<Tpl>, storedUid = 'a-uid') {
    const why: string[] = [];
    let searched = false;
    const result = await resolveWithStoredReference<Tpl>({
      stored: { name: 'a', uid: storedUid },
      fetchStored: async () => stored,
      isReady,
      resolve: async () => {
        searched = true;
        return FetchResult.of(tpl('b', false));
      },
      onFallthrough: (w) => why.push(w),
    });
    return { result, why, searched };
  }

  it('uses the stored reference while its target is Ready', async () => {
    const r = await resolve(FetchResult.of(tpl('a', true)));
    assert.equal(r.result.value?.metadata.name, 'a');
    assert.equal(r.searched, false);
  });

  it('re-resolves when the target is not Ready, deleted, or replaced by a new object of the same name', async () => {
    for (const [stored, uid, why] of [
      [FetchResult.of(tpl('a', false)), 'a-uid', 'not-ready'],
      [FetchResult.notFound<Tpl>({ kind: 'Template', name: 'a' }), 'a-uid', 'deleted'],
      [FetchResult.of(tpl('a', true, 'new-uid')), 'a-uid', 'uid-changed'],
    ] as const) {
      const r = await resolve(stored, uid);
      assert.equal(r.searched, true, why);
      assert.deepEqual(r.why, [why]);
      assert.equal(r.result.value?.metadata.name, 'b', 'the best candidate is returned even if not Ready');
    }
  });

  it('returns other fetch errors as they are, without searching', async () => {
    const r = await resolve(FetchResult.failure(apiError(503)));
    assert.equal(r.searched, false);
    assert.equal(r.result.categorized()?.category, 'Infrastructure');
  });

  it('locks in a reference only when Ready, otherwise keeps the previous one', () => {
    const toRef = (t: Tpl) => ({ name: t.metadata.name, uid: t.metadata.uid });
    assert.deepEqual(lockedReference(FetchResult.of(tpl('b', true)), isReady, toRef, { name: 'a' }), {
      name: 'b',
      uid: 'b-uid',
    });
    assert.deepEqual(lockedReference(FetchResult.of(tpl('b', false)), isReady, toRef, { name: 'a' }), { name: 'a' });
    assert.equal(lockedReference(FetchResult.failure<Tpl>(apiError(500)), isReady, toRef, undefined), undefined);
  });

  it('bestCandidate: Ready first, then rank, then the smallest name', () => {
    assert.equal(bestCandidate([tpl('c', false), tpl('b', true), tpl('a', true)], isReady)?.metadata.name, 'a');
    assert.equal(
      bestCandidate([tpl('a', true, 'x', 1), tpl('b', true, 'y', 5)], isReady, (t) => t.priority ?? 0)?.metadata.name,
      'b',
    );
    assert.equal(bestCandidate([tpl('z', false), tpl('y', false)], isReady)?.metadata.name, 'y');
    assert.equal(bestCandidate([], isReady), undefined);
    assert.equal(fromCandidates([], isReady, { kind: 'Template', namespace: 'ns' }).isNotFound(), true);
  });
});

describe('gating upstream fetches on downstream existence', () => {
  it('fetches only when the downstream object is missing', async () => {
    let calls = 0;
    const upstream = async () => {
      calls++;
      return FetchResult.of('model');
    };
    assert.equal(await fetchUnlessDownstreamExists(FetchResult.of({}), upstream), undefined, 'exists: skip');
    assert.equal(
      await fetchUnlessDownstreamExists(FetchResult.failure(apiError(503)), upstream),
      undefined,
      'unknown: skip',
    );
    assert.equal(calls, 0);
    const r = await fetchUnlessDownstreamExists(
      FetchResult.notFound({ kind: 'InferenceService', name: 'x' }),
      upstream,
    );
    assert.equal(r?.value, 'model');
    assert.equal(calls, 1);
  });
});
