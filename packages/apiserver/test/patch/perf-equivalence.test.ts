// Equivalence guards for the managedFields fast paths (subtree recording of added fields, token and
// quoting shortcuts, node ordering): outputs recorded from the implementation before those
// optimisations, plus properties that tie the fast paths to the general ones on seeded random objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet } from '../../src/patch/fieldpath.ts';
import { patchSchemaFor, recordUpdate, schemaFromOpenAPI } from '../../src/patch/index.ts';
import { compareStrings, goQuote, type Json } from '../../src/patch/json-value.ts';
import { comparePE, parseToken } from '../../src/patch/path-elements.ts';
import type { PatchSchema } from '../../src/patch/schema.ts';
import { compareTyped } from '../../src/patch/typed-merge.ts';
import { prng } from '../../src/testing/index.ts';

type Obj = Record<string, any>;
const now = new Date(Date.UTC(2024, 0, 1));
const crdOpenAPI = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        model: { type: 'string' },
        env: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};
const crd = schemaFromOpenAPI(crdOpenAPI);
const base = () => ({
  apiVersion: 'x.io/v1',
  kind: 'X',
  metadata: { name: 'a', namespace: 'ns', labels: { 'a<b': '1', é: '2', '😀': '3', z: '4' } } as Obj,
});

// Recorded from the implementation before the optimisations (byte-identical JSON expected).
const EXPECTED = {
  crdCreate: [
    {
      manager: 'ctl',
      operation: 'Update',
      apiVersion: 'x.io/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:a<b': {}, 'f:z': {}, 'f:é': {}, 'f:😀': {} } },
        'f:spec': {
          '.': {},
          'f:args': {},
          'f:env': {
            '.': {},
            'k:{"name":"E1"}': { '.': {}, 'f:name': {}, 'f:value': {} },
            'k:{"name":"E10"}': { '.': {}, 'f:name': {}, 'f:value': {} },
            'k:{"name":"E2"}': { '.': {}, 'f:name': {} },
          },
          'f:free': { '.': {}, 'f:k': {}, 'f:nested': { '.': {}, 'f:deep': {} } },
          'f:labels': { '.': {}, 'f:q"t': {}, 'f:tab\t': {} },
          'f:model': {},
          'f:ports': {
            '.': {},
            'k:{"port":53,"protocol":"TCP"}': { '.': {}, 'f:port': {} },
            'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
            'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} },
          },
          'f:tags': { '.': {}, 'v:"a\\u0026"': {}, 'v:"b"': {}, 'v:"ü"': {}, 'v:""': {}, 'v:"😀"': {} },
        },
      },
    },
  ],
  crdUpdate: [
    {
      manager: 'first',
      operation: 'Update',
      apiVersion: 'x.io/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:a<b': {}, 'f:z': {}, 'f:é': {}, 'f:😀': {} } },
        'f:spec': {
          '.': {},
          'f:env': { '.': {}, 'k:{"name":"B"}': { '.': {}, 'f:name': {} } },
          'f:tags': { '.': {}, 'v:"x"': {} },
        },
      },
    },
    {
      manager: 'second',
      operation: 'Update',
      apiVersion: 'x.io/v1',
      time: '2024-01-02T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:spec': {
          'f:env': { 'k:{"name":"B"}': { 'f:value': {} }, 'k:{"name":"C"}': { '.': {}, 'f:name': {} } },
          'f:tags': { 'v:"y"': {} },
        },
      },
    },
  ],
  deploymentCreate: [
    {
      manager: 'kubectl-client-side-apply',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:annotations': { '.': {}, 'f:x/y': {} } },
        'f:spec': {
          'f:replicas': {},
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"c"}': {
                  '.': {},
                  'f:env': { '.': {}, 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                  'f:image': {},
                  'f:name': {},
                  'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                  'f:resources': {},
                },
              },
            },
          },
        },
      },
    },
  ],
  untypedCreate: [
    {
      manager: 'unknown',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:&': {}, 'f:a.b': {}, 'f:e': {}, 'f:n': {} } },
    },
  ],
};

