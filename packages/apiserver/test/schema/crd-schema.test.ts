// checkCrd on version schemas: structural rules, unsupported keywords, defaults, list/map extensions,
// x-kubernetes-validations entries and CEL compilation, each violated once with kube's exact cause.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../src/errors.ts';
import { checkCrd } from '../../src/schema/index.ts';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../src/schema/types.ts';
import { aimServiceCrd } from './fixture.ts';

type Crd = CustomResourceDefinition;
const V = 'spec.validation.openAPIV3Schema';

const c = (field: string, reason: string, message: string): StatusCause => ({ field, reason, message });
const schemaOf = (crd: Crd) => crd.spec.versions[0]!.schema!.openAPIV3Schema!;
const specProps = (crd: Crd) => schemaOf(crd).properties!.spec!.properties!;

interface Case {
  name: string;
  mutate: (crd: Crd) => void;
  want: StatusCause[];
}

const cases: Case[] = [
  {
    name: 'non-structural: object field without type',
    mutate: (crd) => {
      delete specProps(crd).routing!.type;
    },
    want: [
      c(
        `${V}.properties[spec].properties[routing].type`,
        'FieldValueRequired',
        'Required value: must not be empty for specified object fields',
      ),
    ],
  },
  {
    name: 'non-structural: array items without type',
    mutate: (crd) => {
      delete (specProps(crd).tags!.items as JSONSchemaProps).type;
    },
    want: [
      c(
        `${V}.properties[spec].properties[tags].items.type`,
        'FieldValueRequired',
        'Required value: must not be empty for specified array items',
      ),
    ],
  },
  {
    name: 'non-structural: type, description and default inside anyOf',
    mutate: (crd) => {
      specProps(crd).owner!.anyOf = [{ type: 'string', description: 'x', default: 'a', maxLength: 3 }];
    },
    want: [
      c(
        `${V}.properties[spec].properties[owner].anyOf[0].default`,
        'FieldValueForbidden',
        'Forbidden: must be undefined to be structural',
      ),
      c(
        `${V}.properties[spec].properties[owner].anyOf[0].description`,
        'FieldValueForbidden',
        'Forbidden: must be empty to be structural',
      ),
      c(
        `${V}.properties[spec].properties[owner].anyOf[0].type`,
        'FieldValueForbidden',
        'Forbidden: must be empty to be structural',
      ),
    ],
  },
  {
    name: 'non-structural: field only specified inside a junctor at the root',
    mutate: (crd) => {
      schemaOf(crd).oneOf = [{ required: ['spec'] }, { properties: { spek: { maxLength: 3 } } }];
    },
    want: [
      c(
        `${V}.properties[spek]`,
        'FieldValueRequired',
        `Required value: because it is defined in ${V}.oneOf[1].properties[spek]`,
      ),
      c(
        `${V}`,
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify({ ...aimServiceCrd().spec.versions[0]!.schema!.openAPIV3Schema, oneOf: [{ required: ['spec'] }, { properties: { spek: { maxLength: 3 } } }] })}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
      ),
    ].reverse(),
  },
  {
    name: 'metadata may only restrict name and generateName',
    mutate: (crd) => {
      schemaOf(crd).properties!.metadata = { type: 'object', properties: { labels: { type: 'object' } } };
    },
    want: [
      c(
        `${V}.properties[metadata]`,
        'FieldValueForbidden',
        'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    ],
  },
  {
    name: '$ref is not supported',
    mutate: (crd) => {
      specProps(crd).owner!.$ref = '#/definitions/x';
    },
    want: [
      c(`${V}.properties[spec].properties[owner].$ref`, 'FieldValueForbidden', 'Forbidden: $ref is not supported'),
    ],
  },
  {
    name: 'additionalProperties together with properties',
    mutate: (crd) => {
      specProps(crd).routing!.additionalProperties = { type: 'string' };
    },
    want: [
      c(
        `${V}.properties[spec].properties[routing].additionalProperties`,
        'FieldValueForbidden',
        'Forbidden: additionalProperties and properties are mutual exclusive',
      ),
    ],
  },
  {
    name: 'unknown type name',
    mutate: (crd) => {
      specProps(crd).owner!.type = 'text';
    },
    want: [
      c(
        `${V}.properties[spec].properties[owner].type`,
        'FieldValueNotSupported',
        'Unsupported value: "text": supported values: "array", "boolean", "integer", "number", "object", "string"',
      ),
    ],
  },
  {
    name: 'uniqueItems is forbidden',
    mutate: (crd) => {
      specProps(crd).tags!.uniqueItems = true;
    },
    want: [
      c(
        `${V}.properties[spec].properties[tags].uniqueItems`,
        'FieldValueForbidden',
        'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    ],
  },
  {
    name: 'pattern must compile as a Go regular expression',
    mutate: (crd) => {
      specProps(crd).owner!.pattern = '^(?=a)';
    },
    want: [
      c(
        `${V}.properties[spec].properties[owner].pattern`,
        'FieldValueInvalid',
        'Invalid value: "^(?=a)": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
      ),
    ],
  },
  {
    name: 'default must validate against its schema',
    mutate: (crd) => {
      specProps(crd).replicas!.default = 'one';
    },
    want: [
      c(
        `${V}.properties[spec].properties[replicas].default`,
        'FieldValueTypeInvalid',
        'Invalid value: "string":  in body must be of type integer: "string"',
      ),
    ],
  },
  {
    name: 'default must not carry unknown fields',
    mutate: (crd) => {
      specProps(crd).caching!.default = { mode: 'Shared', colour: 'blue' };
    },
    want: [
      c(
        `${V}.properties[spec].properties[caching].default`,
        'FieldValueInvalid',
        'Invalid value: map[string]interface {}{"colour":"blue", "mode":"Shared"}: must not have unknown fields',
      ),
    ],
  },
  {
    name: 'nested default violating an enum',
    mutate: (crd) => {
      specProps(crd).caching!.properties!.mode!.default = 'Sometimes';
    },
    want: [
      c(
        `${V}.properties[spec].properties[caching].properties[mode].default`,
        'FieldValueNotSupported',
        'Unsupported value: "Sometimes": supported values: "Dedicated", "Shared", "Auto", "Always", "Never"',
      ),
    ],
  },
  {
    name: 'defaults are forbidden in top-level metadata',
    mutate: (crd) => {
      schemaOf(crd).properties!.metadata!.properties!.name!.default = 'x';
    },
    want: [
      c(
        `${V}.properties[metadata].properties[name].default`,
        'FieldValueForbidden',
        'Forbidden: must not be set in top-level metadata',
      ),
    ],
  },
  {
    name: 'list-map keys must be required or defaulted',
    mutate: (crd) => {
      (specProps(crd).env!.items as JSONSchemaProps).required = [];
    },
    want: [
      c(
        `${V}.properties[spec].properties[env].items.properties[name].default`,
        'FieldValueRequired',
        'Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      ),
    ],
  },
  {
    name: 'list-map keys must be item properties',
    mutate: (crd) => {
      specProps(crd).env!['x-kubernetes-list-map-keys'] = ['key'];
    },
    want: [
      c(
        `${V}.properties[spec].properties[env].x-kubernetes-list-map-keys`,
        'FieldValueInvalid',
        'Invalid value: []string{"key"}: entries must all be names of item properties',
      ),
    ],
  },
  {
    name: 'list-type map needs keys',
    mutate: (crd) => {
      delete specProps(crd).env!['x-kubernetes-list-map-keys'];
    },
    want: [
      c(
        `${V}.properties[spec].properties[env].x-kubernetes-list-map-keys`,
        'FieldValueRequired',
        'Required value: must not be empty if x-kubernetes-list-type is map',
      ),
    ],
  },
  {
    name: 'list-type only on arrays',
    mutate: (crd) => {
      specProps(crd).owner!['x-kubernetes-list-type'] = 'set';
    },
    want: [
      c(
        `${V}.properties[spec].properties[owner].type`,
        'FieldValueInvalid',
        'Invalid value: "string": must be array if x-kubernetes-list-type is specified',
      ),
    ],
  },
  {
    name: 'unknown list-type',
    mutate: (crd) => {
      specProps(crd).tags!['x-kubernetes-list-type'] = 'bag';
    },
    want: [
      c(
        `${V}.properties[spec].properties[tags].x-kubernetes-list-type`,
        'FieldValueNotSupported',
        'Unsupported value: "bag": supported values: "atomic", "set", "map"',
      ),
    ],
  },
  {
    name: 'x-kubernetes-validations entry without rule',
    mutate: (crd) => {
      specProps(crd).model!['x-kubernetes-validations']!.push({ rule: ' ' });
    },
    want: [
      c(
        `${V}.properties[spec].properties[model].x-kubernetes-validations[2].rule`,
        'FieldValueRequired',
        'Required value: rule is not specified',
      ),
    ],
  },
  {
    name: 'x-kubernetes-validations reason must be supported',
    mutate: (crd) => {
      specProps(crd).model!['x-kubernetes-validations']![0]!.reason = 'FieldValueBad';
    },
    want: [
      c(
        `${V}.properties[spec].properties[model].x-kubernetes-validations[0].reason`,
        'FieldValueNotSupported',
        'Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      ),
    ],
  },
  {
    name: 'status subresource: root schema must be an object',
    mutate: (crd) => {
      schemaOf(crd).type = 'array';
    },
    want: [
      c(
        `${V}.type`,
        'FieldValueInvalid',
        'Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ),
      c(`${V}.items`, 'FieldValueRequired', 'Required value: must be specified'),
      c(`${V}.type`, 'FieldValueInvalid', 'Invalid value: "array": must be object at the root'),
    ],
  },
];

describe('checkCrd: version schemas', () => {
  for (const tc of cases) {
    it(tc.name, () => {
      const crd = aimServiceCrd();
      tc.mutate(crd);
      assert.deepEqual(checkCrd(crd), tc.want);
    });
  }

  it('reports per-version paths when versions have different schemas', () => {
    const crd = aimServiceCrd();
    const v2 = structuredClone(crd.spec.versions[0]!);
    v2.name = 'v1beta1';
    v2.storage = false;
    delete v2.schema!.openAPIV3Schema!.properties!.spec!.properties!.owner!.type;
    crd.spec.versions.push(v2);
    assert.deepEqual(checkCrd(crd), [
      c(
        'spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[owner].type',
        'FieldValueRequired',
        'Required value: must not be empty for specified object fields',
      ),
    ]);
  });

  it('passes CEL compilation errors through at the rule path', () => {
    const crd = aimServiceCrd();
    specProps(crd).model!['x-kubernetes-validations']![0]!.rule = 'self.name >';
    const causes = checkCrd(crd);
    assert.equal(causes.length, 1);
    assert.equal(causes[0]!.field, `${V}.properties[spec].properties[model].x-kubernetes-validations[0].rule`);
    assert.equal(causes[0]!.reason, 'FieldValueInvalid');
    assert.match(causes[0]!.message, /compilation failed/);
  });

  it('skips CEL compilation while the schema is not structural', () => {
    const crd = aimServiceCrd();
    specProps(crd).model!['x-kubernetes-validations']![0]!.rule = 'self.name >';
    delete specProps(crd).owner!.type;
    assert.deepEqual(
      checkCrd(crd).map((x) => x.field),
      [`${V}.properties[spec].properties[owner].type`],
    );
  });
});
