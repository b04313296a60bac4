// API-level behaviour of the JSONPath port that the kubectl conformance table cannot show: parsing/caching, raw
// results, relaxed paths, CRD printer columns, and JS-specific inputs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { humanDuration } from '../src/duration.ts';
import {
  executeJsonPath,
  findJsonPathResults,
  JsonPathError,
  parseJsonPath,
  printerColumnCell,
  printerColumnValue,
  relaxedJsonPath,
} from '../src/jsonpath/index.ts';

const isvc = {
  apiVersion: 'serving.modelplane.io/v1alpha1',
  kind: 'InferenceService',
  metadata: { name: 'llama', namespace: 'models', labels: { 'org.example/team': 'blue' } },
  spec: { replicas: 2, ratio: 0.5, enabled: true, nothing: null, tags: ['a', 'b'] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z' },
      { type: 'Degraded', status: 'False' },
    ],
  },
};

describe('parseJsonPath', () => {
  test('returns a deeply frozen AST, memoised per template text', () => {
    const first = parseJsonPath('{.metadata.name}');
    assert.equal(parseJsonPath('{.metadata.name}'), first);
    assert.ok(Object.isFrozen(first));
    assert.ok(Object.isFrozen(first.nodes));
    assert.ok(Object.isFrozen(first.nodes[0]));
    assert.deepEqual(first.nodes, [
      {
        type: 'list',
        nodes: [
          { type: 'field', name: 'metadata' },
          { type: 'field', name: 'name' },
        ],
      },
    ]);
  });

  test('a parsed template executes like its source text', () => {
    const template = parseJsonPath('{range .spec.tags[*]}<{@}>{end}');
    assert.equal(executeJsonPath(template, isvc), '<a><b>');
    assert.equal(executeJsonPath(template, isvc), executeJsonPath(template.source, isvc));
  });

  const syntaxErrors: [string, string][] = [
    ['{.a', 'unclosed action'],
    ['{.a["b"]}', 'invalid array index "b"'],
    ['{.a[?(@.b=="c")}', 'unclosed array expect ]'],
    ['{.a[1:2:x]}', 'invalid array index 1:2:x'],
    ['{.a[99999999999999999999]}', 'array index 99999999999999999999 is not a number'],
    ['{"\\u12"}', 'unquote string "\\u12" error invalid syntax'],
    ["{'\\\"'}", `unquote string '\\"' error invalid syntax`],
    ['{.a{.b}}', "unrecognized character in action: U+007B '{'"],
  ];
  for (const [template, message] of syntaxErrors) {
    test(`rejects ${template} with "${message}"`, () => {
      assert.throws(
        () => parseJsonPath(template),
        (err: unknown) => err instanceof JsonPathError && err.message === message && err.phase === 'parse',
      );
    });
  }

  test('keeps Go number literal kinds: an int64 literal compares with data, a float literal does not', () => {
    assert.equal(executeJsonPath('{.spec.tags[?(@=="b")]} {.spec.replicas}', isvc), 'b 2');
    assert.equal(executeJsonPath('{range .status.conditions[?(@.status=="True")]}{.type}{end}', isvc), 'Ready');
    assert.throws(() => executeJsonPath('{.x[?(@.n==2.0)]}', { x: [{ n: 2 }] }), /incompatible types for comparison/);
    assert.equal(executeJsonPath('{.x[?(@.n==2)].n}', { x: [{ n: 2 }, { n: 3 }] }), '2');
  });
});

describe('executeJsonPath', () => {
  test('missing keys print nothing by default and fail when allowMissingKeys is false', () => {
    assert.equal(executeJsonPath('[{.metadata.labels.team}]', isvc), '[]');
    assert.throws(
      () => executeJsonPath('{.metadata.labels.team}', isvc, { allowMissingKeys: false }),
      (err: unknown) => err instanceof JsonPathError && err.message === 'team is not found' && err.phase === 'execute',
    );
  });

  test('treats undefined properties as absent and never reads inherited properties', () => {
    const data = JSON.parse('{"a":{"__proto__":"own"}}') as Record<string, unknown>;
    data.b = { c: undefined, d: 1 };
    assert.equal(executeJsonPath('{.b}', data), '{"d":1}');
    assert.equal(executeJsonPath('{.b.c}|{.b.toString}|{.a.constructor}', data), '||');
    assert.equal(executeJsonPath('{.a.__proto__}', data), 'own');
  });

  test('null data behaves like Go nil: nothing found, {@} is <no value>', () => {
    assert.equal(executeJsonPath('{.a}', null), '');
    assert.equal(executeJsonPath('{@}', null), '<no value>');
  });

  test('large integers print exactly as int64 and floats past int64 like Go floats', () => {
    assert.equal(
      executeJsonPath('{.a} {.b} {.c}', { a: 2 ** 60, b: 2 ** 63, c: -(2 ** 63) }),
      '1152921504606846976 9.223372036854776e+18 -9223372036854775808',
    );
  });
});