function recordedCases(): Record<string, unknown> {
  const cases: Record<string, unknown> = {};
  const created = {
    ...base(),
    spec: {
      model: 'm',
      env: [{ name: 'E10', value: 'x' }, { name: 'E2' }, { name: 'E1', value: 'y' }, { name: 'E1', value: 'dup' }],
      ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }, { port: 53 }],
      tags: ['b', 'a&', 'ü', '\ud83d\ude00', '\ue000'],
      args: ['x'],
      labels: { 'q"t': 'v', 'tab\t': 'w' },
      free: { nested: { deep: [1, 2] }, k: null },
    },
  };
  cases.crdCreate = recordUpdate({
    oldObj: undefined,
    newObj: created,
    manager: 'ctl',
    operation: 'Update',
    schema: crd,
    now,
    apiVersion: 'x.io/v1',
  });
  const live: Obj = {
    ...base(),
    spec: {
      model: 'm',
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      tags: ['x'],
    },
  };
  live.metadata.uid = 'u';
  live.metadata.managedFields = recordUpdate({
    oldObj: undefined,
    newObj: live,
    manager: 'first',
    operation: 'Update',
    schema: crd,
    now,
    apiVersion: 'x.io/v1',
  });
  const next = structuredClone(live);
  delete next.metadata.managedFields;
  next.spec.env = [{ name: 'B', value: '3' }, { name: 'C' }];
  next.spec.tags = ['x', 'y'];
  delete next.spec.model;
  cases.crdUpdate = recordUpdate({
    oldObj: live,
    newObj: next,
    manager: 'second',
    operation: 'Update',
    schema: crd,
    now: new Date(Date.UTC(2024, 0, 2)),
    apiVersion: 'x.io/v1',
  });
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', annotations: { 'x/y': 'z' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'b' }] }],
        },
      },
    },
  };
  cases.deploymentCreate = recordUpdate({
    oldObj: undefined,
    newObj: deployment,
    manager: 'kubectl-client-side-apply',
    operation: 'Update',
    schema: patchSchemaFor('apps', 'v1', 'Deployment'),
    now,
    apiVersion: 'apps/v1',
  });
  const untyped = {
    apiVersion: 'v1',
    kind: 'Y',
    metadata: { name: 'n' },
    data: { 'a.b': 1, '&': [1, { x: 2 }], e: {}, n: null },
  };
  cases.untypedCreate = recordUpdate({
    oldObj: undefined,
    newObj: untyped,
    manager: '',
    operation: 'Update',
    schema: undefined,
    now,
    apiVersion: 'v1',
  });
  return cases;
}

const ODD_STRINGS = [
  'a',
  'name',
  'x.y/z',
  'a<b',
  'a&b',
  'q"t',
  'back\\s',
  'tab\t',
  'ctl\u0001',
  'ls\u2028',
  'é',
  '日本',
  '😀',
  'z😀',
  '\ud800',
  '\ue000',
  '\uffff',
  'k:v',
  '',
  'E1',
  'E10',
  'E2',
  'del\u007f',
];

/** A random object shaped by the CRD schema above (sometimes off-schema), with odd keys and values. */
function randomObject(r: () => number): Obj {
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const scalar = (): Json =>
    pick<() => Json>([() => pick(ODD_STRINGS), () => int(5), () => r() < 0.5, () => null, () => 1.5])();
  const untyped = (d: number): Json => {
    const c = r();
    if (d > 3 || c < 0.45) return scalar();
    if (c < 0.75) return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(ODD_STRINGS), untyped(d + 1)]));
    return Array.from({ length: int(3) }, () => untyped(d + 1));
  };
  const maybe = (v: () => Json): Json | undefined => (r() < 0.7 ? (r() < 0.05 ? untyped(2) : v()) : undefined);
  const spec: Obj = {
    model: maybe(() => pick(ODD_STRINGS)),
    env: maybe(() =>
      Array.from({ length: int(30) }, () => ({
        name: r() < 0.9 ? `${pick(['E', 'ü', '😀', 'a<'])}${int(40)}` : int(3),
        value: pick(ODD_STRINGS),
      })),
    ),
    ports: maybe(() =>
      Array.from(
        { length: int(5) },
        () => (r() < 0.7 ? { port: int(4), protocol: pick(['TCP', 'UDP']) } : { port: int(4) }) as Json,
      ),
    ),
    tags: maybe(() => Array.from({ length: int(6) }, () => (r() < 0.8 ? pick(ODD_STRINGS) : int(3)))),
    args: maybe(() => Array.from({ length: int(3) }, () => pick(ODD_STRINGS))),
    labels: maybe(() =>
      Object.fromEntries(Array.from({ length: int(5) }, () => [pick(ODD_STRINGS), pick(ODD_STRINGS)])),
    ),
    free: maybe(() => untyped(0)),
  };
  for (const k of Object.keys(spec)) if (spec[k] === undefined) delete spec[k];
  const obj: Obj = { ...base(), spec };
  if (r() < 0.3)
    obj.metadata.labels = Object.fromEntries(Array.from({ length: int(4) }, () => [pick(ODD_STRINGS), 'v']));
  if (r() < 0.2) obj.status = untyped(1);
  return obj;
}

