import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { needsApply } from '../src/client/apply-noop.ts';
import { isSubset } from '../src/meta/equality.ts';
import type { KubeObject, ManagedFieldsEntry } from '../src/meta/types.ts';

const owner = {
  apiVersion: 'test.modelplane.io/v1',
  kind: 'Widget',
  name: 'w',
  uid: 'u1',
  controller: true,
  blockOwnerDeletion: true,
};

function live(
  over: {
    data?: Record<string, string>;
    labels?: Record<string, string>;
    fields?: Record<string, unknown>;
    manager?: string;
    operation?: 'Apply' | 'Update';
    status?: unknown;
    statusFields?: Record<string, unknown>;
  } = {},
): KubeObject {
  const managedFields: ManagedFieldsEntry[] = [
    {
      manager: over.manager ?? 'ctrl',
      operation: over.operation ?? 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: over.fields ?? {
        'f:data': { 'f:a': {} },
        'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
      },
    },
    {
      manager: 'kubectl',
      operation: 'Update',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:extra': {} } },
    },
  ];
  if (over.statusFields)
    managedFields.push({
      manager: 'ctrl',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: over.statusFields,
      subresource: 'status',
    });
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      namespace: 'ns',
      uid: 'c-uid',
      resourceVersion: '7',
      labels: over.labels ?? { app: 'x', other: 'y' },
      ownerReferences: [owner],
      managedFields,
    },
    data: over.data ?? { a: '1', extra: 'kept' },
    ...(over.status ? { status: over.status } : {}),
  };
}

function desired(data: Record<string, string> = { a: '1' }, labels: Record<string, string> = { app: 'x' }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'ns', labels, ownerReferences: [owner] },
    data,
  };
}

describe('needsApply', () => {
  const cases: Array<{
    name: string;
    desired: KubeObject;
    live: KubeObject | undefined;
    want: boolean;
    sub?: 'status';
  }> = [
    { name: 'object missing', desired: desired(), live: undefined, want: true },
    { name: 'everything already as desired', desired: desired(), live: live(), want: false },
    { name: 'a desired value differs', desired: desired({ a: '2' }), live: live(), want: true },
    { name: 'a desired field is missing', desired: desired({ a: '1', b: '2' }), live: live(), want: true },
    {
      name: 'a field we own is no longer desired (server would remove it)',
      desired: desired({ a: '1' }, {}),
      live: live(),
      want: true,
    },
    {
      name: 'fields of other managers do not matter',
      desired: desired(),
      live: live({ data: { a: '1', extra: 'changed by someone' } }),
      want: false,
    },
    {
      name: 'we never applied (only an Update entry)',
      desired: desired(),
      live: live({ operation: 'Update' }),
      want: true,
    },
    { name: 'another manager applied, not us', desired: desired(), live: live({ manager: 'someone' }), want: true },
    {
      name: 'owner reference we own is gone from desired',
      desired: { ...desired(), metadata: { ...desired().metadata, ownerReferences: [] } },
      live: live(),
      want: true,
    },
    {
      name: 'status already as desired',
      desired: { ...desired(), status: { ready: true } },
      live: live({ status: { ready: true, other: 1 }, statusFields: { 'f:status': { 'f:ready': {} } } }),
      want: false,
      sub: 'status',
    },
    {
      name: 'status differs',
      desired: { ...desired(), status: { ready: false } },
      live: live({ status: { ready: true }, statusFields: { 'f:status': { 'f:ready': {} } } }),
      want: true,
      sub: 'status',
    },
    {
      name: 'status field we own is dropped',
      desired: { ...desired(), status: { ready: true } },
      live: live({
        status: { ready: true, reason: 'x' },
        statusFields: { 'f:status': { 'f:ready': {}, 'f:reason': {} } },
      }),
      want: true,
      sub: 'status',
    },
    {
      name: 'status never applied by us',
      desired: { ...desired(), status: { ready: true } },
      live: live({ status: { ready: true } }),
      want: true,
      sub: 'status',
    },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.want ? 'apply' : 'skip'}`, () =>
      assert.equal(needsApply(c.desired, c.live, 'ctrl', c.sub), c.want));
  }

  it('list elements keyed by name: a removed element we own needs an apply', () => {
    const fields = {
      'f:spec': {
        'f:containers': {
          'k:{"name":"a"}': { '.': {}, 'f:name': {}, 'f:image': {} },
          'k:{"name":"b"}': { '.': {}, 'f:name': {} },
        },
      },
    };
    const l: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', managedFields: [{ manager: 'ctrl', operation: 'Apply', fieldsV1: fields }] },
      spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b' }] },
    };
    const both: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b' }] },
    };
    const onlyA: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'a', image: 'i' }] },
    };
    assert.equal(needsApply(both, l, 'ctrl'), false);
    assert.equal(needsApply(onlyA, l, 'ctrl'), true);
  });
});

describe('isSubset', () => {
  const cases: Array<[want: unknown, have: unknown, expected: boolean]> = [
    [{ a: 1 }, { a: 1, b: 2 }, true],
    [{ a: 1, b: 2 }, { a: 1 }, false],
    [{ a: { b: [1, 2] } }, { a: { b: [1, 2], c: 3 } }, true],
    [{ a: [1, 2] }, { a: [1, 2, 3] }, false],
    [{ a: [{ n: 'x' }] }, { a: [{ n: 'x', d: 1 }] }, true],
    [{ a: {} }, {}, true],
    [{ a: 'x' }, { a: 'y' }, false],
    [null, null, true],
  ];
  for (const [want, have, expected] of cases) {
    it(`${JSON.stringify(want)} ⊆ ${JSON.stringify(have)} is ${expected}`, () =>
      assert.equal(isSubset(want, have), expected));
  }
});