describe('findJsonPathResults', () => {
  test('returns raw values per block, literal text as its own block', () => {
    assert.deepEqual(findJsonPathResults('x{.spec.tags[*]}{.spec.replicas}', isvc), [['x'], ['a', 'b'], [2]]);
    assert.deepEqual(findJsonPathResults('{.metadata.labels}', isvc), [[{ 'org.example/team': 'blue' }]]);
  });

  test('unwraps Go-only values: float literals and string bytes as numbers, null range items as undefined', () => {
    assert.deepEqual(findJsonPathResults('{1.5}{.metadata.name.*}', isvc), [[1.5], [108, 108, 97, 109, 97]]);
    assert.deepEqual(findJsonPathResults('{range .x[*]}{@}{end}', { x: [null, 1] }), [[undefined], [1]]);
  });

  test('an empty range still yields no blocks', () => {
    assert.deepEqual(findJsonPathResults('{range .spec.missing[*]}{@}{end}', isvc), []);
  });
});

describe('relaxedJsonPath', () => {
  const cases: [string, string][] = [
    ['.metadata.name', '{.metadata.name}'],
    ['metadata.name', '{.metadata.name}'],
    ['{metadata.name}', '{.metadata.name}'],
    ['{.metadata.name}', '{.metadata.name}'],
    ["..metadata.labels['a.b']", "{..metadata.labels['a.b']}"],
    ['', ''],
  ];
  for (const [path, expected] of cases) {
    test(`${JSON.stringify(path)} -> ${JSON.stringify(expected)}`, () => assert.equal(relaxedJsonPath(path), expected));
  }
  test('rejects several blocks like kubectl', () => {
    assert.throws(() => relaxedJsonPath('{.a}{.b}'), /unexpected path string, expected a 'name1.name2'/);
  });
});

describe('printerColumnValue (kube-apiserver tableconvertor)', () => {
  const cases: [string, unknown][] = [
    ['.metadata.name', 'llama'],
    ['.spec.replicas', 2],
    ['.spec.tags', ['a', 'b']],
    ['.spec.tags[*]', 'a'],
    ['.status.conditions[?(@.type=="Ready")].status', 'True'],
    ['.metadata.labels.org\\.example/team', 'blue'],
    [".metadata.labels['org.example/team']", undefined],
    ['.spec.missing', undefined],
    ['.spec.tags[5]', undefined],
    ['.spec.nothing', null],
    ['metadata.name', 'llama'],
  ];
  for (const [path, expected] of cases) {
    test(`${path} -> ${JSON.stringify(expected)}`, () => assert.deepEqual(printerColumnValue(path, isvc), expected));
  }
  test('throws for a path that does not parse', () => {
    assert.throws(() => printerColumnValue('.spec.tags[', isvc), JsonPathError);
  });
});

describe('printerColumnCell', () => {
  const now = Date.parse('2024-05-01T10:05:30Z');
  const cases: [string, string, unknown][] = [
    ['.metadata.name', 'string', 'llama'],
    ['.metadata.labels', 'string', '{"org.example/team":"blue"}'],
    ['.spec.nothing', 'string', '<no value>'],
    ['.spec.ratio', 'string', '0.5'],
    ['.spec.missing', 'string', null],
    ['.spec.replicas', 'integer', 2],
    ['.spec.ratio', 'integer', 0],
    ['.metadata.name', 'integer', null],
    ['.spec.replicas', 'number', 2],
    ['.spec.enabled', 'boolean', true],
    ['.spec.replicas', 'boolean', null],
    ['.spec.nothing', 'integer', null],
    ['.status.conditions[0].lastTransitionTime', 'date', '5m30s'],
    ['.metadata.name', 'date', '<invalid>'],
  ];
  for (const [jsonPath, type, expected] of cases) {
    test(`${type} ${jsonPath} -> ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(printerColumnCell({ jsonPath, type }, isvc, now), expected);
    });
  }
  test('date edge cases: unset, zero time, offsets, invalid calendar dates', () => {
    const cell = (value: string) => printerColumnCell({ jsonPath: '.t', type: 'date' }, { t: value }, now);
    assert.equal(cell(''), '<unknown>');
    assert.equal(cell('0001-01-01T00:00:00Z'), '<unknown>');
    assert.equal(cell('2024-05-01T12:00:00+02:00'), '5m30s');
    assert.equal(cell('2024-05-01T10:05:29.5Z'), '0s');
    assert.equal(cell('2024-02-30T00:00:00Z'), '<invalid>');
    assert.equal(cell('2024-05-01 10:00:00Z'), '<invalid>');
    assert.equal(cell('2024-05-01T10:10:00Z'), '<invalid>');
  });
});

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1 * s, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [9 * m + 59 * s, '9m59s'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [7 * h + 59 * m, '7h59m'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [7 * d + 23 * h, '7d23h'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [731 * d, '2y1d'],
    [8 * 365 * d, '8y'],
    [-1.5 * s, '0s'],
    [0, '0s'],
    [125 * s, '2m5s'],
    [3 * h + 4 * m, '3h4m'],
    [50 * h, '2d2h'],
    [9 * 365 * d, '9y'],
  ];
  for (const [ms, expected] of cases) {
    test(`${ms}ms -> ${expected}`, () => assert.equal(humanDuration(ms), expected));
  }
});
