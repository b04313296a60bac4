import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSchemaRules } from '../src/schema/cel-rule-checks.ts';
import { celRuleCauses } from '../src/schema/cel-rules.ts';
import type { JSONSchemaProps } from '../src/schema/types.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-validations': [
    { rule: "self.metadata.name.startsWith('m-')", message: 'name must start with m-' },
    { rule: '!has(self.metadata.namespace)', message: 'only name and generateName of metadata are visible' },
  ],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        {
          rule: 'self.minReplicas <= self.maxReplicas',
          message: 'minReplicas must not exceed maxReplicas',
          fieldPath: '.minReplicas',
        },
        {
          rule: "!has(self.gpu) || self.engine.type != 'llamacpp'",
          messageExpression: "'engine ' + self.engine.type + ' cannot use GPUs'",
          reason: 'FieldValueForbidden',
        },
        { rule: 'self.modelUri == oldSelf.modelUri', message: 'modelUri is immutable' },
      ],
      properties: {
        modelUri: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: "self.startsWith('hf://') || self.startsWith('s3://')", message: 'must be an hf:// or s3:// URI' },
          ],
        },
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        engine: { type: 'object', properties: { type: { type: 'string' } } },
        gpu: {
          type: 'object',
          properties: { count: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0 && self <= 8' }] } },
        },
        memory: {
          'x-kubernetes-int-or-string': true,
          'x-kubernetes-validations': [
            {
              rule: "type(self) == string ? quantity(self).isGreaterThan(quantity('1Gi')) : self > 1073741824",
              message: 'memory must exceed 1Gi',
            },
          ],
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
            'x-kubernetes-validations': [
              { rule: 'self.port >= 1024', message: 'port must be unprivileged', fieldPath: '.port' },
              { rule: 'self.port == oldSelf.port', message: 'port is immutable' },
            ],
          },
        },
        labels: {
          type: 'object',
          additionalProperties: {
            type: 'string',
            'x-kubernetes-validations': [
              { rule: 'self.size() <= 10', message: 'label values are at most 10 characters' },
            ],
          },
        },
        tags: {
          type: 'array',
          items: { type: 'string' },
          'x-kubernetes-validations': [
            { rule: 'self.all(t, self.exists_one(u, u == t))', reason: 'FieldValueDuplicate' },
          ],
        },
        owner: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: "self != ''", reason: 'FieldValueRequired', message: 'owner must not be empty' },
          ],
        },
        strategy: {
          type: 'string',
          'x-kubernetes-validations': [
            {
              rule: "oldSelf.hasValue() || self == 'Recreate'",
              optionalOldSelf: true,
              message: 'new objects start with Recreate',
            },
          ],
        },
        notes: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: 'self.size() < 5', messageExpression: 'self.missing', message: 'notes are short' },
            { rule: 'self.size() < 4', messageExpression: "'  '" },
            { rule: 'self.nope > 1' },
          ],
        },
      },
    },
  },
};

function validObject() {
  return {
    apiVersion: 'serving.example.org/v1',
    kind: 'Model',
    metadata: { name: 'm-llama', namespace: 'default' },
    spec: {
      modelUri: 'hf://meta/llama',
      minReplicas: 1,
      maxReplicas: 3,
      engine: { type: 'vllm' },
      gpu: { count: 2 },
      memory: '24Gi',
      ports: [
        { name: 'http', port: 8080 },
        { name: 'metrics', port: 9090 },
      ],
      labels: { team: 'ml' },
      tags: ['a', 'b'],
      owner: 'me',
      strategy: 'Recreate',
    },
  };
}

type Obj = ReturnType<typeof validObject>;

interface Case {
  name: string;
  mutate: (o: Obj) => void;
  old?: (o: Obj) => void;
  want: { field: string; reason: string; message: string }[];
}

