import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/errors.ts';
import { applyStrategicMergePatch, patchSchemaFor } from '../../src/patch/index.ts';

type Obj = Record<string, any>;
const deploymentSchema = patchSchemaFor('apps', 'v1', 'Deployment');
const podSchema = patchSchemaFor('', 'v1', 'Pod');

const deployment: Obj = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a/one', 'b/two'] },
  spec: {
    replicas: 2,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app:1',
            args: ['--a', '--b'],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
          },
          { name: 'proxy', image: 'proxy:1' },
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
        tolerations: [{ key: 'gpu', operator: 'Exists' }],
      },
    },
  },
};

const tmplSpec = (patch: Obj) => ({ spec: { template: { spec: patch } } });
const containersOf = (o: unknown) => (o as Obj).spec.template.spec.containers as Obj[];

interface Case {
  name: string;
  patch: Obj;
  check: (out: Obj) => void;
}

const cases: Case[] = [
  {
    name: 'merges maps key by key; null deletes a key',
    patch: { metadata: { labels: { tier: null, env: 'prod' } }, spec: { replicas: 3 } },
    check: (o) => {
      assert.deepEqual(o.metadata.labels, { app: 'web', env: 'prod' });
      assert.equal(o.spec.replicas, 3);
    },
  },
  {
    name: 'merges containers by name, leaving other containers and fields alone',
    patch: tmplSpec({ containers: [{ name: 'proxy', image: 'proxy:2' }] }),
    check: (o) =>
      assert.deepEqual(
        containersOf(o).map((c) => `${c.name}=${c.image}`),
        ['app=app:1', 'proxy=proxy:2'],
      ),
  },
  {
    name: 'adds a container that was not there (kube puts new items ahead of the live ones)',
    patch: tmplSpec({ containers: [{ name: 'sidecar', image: 'log:1' }] }),
    check: (o) =>
      assert.deepEqual(
        containersOf(o).map((c) => c.name),
        ['sidecar', 'app', 'proxy'],
      ),
  },
  {
    name: 'merges env by name inside a merged container',
    patch: tmplSpec({ containers: [{ name: 'app', env: [{ name: 'B', value: '3' }] }] }),
    check: (o) =>
      assert.deepEqual(containersOf(o)[0]!.env, [
        { name: 'A', value: '1' },
        { name: 'B', value: '3' },
      ]),
  },
  {
    name: 'replaces lists without a merge strategy (args, tolerations)',
    patch: tmplSpec({
      containers: [{ name: 'app', args: ['--c'] }],
      tolerations: [{ key: 'spot', operator: 'Exists' }],
    }),
    check: (o) => {
      assert.deepEqual(containersOf(o)[0]!.args, ['--c']);
      assert.deepEqual(o.spec.template.spec.tolerations, [{ key: 'spot', operator: 'Exists' }]);
    },
  },
  {
    name: '$patch: delete removes the list item with that merge key',
    patch: tmplSpec({ containers: [{ name: 'proxy', $patch: 'delete' }] }),
    check: (o) =>
      assert.deepEqual(
        containersOf(o).map((c) => c.name),
        ['app'],
      ),
  },
  {
    name: '$patch: replace in a list replaces the whole list',
    patch: tmplSpec({ containers: [{ name: 'only', image: 'only:1' }, { $patch: 'replace' }] }),
    check: (o) => assert.deepEqual(containersOf(o), [{ name: 'only', image: 'only:1' }]),
  },
  {
    name: '$patch: replace in a map replaces the map',
    patch: { metadata: { labels: { $patch: 'replace', fresh: 'yes' } } },
    check: (o) => assert.deepEqual(o.metadata.labels, { fresh: 'yes' }),
  },
  {
    name: '$patch: delete in a map empties it',
    patch: { spec: { strategy: { $patch: 'delete' } } },
    check: (o) => assert.deepEqual(o.spec.strategy, {}),
  },
  {
    name: '$retainKeys clears the keys it does not list (Deployment strategy)',
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
    check: (o) => assert.deepEqual(o.spec.strategy, { type: 'Recreate' }),
  },
  {
    name: '$deleteFromPrimitiveList removes values from a merged primitive list',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/one'] } },
    check: (o) => assert.deepEqual(o.metadata.finalizers, ['b/two']),
  },
  {
    name: 'primitive lists with merge strategy are unions (finalizers)',
    patch: { metadata: { finalizers: ['b/two', 'c/three'] } },
    check: (o) => assert.deepEqual(o.metadata.finalizers, ['a/one', 'b/two', 'c/three']),
  },
  {
    name: '$setElementOrder orders the merged list as the client asked',
    patch: tmplSpec({
      '$setElementOrder/containers': [{ name: 'proxy' }, { name: 'new' }, { name: 'app' }],
      containers: [{ name: 'new', image: 'n:1' }],
    }),
    check: (o) => {
      assert.deepEqual(
        containersOf(o).map((c) => c.name),
        ['proxy', 'new', 'app'],
      );
      assert.equal(
        Object.keys(o.spec.template.spec).some((k) => k.startsWith('$')),
        false,
      );
    },
  },
  {
    name: 'ports merge by containerPort',
    patch: tmplSpec({
      containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }],
    }),
    check: (o) =>
      assert.deepEqual(containersOf(o)[0]!.ports, [
        { containerPort: 80, protocol: 'TCP', name: 'http' },
        { containerPort: 443 },
      ]),
  },
  {
    name: 'volumes merge by name and accept $retainKeys inside an item',
    patch: tmplSpec({ volumes: [{ name: 'data', $retainKeys: ['name', 'configMap'], configMap: { name: 'cfg' } }] }),
    check: (o) => assert.deepEqual(o.spec.template.spec.volumes, [{ name: 'data', configMap: { name: 'cfg' } }]),
  },
  {
    name: 'a field the live object lacks is taken from the patch without nulls or directives',
    patch: tmplSpec({
      initContainers: [
        { name: 'init', image: 'i:1', command: null },
        { name: 'gone', $patch: 'delete' },
      ],
    }),
    check: (o) => assert.deepEqual(o.spec.template.spec.initContainers, [{ name: 'init', image: 'i:1' }]),
  },
  {
    name: 'untyped (schema-less) patches merge maps and replace lists',
    patch: { spec: { template: { spec: { containers: [{ name: 'x' }] } } } },
    check: (o) => assert.deepEqual(containersOf(o), [{ name: 'x' }]),
  },
];

