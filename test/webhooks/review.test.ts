// AdmissionReview decoding and the responses built from handler results: uid echo, denials with causes in
// kube's aggregate wording, warnings, and RFC 6902 patches that turn the original into the mutated object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import jsonpatch from 'fast-json-patch';
import {
  aggregateMessage,
  BadReview,
  computePatch,
  decodeAdmissionReview,
  deny,
  encodeAdmissionReview,
  mutated,
  mutationResponse,
  validationResponse,
} from '../../src/webhooks/index.ts';

const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns', ...extra },
  data,
});

function review(overrides: Record<string, unknown> = {}, apiVersion = 'admission.k8s.io/v1'): Record<string, unknown> {
  return {
    apiVersion,
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: cm({ a: '1' }),
      ...overrides,
    },
  };
}

describe('decodeAdmissionReview', () => {
  it('returns the version and request, with oldObject null when absent', () => {
    const { version, request } = decodeAdmissionReview(review());
    assert.equal(version, 'v1');
    assert.equal(request.uid, 'u-1');
    assert.equal(request.oldObject, null);
    assert.equal(decodeAdmissionReview(review({}, 'admission.k8s.io/v1beta1')).version, 'v1beta1');
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ['not an object', [1, 2], /must be a JSON object/],
    ['wrong kind', { ...review(), kind: 'ConversionReview' }, /expected kind AdmissionReview, got "ConversionReview"/],
    [
      'unknown version',
      review({}, 'admission.k8s.io/v2'),
      /unsupported AdmissionReview apiVersion "admission.k8s.io\/v2"/,
    ],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, /has no request/],
    ['empty uid', review({ uid: '' }), /request.uid must be a non-empty string/],
    ['bad operation', review({ operation: 'PATCH' }), /operation "PATCH" is not one of/],
    ['kind not a GVK', review({ kind: 'ConfigMap' }), /request.kind must be an object with group, version and kind/],
    ['resource missing', review({ resource: undefined }), /request.resource must be an object/],
    ['object a string', review({ object: 'x' }), /request.object must be an object or null/],
  ];
  for (const [name, body, message] of bad) {
    it(`refuses ${name}`, () =>
      assert.throws(
        () => decodeAdmissionReview(body),
        (e: unknown) => e instanceof BadReview && message.test((e as Error).message),
      ));
  }
});

describe('validationResponse', () => {
  it('allows with warnings and echoes the uid', () => {
    assert.deepEqual(validationResponse('u', { errors: [], warnings: ['careful'] }), {
      uid: 'u',
      allowed: true,
      warnings: ['careful'],
    });
    assert.deepEqual(validationResponse('u', undefined), { uid: 'u', allowed: true });
  });

  it("denies field errors as 403 Forbidden with one cause per field and Go's aggregate message", () => {
    const one = validationResponse('u', {
      errors: [{ field: 'spec.engine.type', message: 'engine.type is required' }],
    });
    assert.deepEqual(one, {
      uid: 'u',
      allowed: false,
      status: {
        code: 403,
        reason: 'Forbidden',
        message: 'engine.type is required',
        details: {
          causes: [{ reason: 'FieldValueInvalid', field: 'spec.engine.type', message: 'engine.type is required' }],
        },
      },
    });
    const two = validationResponse('u', {
      errors: [
        { field: 'a', message: 'first' },
        { field: 'b', message: 'second' },
      ],
      warnings: ['w'],
    });
    assert.equal(two.status?.message, '[first, second]');
    assert.deepEqual(two.warnings, ['w'], 'warnings travel with a denial too');
  });

  it('passes an explicit denial through with its code and reason', () => {
    assert.deepEqual(validationResponse('u', deny('not here', { code: 422, reason: 'Invalid' })), {
      uid: 'u',
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: 'not here' },
    });
  });

  it('refuses results of the wrong shape so the server reports them as handler errors', () => {
    assert.throws(() => validationResponse('u', { errors: ['oops'] } as any), /not a list of \{ field, message \}/);
    assert.throws(() => validationResponse('u', { warnings: 'w' } as any), /warnings that are not a list of strings/);
  });

  it('aggregates like utilerrors.NewAggregate', () => {
    assert.equal(aggregateMessage(['a']), 'a');
    assert.equal(aggregateMessage(['a', 'b', 'c']), '[a, b, c]');
  });
});

describe('mutationResponse and computePatch', () => {
  const cases: Array<[string, KubeObject, KubeObject]> = [
    ['adds a field', cm({ a: '1' }), cm({ a: '1', b: '2' })],
    ['replaces and removes', cm({ a: '1', b: '2' }), cm({ a: '3' })],
    [
      'escapes ~ and / in keys',
      cm({}, { annotations: { 'example.com/a~b': 'x' } }),
      cm({}, { annotations: { 'example.com/a~b': 'y', 'k8s.io/new': 'z' } }),
    ],
    ['rewrites lists', { ...cm({}), list: [1, 2, 3] }, { ...cm({}), list: [3, { n: 1 }] }],
    ['creates nested objects', cm({}), { ...cm({}), spec: { scaling: { replicas: 0 }, enabled: false } }],
  ];
  for (const [name, before, after] of cases) {
    it(`${name}: the patch applied to the original gives the mutated object`, () => {
      const res = mutationResponse('u', before, structuredClone(after));
      assert.equal(res.patchType, 'JSONPatch');
      const ops = JSON.parse(Buffer.from(res.patch!, 'base64').toString());
      assert.deepEqual(jsonpatch.applyPatch(structuredClone(before), ops).newDocument, after);
    });
  }

  it('omits the patch when nothing changed, including fields set to undefined', () => {
    assert.deepEqual(mutationResponse('u', cm({ a: '1' }), { ...cm({ a: '1' }), extra: undefined }), {
      uid: 'u',
      allowed: true,
    });
    assert.deepEqual(computePatch({ a: 1 }, { a: 1, b: undefined }), []);
  });

  it('takes the working copy when the mutator changed it in place and returned nothing', () => {
    const working = cm({ a: '1', b: '2' });
    const res = mutationResponse('u', cm({ a: '1' }), undefined, working);
    assert.deepEqual(JSON.parse(Buffer.from(res.patch!, 'base64').toString()), [
      { op: 'add', path: '/data/b', value: '2' },
    ]);
  });

  it('returns warnings with the patch, and denials as denials', () => {
    const res = mutationResponse('u', cm({}), mutated(cm({ a: '1' }), ['defaulted a']));
    assert.deepEqual(res.warnings, ['defaulted a']);
    assert.ok(res.patch);
    assert.deepEqual(mutationResponse('u', cm({}), deny('no')), {
      uid: 'u',
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'no' },
    });
  });

  it('refuses an object for a DELETE (there is nothing to patch)', () => {
    assert.throws(() => mutationResponse('u', null, cm({})), /request without one \(DELETE\)/);
  });
});

describe('encodeAdmissionReview', () => {
  it('answers in the version it was asked in', () => {
    assert.deepEqual(encodeAdmissionReview('v1beta1', { uid: 'u', allowed: true }), {
      apiVersion: 'admission.k8s.io/v1beta1',
      kind: 'AdmissionReview',
      response: { uid: 'u', allowed: true },
    });
  });
});