const cases: Case[] = [
  { name: 'a valid object has no causes', mutate: () => {}, want: [] },
  {
    name: 'root rule lands on <nil>',
    mutate: (o) => (o.metadata.name = 'llama'),
    want: [
      { field: '<nil>', reason: 'FieldValueInvalid', message: 'Invalid value: "object": name must start with m-' },
    ],
  },
  {
    name: 'fieldPath moves the cause, the value stays the type of the rule node',
    mutate: (o) => (o.spec.minReplicas = 5),
    want: [
      {
        field: 'spec.minReplicas',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": minReplicas must not exceed maxReplicas',
      },
    ],
  },
  {
    name: 'messageExpression and reason Forbidden',
    mutate: (o) => (o.spec.engine.type = 'llamacpp'),
    want: [{ field: 'spec', reason: 'FieldValueForbidden', message: 'Forbidden: engine llamacpp cannot use GPUs' }],
  },
  {
    name: 'rule without message reports the rule',
    mutate: (o) => (o.spec.gpu.count = 9),
    want: [
      {
        field: 'spec.gpu.count',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "integer": failed rule: self > 0 && self <= 8',
      },
    ],
  },
  {
    name: 'scalar rule on a string',
    mutate: (o) => (o.spec.modelUri = 'http://x'),
    want: [
      {
        field: 'spec.modelUri',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": must be an hf:// or s3:// URI',
      },
    ],
  },
  {
    name: 'int-or-string, both branches',
    mutate: (o) => ((o.spec as Record<string, unknown>).memory = 1024),
    want: [{ field: 'spec.memory', reason: 'FieldValueInvalid', message: 'Invalid value: "": memory must exceed 1Gi' }],
  },
  {
    name: 'per-item rules carry the index',
    mutate: (o) => (o.spec.ports[1]!.port = 80),
    want: [
      {
        field: 'spec.ports[1].port',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": port must be unprivileged',
      },
    ],
  },
  {
    name: 'map values carry the key',
    mutate: (o) => ((o.spec.labels as Record<string, string>).owner = 'a-very-long-value'),
    want: [
      {
        field: 'spec.labels[owner]',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": label values are at most 10 characters',
      },
    ],
  },
  {
    name: 'reason FieldValueDuplicate reports the type only',
    mutate: (o) => (o.spec.tags = ['a', 'a']),
    want: [{ field: 'spec.tags', reason: 'FieldValueDuplicate', message: 'Duplicate value: "array"' }],
  },
  {
    name: 'reason FieldValueRequired',
    mutate: (o) => (o.spec.owner = ''),
    want: [{ field: 'spec.owner', reason: 'FieldValueRequired', message: 'Required value: owner must not be empty' }],
  },
  {
    name: 'optionalOldSelf runs on create with oldSelf empty',
    mutate: (o) => (o.spec.strategy = 'RollingUpdate'),
    want: [
      {
        field: 'spec.strategy',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": new objects start with Recreate',
      },
    ],
  },
  {
    name: 'optionalOldSelf with an old value',
    mutate: (o) => (o.spec.strategy = 'RollingUpdate'),
    old: () => {},
    want: [],
  },
  {
    name: 'transition rules run on update',
    mutate: (o) => (o.spec.modelUri = 'hf://meta/llama-2'),
    old: () => {},
    want: [{ field: 'spec', reason: 'FieldValueInvalid', message: 'Invalid value: "object": modelUri is immutable' }],
  },
  {
    name: 'map-list items correlate by key, not by index',
    mutate: (o) => o.spec.ports.reverse(),
    old: () => {},
    want: [],
  },
  {
    name: 'a changed map-list item is caught',
    mutate: (o) => (o.spec.ports[0]!.port = 8081),
    old: () => {},
    want: [
      { field: 'spec.ports[0]', reason: 'FieldValueInvalid', message: 'Invalid value: "object": port is immutable' },
    ],
  },
  {
    name: 'transition rules are skipped for new list items',
    mutate: (o) => o.spec.ports.push({ name: 'grpc', port: 7000 }),
    old: () => {},
    want: [],
  },
  {
    name: 'messageExpression errors and blank results fall back; evaluation errors name the rule',
    mutate: (o) => ((o.spec as Record<string, unknown>).notes = 'longer'),
    want: [
      { field: 'spec.notes', reason: 'FieldValueInvalid', message: 'Invalid value: "string": notes are short' },
      {
        field: 'spec.notes',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": failed rule: self.size() < 4',
      },
      {
        field: 'spec.notes',
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": no such key: nope evaluating rule: self.nope > 1',
      },
    ],
  },
];