describe('managedFields output is unchanged by the fast paths', () => {
  const got = recordedCases();
  for (const [name, want] of Object.entries(EXPECTED)) {
    it(`${name} matches the recorded output byte for byte`, () => {
      assert.equal(JSON.stringify(got[name]), JSON.stringify(want));
    });
  }
});

describe('fast paths agree with the general ones on random objects', () => {
  const objects = Array.from({ length: 300 }, (_, i) => randomObject(prng(i + 1)));
  const schemas: Array<[string, PatchSchema]> = [
    ['crd', crd],
    ['deployment', patchSchemaFor('apps', 'v1', 'Deployment')],
    ['untyped', { kind: 'untyped' }],
  ];

  for (const [name, schema] of schemas) {
    it(`added fields (subtree walk) mirror removed fields (general walk) for ${name}`, () => {
      objects.forEach((a, i) => {
        const b = objects[(i * 7 + 3) % objects.length]!;
        for (const [l, r] of [
          [a, b],
          [{}, a],
          [a, {}],
        ] as const) {
          const forward = compareTyped(l as Json, r as Json, schema);
          const backward = compareTyped(r as Json, l as Json, schema);
          assert.deepEqual(forward.added.toFieldsV1(), backward.removed.toFieldsV1(), `object ${i}`);
          assert.deepEqual(forward.modified.toFieldsV1(), backward.modified.toFieldsV1(), `object ${i}`);
        }
      });
    });
  }

  it('a create records the same managedFields as an update from an empty object (CRD schema)', () => {
    objects.forEach((obj, i) => {
      const opts = { newObj: obj, manager: 'm', operation: 'Update' as const, schema: crd, now, apiVersion: 'x.io/v1' };
      assert.equal(
        JSON.stringify(recordUpdate({ ...opts, oldObj: undefined })),
        JSON.stringify(recordUpdate({ ...opts, oldObj: {} })),
        `object ${i}`,
      );
    });
  });

  it('fieldsV1 keys of every level are in comparePE order', () => {
    const check = (v: Json) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
      const keys = Object.keys(v).filter((k) => k !== '.');
      const pes = keys.map((k) => parseToken(k)!);
      const sorted = [...pes].sort(comparePE);
      assert.deepEqual(pes, sorted);
      for (const k of keys) check(v[k]!);
    };
    for (const obj of objects) check(FieldSet.of(...compareTyped({}, obj, crd).added.paths()).toFieldsV1());
  });

  it('goQuote and compareStrings keep their meaning for odd strings', () => {
    const r = prng(99);
    const alphabet = [
      'a',
      'Z',
      '"',
      '\\',
      '<',
      '>',
      '&',
      '\u0000',
      '\u001f',
      ' ',
      '~',
      '\u007f',
      'é',
      '\u2028',
      '\u2029',
      '\ud800',
      '\udc00',
      '\ue000',
      '\uffff',
      '😀',
    ];
    const s = () =>
      Array.from({ length: Math.floor(r() * 5) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
    const codePoints = (x: string) => Array.from(x, (c) => c.codePointAt(0)!);
    const reference = (x: string, y: string) => {
      const a = codePoints(x);
      const b = codePoints(y);
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return Math.sign(a.length - b.length);
    };
    for (let i = 0; i < 5000; i++) {
      const x = s();
      const y = r() < 0.4 ? x + s() : s();
      assert.equal(Math.sign(compareStrings(x, y)), reference(x, y), JSON.stringify([x, y]));
      const htmlSafe = JSON.stringify(x).replace(
        /[<>&\u2028\u2029]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      );
      assert.equal(goQuote(x), htmlSafe, JSON.stringify(x));
    }
  });
});
