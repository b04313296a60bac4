import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../src/errors.ts';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  type ObjectMetaValidationOptions,
  validateLabelSelector,
  validateNamespaceName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../src/validation/metadata.ts';

const SUBDOMAIN_RULE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_RULE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_RULE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_RULE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const invalid = (field: string, message: string): StatusCause => ({ reason: 'FieldValueInvalid', field, message });
const namespaced: ObjectMetaValidationOptions = { namespaced: true, nameValidation: 'dns1123Subdomain' };

describe('validateObjectMeta', () => {
  const cases: { name: string; meta: unknown; opts?: ObjectMetaValidationOptions; want: StatusCause[] }[] = [
    {
      name: 'valid object',
      meta: { name: 'web.example', namespace: 'default', labels: { app: 'web', 'example.com/tier': '' } },
      want: [],
    },
    {
      name: 'uppercase name',
      meta: { name: 'Foo', namespace: 'default' },
      want: [invalid('metadata.name', `Invalid value: "Foo": ${SUBDOMAIN_RULE}`)],
    },
    {
      name: 'name too long',
      meta: { name: 'a'.repeat(254), namespace: 'default' },
      want: [invalid('metadata.name', `Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`)],
    },
    {
      name: 'missing name',
      meta: { namespace: 'default' },
      want: [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ],
    },
    {
      name: 'generateName is checked with its trailing dash masked',
      meta: { generateName: 'web-', name: 'web-abcde', namespace: 'default' },
      want: [],
    },
    {
      name: 'bad generateName',
      meta: { generateName: 'Web-', name: 'Web-abcde', namespace: 'default' },
      want: [
        invalid('metadata.generateName', `Invalid value: "Web-": ${SUBDOMAIN_RULE}`),
        invalid('metadata.name', `Invalid value: "Web-abcde": ${SUBDOMAIN_RULE}`),
      ],
    },
    {
      name: 'missing namespace',
      meta: { name: 'a' },
      want: [{ reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }],
    },
    {
      name: 'bad namespace',
      meta: { name: 'a', namespace: 'my.ns' },
      want: [invalid('metadata.namespace', 'Invalid value: "my.ns": must not contain dots')],
    },
    {
      name: 'namespace on a cluster-scoped kind',
      meta: { name: 'a', namespace: 'x' },
      opts: { namespaced: false, nameValidation: 'dns1123Subdomain' },
      want: [
        { reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' },
      ],
    },
    {
      name: 'namespace names are DNS-1123 labels',
      meta: { name: 'Team_A' },
      opts: { namespaced: false, nameValidation: 'dns1123Label' },
      want: [invalid('metadata.name', `Invalid value: "Team_A": ${LABEL_RULE}`)],
    },
    {
      name: 'service names are DNS-1035 labels',
      meta: { name: '1web', namespace: 'default' },
      opts: { namespaced: true, nameValidation: 'dns1035Label' },
      want: [invalid('metadata.name', `Invalid value: "1web": ${DNS1035_RULE}`)],
    },
    {
      name: 'path-segment names allow capitals and colons',
      meta: { name: 'system:Admin' },
      opts: { namespaced: false, nameValidation: 'path-segment' },
      want: [],
    },
    {
      name: 'path-segment names reject slashes',
      meta: { name: 'a/b%' },
      opts: { namespaced: false, nameValidation: 'path-segment' },
      want: [
        invalid('metadata.name', `Invalid value: "a/b%": may not contain '/'`),
        invalid('metadata.name', `Invalid value: "a/b%": may not contain '%'`),
      ],
    },
    {
      name: 'negative generation',
      meta: { name: 'a', namespace: 'n', generation: -1 },
      want: [invalid('metadata.generation', 'Invalid value: -1: must be greater than or equal to 0')],
    },
    {
      name: 'bad label key and value',
      meta: { name: 'a', namespace: 'n', labels: { 'bad key': 'ok', good: 'bad value' } },
      want: [
        invalid('metadata.labels', `Invalid value: "bad key": ${NAME_PART_RULE}`),
        invalid('metadata.labels', `Invalid value: "bad value": ${LABEL_VALUE_RULE}`),
      ],
    },
    {
      name: 'label key prefix',
      meta: { name: 'a', namespace: 'n', labels: { 'Example.com/x': 'v', '/y': 'v' } },
      want: [
        invalid('metadata.labels', `Invalid value: "Example.com/x": prefix part ${SUBDOMAIN_RULE}`),
        invalid('metadata.labels', 'Invalid value: "/y": prefix part must be non-empty'),
      ],
    },
    {
      name: 'label value too long',
      meta: { name: 'a', namespace: 'n', labels: { k: 'v'.repeat(64) } },
      want: [invalid('metadata.labels', `Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`)],
    },
    {
      name: 'label name part too long',
      meta: { name: 'a', namespace: 'n', labels: { ['k'.repeat(64)]: 'v' } },
      want: [
        invalid('metadata.labels', `Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`),
      ],
    },
    {
      name: 'annotation keys ignore case',
      meta: { name: 'a', namespace: 'n', annotations: { 'Example.COM/Key': 'x', 'bad key': 'y' } },
      want: [invalid('metadata.annotations', `Invalid value: "bad key": ${NAME_PART_RULE}`)],
    },
    {
      name: 'annotations over 256 KiB',
      meta: { name: 'a', namespace: 'n', annotations: { big: 'x'.repeat(256 * 1024) } },
      want: [
        {
          reason: 'FieldValueTooLong',
          field: 'metadata.annotations',
          message: 'Too long: must have at most 262144 bytes',
        },
      ],
    },
    {
      name: 'owner reference fields',
      meta: { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'apps/', kind: '', name: '', uid: '' }] },
      want: [
        invalid('metadata.ownerReferences.apiVersion', 'Invalid value: "apps/": version must not be empty'),
        invalid('metadata.ownerReferences.kind', 'Invalid value: "": must not be empty'),
        invalid('metadata.ownerReferences.name', 'Invalid value: "": must not be empty'),
        invalid('metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty'),
      ],
    },
    {
      name: 'events cannot own objects',
      meta: { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
      want: [
        invalid(
          'metadata.ownerReferences',
          'Invalid value: &OwnerReference{Kind:Event,Name:e,UID:u,APIVersion:v1,Controller:nil,BlockOwnerDeletion:nil,}: /v1, Kind=Event is disallowed from being an owner',
        ),
      ],
    },
    {
      name: 'two controllers',
      meta: {
        name: 'a',
        namespace: 'n',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: 'u1', controller: true },
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u2', controller: true },
        ],
      },
      want: [
        invalid(
          'metadata.ownerReferences',
          'Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"apps/v1", Kind:"ReplicaSet", Name:"r", UID:"u1", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"apps/v1", Kind:"Deployment", Name:"d", UID:"u2", Controller:(*bool)(true), BlockOwnerDeletion:(*bool)(nil)}}: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/r and Deployment/d',
        ),
      ],
    },
    {
      name: 'finalizers',
      meta: {
        name: 'a',
        namespace: 'n',
        finalizers: ['example.com/cleanup', 'bad finalizer', 'orphan', 'foregroundDeletion'],
      },
      want: [
        invalid('metadata.finalizers', `Invalid value: "bad finalizer": ${NAME_PART_RULE}`),
        invalid(
          'metadata.finalizers',
          'Invalid value: []string{"example.com/cleanup", "bad finalizer", "orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
        ),
      ],
    },
    {
      name: 'managed fields',
      meta: {
        name: 'a',
        namespace: 'n',
        managedFields: [{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV2' }],
      },
      want: [
        invalid('metadata.managedFields[0].operation', 'Invalid value: "Patch": must be `Apply` or `Update`'),
        invalid('metadata.managedFields[0].fieldsType', 'Invalid value: "FieldsV2": must be `FieldsV1`'),
      ],
    },
    {
      name: 'labels that are not a string map',
      meta: { name: 'a', namespace: 'n', labels: { a: 1 } },
      want: [
        {
          reason: 'FieldValueTypeInvalid',
          field: 'metadata.labels[a]',
          message: 'Invalid value: 1: labels values must be strings',
        },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateObjectMeta(c.meta, c.opts ?? namespaced), c.want));
  }
});