describe('celRuleCauses', () => {
  for (const c of cases) {
    it(c.name, () => {
      const obj = validObject();
      c.mutate(obj);
      let old: Obj | undefined;
      if (c.old) {
        old = validObject();
        c.old(old);
      }
      const got = celRuleCauses(schema, obj, old, '');
      assert.deepEqual(got, c.want);
    });
  }

  it('stops every further rule once one exceeds its cost limit', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        xs: {
          type: 'array',
          items: { type: 'integer' },
          'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, self.all(c, true)))' }],
        },
        ys: { type: 'string', 'x-kubernetes-validations': [{ rule: 'false' }] },
      },
    };
    const got = celRuleCauses(s, { xs: Array.from({ length: 200 }, (_, i) => i), ys: 'y' }, undefined, 'spec');
    assert.equal(got.length, 1);
    assert.equal(got[0]!.field, 'spec.xs');
    // the cost limit stops it; on a loaded machine the wall-clock safety net (maxEvalMillis) may fire first,
    // and either way no further rule runs
    assert.match(
      got[0]!.message,
      /^Invalid value: "array": 'operation cancelled: (actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit|evaluation exceeded the time limit of \d+ms': no further validation rules will be run) for rule: /,
    );
  });

  it('reports a rule that does not compile instead of throwing', () => {
    const s: JSONSchemaProps = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a >' }] };
    const [cause] = celRuleCauses(s, {}, undefined, 'spec');
    assert.equal(cause!.field, 'spec');
    assert.match(cause!.message, /^Invalid value: "object": rule compile error: ERROR: <input>:1:9: /);
  });

  it('does not validate null values', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'false' }] } },
    };
    assert.deepEqual(celRuleCauses(s, { a: null }, undefined, 'spec'), []);
  });
});

describe('compileSchemaRules', () => {
  const base = 'spec.validation.openAPIV3Schema';
  it('accepts a schema whose rules all compile', () => {
    assert.deepEqual(compileSchemaRules(schema), []);
  });

  const bad: [string, JSONSchemaProps, string, RegExp][] = [
    [
      'a syntax error, with the rule printed as Go does',
      { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a <' }] } } },
      `${base}.properties[spec].x-kubernetes-validations[0].rule`,
      /^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.a <", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:/,
    ],
    [
      'a non-boolean rule',
      { type: 'object', 'x-kubernetes-validations': [{ rule: "'yes'" }] },
      `${base}.x-kubernetes-validations[0].rule`,
      /cel expression must evaluate to a bool$/,
    ],
    [
      'a bad messageExpression',
      { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', messageExpression: "'a' +" }] },
      `${base}.x-kubernetes-validations[0].messageExpression`,
      /messageExpression compilation failed: ERROR: <input>:1:/,
    ],
    [
      'an unsupported reason',
      { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Bad' }] },
      `${base}.x-kubernetes-validations[0].reason`,
      /^Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"$/,
    ],
    [
      'a fieldPath that names no field',
      {
        type: 'object',
        properties: { a: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: 'true', fieldPath: '.b' }],
      },
      `${base}.x-kubernetes-validations[0].fieldPath`,
      /^Invalid value: "\.b": fieldPath must be a valid path$/,
    ],
    [
      'oldSelf inside items of an atomic list',
      {
        type: 'object',
        properties: {
          xs: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        },
      },
      `${base}.properties[xs].items.x-kubernetes-validations[0].rule`,
      /oldSelf cannot be used on the uncorrelatable portion of the schema within spec\.validation\.openAPIV3Schema\.properties\[xs\]\.items$/,
    ],
    [
      'optionalOldSelf on a rule without oldSelf',
      { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: true }] },
      `${base}.x-kubernetes-validations[0].optionalOldSelf`,
      /^Invalid value: true: may not be set if rule does not use oldSelf$/,
    ],
    [
      'a multi-line rule without a message',
      { type: 'object', 'x-kubernetes-validations': [{ rule: 'true &&\ntrue' }] },
      `${base}.x-kubernetes-validations[0].message`,
      /^Required value: message must be specified if rule contains line breaks$/,
    ],
  ];
  for (const [name, s, field, message] of bad) {
    it(`rejects ${name}`, () => {
      const causes = compileSchemaRules(s);
      assert.equal(causes.length, 1, JSON.stringify(causes));
      assert.equal(causes[0]!.field, field);
      assert.match(causes[0]!.message, message);
    });
  }

  it('uses the caller-supplied path for per-version schemas', () => {
    const causes = compileSchemaRules(
      { type: 'object', 'x-kubernetes-validations': [{ rule: '' }] },
      'spec.versions[1].schema.openAPIV3Schema',
    );
    assert.deepEqual(causes, [
      {
        reason: 'FieldValueRequired',
        field: 'spec.versions[1].schema.openAPIV3Schema.x-kubernetes-validations[0].rule',
        message: 'Required value: rule is not specified',
      },
    ]);
  });
});
