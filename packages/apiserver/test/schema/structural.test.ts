// Structural-schema rules (kube's ValidateStructural) beyond the CRD-level cases, and the published form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../src/errors.ts';
import { crdOpenAPIToPublished } from '../../src/schema/index.ts';
import { structuralErrors } from '../../src/schema/structural.ts';
import type { JSONSchemaProps } from '../../src/schema/types.ts';
import { aimServiceSchema } from './fixture.ts';

const P = 'spec.validation.openAPIV3Schema';
const c = (field: string, reason: string, message: string): StatusCause => ({ field, reason, message });
const root = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

const cases: [name: string, schema: JSONSchemaProps, want: StatusCause[]][] = [
  [
    'int-or-string anyOf pattern is structural',
    root({
      type: 'object',
      properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
    }),
    [],
  ],
  [
    'int-or-string allOf[0].anyOf pattern is structural',
    root({
      type: 'object',
      properties: {
        port: {
          'x-kubernetes-int-or-string': true,
          allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^\\d+$' }],
        },
      },
    }),
    [],
  ],
  [
    'any other typed anyOf is not',
    root({
      type: 'object',
      properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'boolean' }] } },
    }),
    [
      c(
        `${P}.properties[spec].properties[port].anyOf[0].type`,
        'FieldValueForbidden',
        'Forbidden: must be empty to be structural',
      ),
      c(
        `${P}.properties[spec].properties[port].anyOf[1].type`,
        'FieldValueForbidden',
        'Forbidden: must be empty to be structural',
      ),
    ],
  ],
  [
    'int-or-string excludes preserve-unknown-fields',
    root({
      type: 'object',
      properties: { port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } },
    }),
    [
      c(
        `${P}.properties[spec].properties[port].x-kubernetes-preserve-unknown-fields`,
        'FieldValueInvalid',
        'Invalid value: true: must be false if x-kubernetes-int-or-string is true',
      ),
    ],
  ],
  [
    'embedded resources are objects with properties or preserve-unknown-fields',
    root({ type: 'object', properties: { tpl: { type: 'string', 'x-kubernetes-embedded-resource': true } } }),
    [
      c(
        `${P}.properties[spec].properties[tpl].properties`,
        'FieldValueRequired',
        'Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
      c(
        `${P}.properties[spec].properties[tpl].type`,
        'FieldValueInvalid',
        'Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
      ),
    ],
  ],
  [
    'kind of an embedded resource must be a string',
    root({
      type: 'object',
      properties: {
        tpl: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { kind: { type: 'integer' } } },
      },
    }),
    [
      c(
        `${P}.properties[spec].properties[tpl].properties[kind].type`,
        'FieldValueInvalid',
        'Invalid value: "integer": must be string',
      ),
    ],
  ],
  [
    'additionalProperties is not allowed at the root',
    { type: 'object', additionalProperties: { type: 'string' } },
    [c(`${P}.additionalProperties`, 'FieldValueForbidden', 'Forbidden: must not be used at the root')],
  ],
  [
    'metadata may not appear in a nested context',
    root({ type: 'object', anyOf: [{ properties: { metadata: { maxProperties: 1 } } }] }),
    [
      c(
        `${P}.properties[spec].anyOf[0].properties[metadata]`,
        'FieldValueForbidden',
        'Forbidden: must not be specified in a nested context',
      ),
    ],
  ],
  [
    'x-kubernetes-validations inside a junctor',
    root({ type: 'object', allOf: [{ 'x-kubernetes-validations': [{ rule: 'true' }] }] }),
    [
      c(
        `${P}.properties[spec].allOf[0].x-kubernetes-validations`,
        'FieldValueForbidden',
        'Forbidden: must be empty to be structural',
      ),
    ],
  ],
  [
    'the root needs a type',
    { properties: {} },
    [c(`${P}.type`, 'FieldValueRequired', 'Required value: must not be empty at the root')],
  ],
  ['preserve-unknown-fields nodes need no type', root({ 'x-kubernetes-preserve-unknown-fields': true }), []],
];

describe('structuralErrors', () => {
  for (const [name, schema, want] of cases) {
    it(name, () => assert.deepEqual(structuralErrors(schema, P), want));
  }
});

describe('crdOpenAPIToPublished', () => {
  it('keeps the schema, adds apiVersion/kind descriptions and can point metadata at ObjectMeta', () => {
    const schema = aimServiceSchema();
    const published = crdOpenAPIToPublished(schema, {
      objectMetaRef: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
    });
    assert.deepEqual(published.properties!.spec, schema.properties!.spec);
    assert.match(published.properties!.apiVersion!.description!, /^APIVersion defines the versioned schema/);
    assert.equal(published.properties!.kind!.type, 'string');
    assert.deepEqual(published.properties!.metadata!.allOf, [
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    ]);
    assert.equal(schema.properties!.metadata!.allOf, undefined, 'the stored schema is not modified');
  });

  it('drops JSON-Schema keywords that are not OpenAPI 3.0', () => {
    const published = crdOpenAPIToPublished({
      type: 'object',
      properties: { a: { type: 'string', id: 'x', $schema: 'y', definitions: {} } },
    });
    assert.deepEqual(published.properties!.a, { type: 'string' });
    assert.deepEqual(published.properties!.metadata, { type: 'object' });
  });
});
