// compileCrdVersionValidator: validation causes worded like kube-apiserver, one violated constraint per case.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../src/errors.ts';
import { compileCrdVersionValidator } from '../../src/schema/index.ts';
import { aimService, aimServiceSchema } from './fixture.ts';

type Obj = Record<string, any>;
const c = (field: string, reason: string, message: string): StatusCause => ({ field, reason, message });
const BLOCKED = c(
  '<nil>',
  'FieldValueInvalid',
  'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
);

const validator = compileCrdVersionValidator(aimServiceSchema());

/** What the API server does on a write: prune, default, validate. */
function write(obj: Obj, old?: Obj): StatusCause[] {
  validator.prune(obj);
  validator.default(obj);
  return validator.validate(obj, old);
}

interface Case {
  name: string;
  mutate: (o: Obj) => void;
  want: StatusCause[];
}

const cases: Case[] = [
  {
    name: 'required field (blocks the CEL rules)',
    mutate: (o) => delete o.spec.model,
    want: [c('spec.model', 'FieldValueRequired', 'Required value'), BLOCKED],
  },
  {
    name: 'maximum',
    mutate: (o) => (o.spec.replicas = 300),
    want: [
      c(
        'spec.replicas',
        'FieldValueInvalid',
        'Invalid value: 300: spec.replicas in body should be less than or equal to 100',
      ),
    ],
  },
  {
    name: 'minimum',
    mutate: (o) => (o.spec.replicas = -1),
    want: [
      c(
        'spec.replicas',
        'FieldValueInvalid',
        'Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      ),
    ],
  },
  {
    name: 'exclusiveMinimum',
    mutate: (o) => (o.spec.gpuFraction = 0),
    want: [
      c('spec.gpuFraction', 'FieldValueInvalid', 'Invalid value: 0: spec.gpuFraction in body should be greater than 0'),
    ],
  },
  {
    name: 'maximum on a float prints the bound as Go %v',
    mutate: (o) => (o.spec.gpuFraction = 1.5),
    want: [
      c(
        'spec.gpuFraction',
        'FieldValueInvalid',
        'Invalid value: 1.5: spec.gpuFraction in body should be less than or equal to 1',
      ),
    ],
  },
  {
    name: 'multipleOf',
    mutate: (o) => (o.spec.gpuFraction = 0.3),
    want: [
      c(
        'spec.gpuFraction',
        'FieldValueInvalid',
        'Invalid value: 0.3: spec.gpuFraction in body should be a multiple of 0.25',
      ),
    ],
  },
  {
    name: 'type mismatch blocks the CEL rules',
    mutate: (o) => (o.spec.replicas = 'three'),
    want: [
      c(
        'spec.replicas',
        'FieldValueTypeInvalid',
        'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'int32 range',
    mutate: (o) => (o.status = { observedGeneration: 1, replicas: 1 }) && (o.spec.replicas = 3_000_000_000),
    want: [
      c(
        'spec.replicas',
        'FieldValueInvalid',
        'Invalid value: 3000000000: Checked value must be of type integer with format int32 in spec.replicas',
      ),
      c(
        'spec.replicas',
        'FieldValueInvalid',
        'Invalid value: 3000000000: spec.replicas in body should be less than or equal to 100',
      ),
    ],
  },
  {
    name: 'pattern',
    mutate: (o) => (o.spec.model.name = 'Llama'),
    want: [
      c(
        'spec.model.name',
        'FieldValueInvalid',
        'Invalid value: "Llama": spec.model.name in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
      ),
    ],
  },
  {
    name: 'maxLength (checked before the pattern)',
    mutate: (o) => (o.spec.model.name = 'a'.repeat(64)),
    want: [c('spec.model.name', 'FieldValueTooLong', 'Too long: may not be more than 63 bytes'), BLOCKED],
  },
  {
    name: 'minLength',
    mutate: (o) => (o.spec.model = { image: '' }),
    want: [
      c(
        'spec.model.image',
        'FieldValueInvalid',
        'Invalid value: "": spec.model.image in body should be at least 1 chars long',
      ),
    ],
  },
  {
    name: 'enum',
    mutate: (o) => (o.spec.caching = { mode: 'Sometimes' }),
    want: [
      c(
        'spec.caching.mode',
        'FieldValueNotSupported',
        'Unsupported value: "Sometimes": supported values: "Dedicated", "Shared", "Auto", "Always", "Never"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'int-or-string rejects a boolean (and its anyOf reports too, as in kube)',
    mutate: (o) => (o.spec.port = true),
    want: [
      c(
        'spec.port',
        'FieldValueTypeInvalid',
        'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      ),
      c('<nil>', 'FieldValueInvalid', 'Invalid value: "": "spec.port" must validate at least one schema (anyOf)'),
      c(
        'spec.port',
        'FieldValueTypeInvalid',
        'Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'maxProperties',
    mutate: (o) => (o.spec.routing.annotations = { a: '1', b: '2', c: '3', d: '4' }),
    want: [c('spec.routing.annotations', 'FieldValueTooMany', 'Too many: 4: must have at most 3 items'), BLOCKED],
  },
  {
    name: 'minProperties',
    mutate: (o) => (o.spec.labels = {}),
    want: [
      c('spec.labels', 'FieldValueInvalid', 'Invalid value: 0: spec.labels in body should have at least 1 properties'),
    ],
  },
  {
    name: 'additionalProperties schema',
    mutate: (o) => (o.spec.labels = { tier: 5 }),
    want: [
      c(
        'spec.labels.tier',
        'FieldValueTypeInvalid',
        'Invalid value: "integer": spec.labels.tier in body must be of type string: "integer"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'maxItems',
    mutate: (o) => (o.spec.env = ['A', 'B', 'C', 'D', 'E'].map((name) => ({ name }))),
    want: [c('spec.env', 'FieldValueTooMany', 'Too many: 5: must have at most 4 items'), BLOCKED],
  },
  {
    name: 'minItems',
    mutate: (o) => (o.spec.tags = []),
    want: [c('spec.tags', 'FieldValueInvalid', 'Invalid value: 0: spec.tags in body should have at least 1 items')],
  },
  {
    name: 'required inside list items',
    mutate: (o) => o.spec.env.push({ value: 'x' }),
    want: [c('spec.env[2].name', 'FieldValueRequired', 'Required value'), BLOCKED],
  },
  {
    name: 'list-type map: duplicate key',
    mutate: (o) => o.spec.env.push({ name: 'HF_HOME', value: '/other' }),
    want: [c('spec.env[2]', 'FieldValueDuplicate', 'Duplicate value: map[string]interface {}{"name":"HF_HOME"}')],
  },
  {
    name: 'list-type set: duplicate value',
    mutate: (o) => o.spec.tags.push('llm'),
    want: [c('spec.tags[2]', 'FieldValueDuplicate', 'Duplicate value: "llm"')],
  },
  {
    name: 'list-type map in status',
    mutate: (o) =>
      (o.status = {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
      }),
    want: [
      c('status.conditions[1]', 'FieldValueDuplicate', 'Duplicate value: map[string]interface {}{"type":"Ready"}'),
    ],
  },
  {
    name: 'format email',
    mutate: (o) => (o.spec.owner = 'ml team'),
    want: [
      c(
        'spec.owner',
        'FieldValueTypeInvalid',
        'Invalid value: "ml team": spec.owner in body must be of type email: "ml team"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'format uri',
    mutate: (o) => (o.spec.endpoint = 'models/v1'),
    want: [
      c(
        'spec.endpoint',
        'FieldValueTypeInvalid',
        'Invalid value: "models/v1": spec.endpoint in body must be of type uri: "models/v1"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'format date-time',
    mutate: (o) => (o.spec.since = 'yesterday'),
    want: [
      c(
        'spec.since',
        'FieldValueTypeInvalid',
        'Invalid value: "yesterday": spec.since in body must be of type date-time: "yesterday"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'format duration',
    mutate: (o) => (o.spec.routing.requestTimeout = '30 parsecs'),
    want: [
      c(
        'spec.routing.requestTimeout',
        'FieldValueTypeInvalid',
        'Invalid value: "30 parsecs": spec.routing.requestTimeout in body must be of type duration: "30 parsecs"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'format quantity',
    mutate: (o) => (o.spec.caching = { storage: { size: '10 gigs' } }),
    want: [
      c(
        'spec.caching.storage.size',
        'FieldValueTypeInvalid',
        'Invalid value: "10 gigs": spec.caching.storage.size in body must be of type quantity: "10 gigs"',
      ),
      BLOCKED,
    ],
  },
  {
    name: 'embedded resource needs apiVersion and kind',
    mutate: (o) => (o.spec.podTemplate = { metadata: { name: 'x' } }),
    want: [
      c('spec.podTemplate.apiVersion', 'FieldValueRequired', 'Required value: must not be empty'),
      c('spec.podTemplate.kind', 'FieldValueRequired', 'Required value: must not be empty'),
      BLOCKED,
    ],
  },
  {
    name: 'metadata.name restriction from the schema',
    mutate: (o) => (o.metadata.name = 'x'.repeat(41)),
    want: [c('metadata.name', 'FieldValueTooLong', 'Too long: may not be more than 40 bytes'), BLOCKED],
  },
  {
    name: 'CEL rule message passthrough',
    mutate: (o) => (o.spec.minReplicas = 5),
    want: [c('spec', 'FieldValueInvalid', 'Invalid value: "object": minReplicas must not exceed maxReplicas')],
  },
  {
    name: 'CEL rule on a nested object',
    mutate: (o) => (o.spec.model = { name: 'a', image: 'b' }),
    want: [c('spec.model', 'FieldValueInvalid', 'Invalid value: "object": exactly one of name or image must be set')],
  },
];

describe('compileCrdVersionValidator.validate', () => {
  it('accepts a valid AIMService', () => {
    assert.deepEqual(write(aimService()), []);
  });

  for (const tc of cases) {
    it(tc.name, () => {
      const o = aimService();
      tc.mutate(o);
      assert.deepEqual(write(o), tc.want);
    });
  }

  it('runs CEL transition rules against the old object on update', () => {
    const old = aimService();
    write(old);
    const o = aimService();
    o.spec.model = { name: 'mistral-7b' };
    assert.deepEqual(write(o, old), [
      c('spec.model', 'FieldValueInvalid', 'Invalid value: "object": model is immutable'),
    ]);
    assert.deepEqual(write(aimService(), old), []);
  });

  it('ratchets: an unchanged invalid value (stored under a looser schema) does not block an update', () => {
    const old = aimService();
    write(old);
    old.spec.replicas = 500;
    old.spec.env[0].value = 5;
    const o = structuredClone(old);
    o.spec.tags = ['llm', 'chat', 'new'];
    o.spec.env.reverse();
    assert.deepEqual(
      validator.validate(o, old),
      [],
      'unchanged fields and list-map items matched by key are ratcheted',
    );
    o.spec.replicas = 400;
    assert.deepEqual(validator.validate(o, old), [
      c(
        'spec.replicas',
        'FieldValueInvalid',
        'Invalid value: 400: spec.replicas in body should be less than or equal to 100',
      ),
    ]);
    assert.equal(validator.validate(old).length, 3, 'without the old object everything is reported');
  });

  it('accepts both forms of int-or-string', () => {
    for (const port of [8080, 'http']) {
      const o = aimService();
      o.spec.port = port;
      assert.deepEqual(write(o), [], String(port));
    }
  });

  it('accepts null in a nullable field', () => {
    const o = aimService();
    o.spec.note = null;
    assert.deepEqual(write(o), []);
    assert.equal(o.spec.note, null);
  });

  it('returns the same validator for the same schema object', () => {
    const schema = aimServiceSchema();
    assert.equal(compileCrdVersionValidator(schema), compileCrdVersionValidator(schema));
  });
});
