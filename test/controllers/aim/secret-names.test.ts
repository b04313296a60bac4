// The Secrets an AIM object names and what a download Job recorded of them (docs/aim.md, "Secrets"): only
// names a Secret can have are watched (a comma must never reach a field selector), cluster-scoped objects'
// Secrets live in the operator namespace, and a version record compares only what is known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import {
  referencedSecrets,
  SECRET_VERSIONS_ANNOTATION,
  secretsChangedSince,
  secretVersionsAnnotation,
  secretVersionsNow,
} from '../../../src/controllers/aim/shared/secret-names.ts';

const obj = (spec: unknown, namespace?: string): KubeObject =>
  ({ apiVersion: 'aim.eai.amd.com/v1alpha1', kind: 'X', metadata: { name: 'x', namespace }, spec }) as KubeObject;

describe('referencedSecrets', () => {
  it('pull secrets and env secret refs, in the object namespace or the operator one', () => {
    const spec = {
      imagePullSecrets: [{ name: 'regcred' }, {}, { name: '' }],
      env: [
        { name: 'A', value: 'x' },
        { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf', key: 't' } } },
      ],
    };
    assert.deepEqual(referencedSecrets(obj(spec, 'ml'), 'aim-system'), [
      { namespace: 'ml', name: 'regcred' },
      { namespace: 'ml', name: 'hf' },
    ]);
    assert.deepEqual(referencedSecrets(obj({ imagePullSecrets: [{ name: 'regcred' }] }), 'aim-system'), [
      { namespace: 'aim-system', name: 'regcred' },
    ]);
  });

  it('names no Secret can have are ignored: a comma never reaches a field selector', () => {
    const hostile = ['a,metadata.namespace=kube-system', 'A', 'a/b', 'x'.repeat(254), '-a', 'a b', 42, null];
    assert.deepEqual(
      referencedSecrets(obj({ imagePullSecrets: hostile.map((name) => ({ name })), env: 'nope' }, 'ml'), 'ops'),
      [],
    );
    assert.deepEqual(referencedSecrets(obj(undefined, 'ml'), 'ops'), []);
  });
});

describe('secret versions', () => {
  const source = (known: Record<string, string>) => ({ resourceVersion: (_ns: string, n: string) => known[n] });
  const job = (annotation?: string): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'j',
      ...(annotation !== undefined ? { annotations: { [SECRET_VERSIONS_ANNOTATION]: annotation } } : {}),
    },
  });

  it('every named Secret, "" while unknown; the record is sorted text', () => {
    const a = obj({ imagePullSecrets: [{ name: 'z' }, { name: 'a' }] }, 'ml');
    const now = secretVersionsNow(a, 'ops', source({ z: '5' }));
    assert.deepEqual(now, { z: '5', a: '' });
    assert.equal(secretVersionsAnnotation(now), '{"a":"","z":"5"}');
    assert.deepEqual(secretVersionsNow(a, 'ops', undefined), {});
  });

  const cases: Array<[string, string | undefined, Record<string, string>, boolean]> = [
    ['same version', '{"hf":"5"}', { hf: '5' }, false],
    ['changed', '{"hf":"5"}', { hf: '6' }, true],
    ['created since (recorded absent)', '{"hf":""}', { hf: '6' }, true],
    ['unknown now', '{"hf":"5"}', { hf: '' }, false],
    ['no record', undefined, { hf: '6' }, false],
    ['bad record', 'not json', { hf: '6' }, false],
    ['a record that is not an object', '["hf"]', { hf: '6' }, false],
  ];
  for (const [name, annotation, now, changed] of cases)
    it(`${name}: ${changed ? 'changed' : 'not changed'}`, () =>
      assert.equal(secretsChangedSince(job(annotation), now), changed));
});