describe('strategic merge patch', () => {
  for (const c of cases) {
    it(c.name, () => {
      const input = structuredClone(deployment);
      const schema = c.name.startsWith('untyped') ? undefined : deploymentSchema;
      const out = applyStrategicMergePatch(input, structuredClone(c.patch), schema) as Obj;
      assert.deepEqual(input, deployment, 'the input object must not be modified');
      c.check(out);
    });
  }

  it('pod status conditions merge by type', () => {
    const pod = {
      status: {
        conditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Scheduled', status: 'True' },
        ],
      },
    };
    const out = applyStrategicMergePatch(
      pod,
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      podSchema,
    ) as Obj;
    assert.deepEqual(out.status.conditions, [
      { type: 'Ready', status: 'True' },
      { type: 'Scheduled', status: 'True' },
    ]);
  });
});

// Request-caused failures that kube answers with a bare 500 are 400 here (same message).
describe('strategic merge patch errors', () => {
  const errorCases: Array<{ name: string; target?: Obj; patch: Obj; code: number; message: string }> = [
    {
      name: 'a merge-list item without its merge key',
      patch: tmplSpec({ containers: [{ image: 'nameless' }] }),
      code: 400,
      message: 'map: map[image:nameless] does not contain declared merge key: name',
    },
    {
      name: '$patch: merge in a map',
      patch: { metadata: { labels: { $patch: 'merge', x: '1' } } },
      code: 400,
      message: 'unknown patch type: merge in map: map[$patch:merge x:1]',
    },
    {
      name: '$patch: merge in a list',
      patch: tmplSpec({ containers: [{ name: 'app', $patch: 'merge' }] }),
      code: 400,
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: '$retainKeys that is not a list',
      patch: { spec: { strategy: { $retainKeys: 'type' } } },
      code: 400,
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a patch key missing from $retainKeys',
      patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
      code: 400,
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a malformed $deleteFromPrimitiveList key',
      patch: { metadata: { $deleteFromPrimitiveListfinalizers: ['x'] } },
      code: 400,
      message: 'invalid patch format of primitive list',
    },
    {
      name: 'a list of lists',
      target: { metadata: { finalizers: [] } },
      patch: { metadata: { finalizers: [['x']] } },
      code: 422,
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'mixed element types in a merged list',
      patch: { metadata: { finalizers: [['x']] } },
      code: 400,
      message: 'list element types are not identical: [[a/one b/two] [[x]]]',
    },
  ];
  for (const c of errorCases) {
    it(c.name, () => {
      assert.throws(
        () => applyStrategicMergePatch(c.target ?? deployment, structuredClone(c.patch), deploymentSchema),
        (e: unknown) => e instanceof StatusError && e.code === c.code && e.message === c.message,
      );
    });
  }
});
