import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/errors.ts';
import { applyJsonPatch, applyMergePatch } from '../../src/patch/index.ts';

type Obj = Record<string, any>;
const pod: Obj = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', resourceVersion: '7', labels: { app: 'web' }, finalizers: ['a', 'b'] },
  spec: { containers: [{ name: 'c', image: 'i:1' }] },
};

describe('JSON merge patch (RFC 7386)', () => {
  const cases: Array<{ name: string; patch: unknown; want: Obj }> = [
    {
      name: 'adds and replaces members',
      patch: { metadata: { labels: { tier: 'x' } }, spec: { nodeName: 'n1' } },
      want: {
        ...pod,
        metadata: { ...pod.metadata, labels: { app: 'web', tier: 'x' } },
        spec: { ...pod.spec, nodeName: 'n1' },
      },
    },
    {
      name: 'null deletes a member',
      patch: { metadata: { labels: null } },
      want: { ...pod, metadata: { name: 'p', resourceVersion: '7', finalizers: ['a', 'b'] } },
    },
    {
      name: 'lists are replaced, never merged',
      patch: { metadata: { finalizers: ['c'] } },
      want: { ...pod, metadata: { ...pod.metadata, finalizers: ['c'] } },
    },
    {
      name: 'nulls inside a new object are dropped, nulls in lists kept',
      patch: { spec: { affinity: { nodeAffinity: null, podAffinity: { x: [null, { y: null, z: 1 }] } } } },
      want: { ...pod, spec: { ...pod.spec, affinity: { podAffinity: { x: [null, { z: 1 }] } } } },
    },
    {
      name: 'an object replaces a scalar',
      patch: { metadata: { resourceVersion: { a: 1, b: null } } },
      want: { ...pod, metadata: { ...pod.metadata, resourceVersion: { a: 1 } } },
    },
    { name: 'an empty patch changes nothing', patch: {}, want: pod },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = structuredClone(pod);
      assert.deepEqual(applyMergePatch(input, c.patch), c.want);
      assert.deepEqual(input, pod);
    });
  }

  it('a list patch becomes the document; null and scalar patches are 400s', () => {
    assert.deepEqual(applyMergePatch(pod, [1, { a: null }]), [1, {}]);
    for (const p of [null, 'x', 3])
      assert.throws(
        () => applyMergePatch(pod, p),
        (e: StatusError) => e.code === 400 && e.message === 'Invalid JSON Patch',
      );
  });
});

describe('JSON patch (RFC 6902)', () => {
  const ok: Array<{ name: string; ops: Obj[]; check: (o: Obj) => void }> = [
    {
      name: 'add a member and append with -',
      ops: [
        { op: 'add', path: '/metadata/labels/tier', value: 'x' },
        { op: 'add', path: '/metadata/finalizers/-', value: 'c' },
      ],
      check: (o) => {
        assert.equal(o.metadata.labels.tier, 'x');
        assert.deepEqual(o.metadata.finalizers, ['a', 'b', 'c']);
      },
    },
    {
      name: 'insert at an index',
      ops: [{ op: 'add', path: '/metadata/finalizers/0', value: 'z' }],
      check: (o) => assert.deepEqual(o.metadata.finalizers, ['z', 'a', 'b']),
    },
    {
      name: 'remove a member and a list element',
      ops: [
        { op: 'remove', path: '/metadata/labels/app' },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ],
      check: (o) => {
        assert.deepEqual(o.metadata.labels, {});
        assert.deepEqual(o.metadata.finalizers, ['b']);
      },
    },
    {
      name: 'negative indexes count from the end',
      ops: [{ op: 'remove', path: '/metadata/finalizers/-1' }],
      check: (o) => assert.deepEqual(o.metadata.finalizers, ['a']),
    },
    {
      name: 'replace, with ~1 escaping a slash',
      ops: [
        { op: 'add', path: '/metadata/annotations', value: { 'a/b': '1' } },
        { op: 'replace', path: '/metadata/annotations/a~1b', value: '2' },
      ],
      check: (o) => assert.deepEqual(o.metadata.annotations, { 'a/b': '2' }),
    },
    {
      name: 'move and copy',
      ops: [
        { op: 'copy', from: '/metadata/labels', path: '/metadata/annotations' },
        { op: 'move', from: '/metadata/finalizers/1', path: '/metadata/finalizers/0' },
      ],
      check: (o) => {
        assert.deepEqual(o.metadata.annotations, { app: 'web' });
        assert.deepEqual(o.metadata.finalizers, ['b', 'a']);
      },
    },
    {
      name: 'a passing test guards the following operations (optimistic lock on resourceVersion)',
      ops: [
        { op: 'test', path: '/metadata/resourceVersion', value: '7' },
        { op: 'replace', path: '/metadata/labels', value: { b: '2' } },
      ],
      check: (o) => assert.deepEqual(o.metadata.labels, { b: '2' }),
    },
    {
      name: 'test for null passes on a missing member',
      ops: [{ op: 'test', path: '/metadata/annotations', value: null }],
      check: (o) => assert.deepEqual(o, pod),
    },
  ];
  for (const c of ok) {
    it(c.name, () => {
      const input = structuredClone(pod);
      c.check(applyJsonPatch(input, c.ops) as Obj);
      assert.deepEqual(input, pod);
    });
  }

  const unprocessable: Array<{ name: string; ops: Obj[] }> = [
    { name: 'a failing test', ops: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }] },
    { name: 'remove of a missing member', ops: [{ op: 'remove', path: '/metadata/annotations' }] },
    { name: 'replace of a missing member', ops: [{ op: 'replace', path: '/spec/nodeName', value: 'n' }] },
    { name: 'add below a missing parent', ops: [{ op: 'add', path: '/metadata/annotations/x', value: 'y' }] },
    { name: 'an index past the end', ops: [{ op: 'add', path: '/metadata/finalizers/5', value: 'x' }] },
    { name: 'an unknown op', ops: [{ op: 'merge', path: '/spec' }] },
    { name: 'an operation without a path', ops: [{ op: 'add', value: 1 }] },
  ];
  for (const c of unprocessable) {
    it(`${c.name} is kube's generic 422, and earlier operations are discarded`, () => {
      assert.throws(
        () => applyJsonPatch(pod, [{ op: 'add', path: '/metadata/labels/x', value: 'y' }, ...c.ops]),
        (e: unknown) =>
          e instanceof StatusError &&
          e.code === 422 &&
          e.reason === 'Invalid' &&
          e.message === 'the server rejected our request due to an error in our request' &&
          JSON.stringify(e.toStatus()) ===
            '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server rejected our request due to an error in our request","reason":"Invalid","code":422,"details":{}}',
      );
      assert.equal(pod.metadata.labels.x, undefined);
    });
  }

  it('a patch that is not a list of operations is a 400', () => {
    assert.throws(
      () => applyJsonPatch(pod, { op: 'add' }),
      (e: StatusError) =>
        e.code === 400 && e.message === 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    );
    assert.throws(
      () => applyJsonPatch(pod, ['x']),
      (e: StatusError) =>
        e.code === 400 && e.message === 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
    );
  });

  it('more than 10000 operations is 413', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Pod' }));
    assert.throws(
      () => applyJsonPatch(pod, ops),
      (e: StatusError) =>
        e.code === 413 && e.message === 'The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
  });
});