describe('validateObjectMetaUpdate', () => {
  const old = {
    name: 'a',
    namespace: 'n',
    uid: 'u1',
    resourceVersion: '5',
    generation: 3,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };
  it('accepts an unchanged identity', () =>
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { x: 'y' } }, old), []));
  it('reports immutable and ordering problems', () => {
    const got = validateObjectMetaUpdate(
      { ...old, name: 'b', uid: 'u2', resourceVersion: '', generation: 2, creationTimestamp: '2024-02-01T00:00:00Z' },
      old,
    );
    assert.deepEqual(got, [
      invalid('metadata.resourceVersion', 'Invalid value: "": must be specified for an update'),
      invalid('metadata.generation', 'Invalid value: 2: must not be decremented'),
      invalid('metadata.name', 'Invalid value: "b": field is immutable'),
      invalid('metadata.uid', 'Invalid value: "u2": field is immutable'),
      invalid('metadata.creationTimestamp', 'Invalid value: 2024-02-01 00:00:00 +0000 UTC: field is immutable'),
    ]);
  });
  it('forbids new finalizers once deletion started', () => {
    const deleting = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a.io/x'] };
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'b.io/y'] }, deleting), [
      {
        reason: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        message:
          'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
      },
    ]);
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
  });
});

describe('string format helpers', () => {
  const cases: [string, (v: string) => string[], string, number][] = [
    ['label ok', isDNS1123Label, 'my-name', 0],
    ['label dots', isDNS1123Label, 'a.b', 1],
    ['label too long', isDNS1123Label, 'a'.repeat(64), 1],
    ['label too long and bad', isDNS1123Label, `${'a'.repeat(63)}-`, 2],
    ['subdomain ok', isDNS1123Subdomain, 'a.b-c.d', 0],
    ['subdomain bad', isDNS1123Subdomain, '-a', 1],
    ['dns1035 digit start', isDNS1035Label, '1a', 1],
    ['qualified ok', isQualifiedName, 'example.com/My_Name.1', 0],
    ['qualified empty name', isQualifiedName, 'example.com/', 2],
    ['label value empty', isValidLabelValue, '', 0],
    ['label value bad end', isValidLabelValue, 'a-', 1],
  ];
  for (const [name, fn, value, count] of cases) it(name, () => assert.equal(fn(value).length, count));
  it('namespace names', () => {
    assert.deepEqual(validateNamespaceName('kube-system'), []);
    assert.deepEqual(validateNamespaceName('Kube'), [LABEL_RULE]);
  });
  it('label selectors in specs', () => {
    assert.deepEqual(
      validateLabelSelector(
        {
          matchLabels: { app: 'x' },
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'Exists', values: ['v'] },
            { key: 'c', operator: 'Near' },
          ],
        },
        'spec.selector',
      ),
      [
        {
          reason: 'FieldValueRequired',
          field: 'spec.selector.matchExpressions[0].values',
          message: "Required value: must be specified when `operator` is 'In' or 'NotIn'",
        },
        {
          reason: 'FieldValueForbidden',
          field: 'spec.selector.matchExpressions[1].values',
          message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        },
        invalid('spec.selector.matchExpressions[2].operator', 'Invalid value: "Near": not a valid selector operator'),
      ],
    );
  });
});
