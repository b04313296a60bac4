import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FieldSet, type PathElement, patchSchemaFor, pathString, schemaFromOpenAPI } from '../../src/patch/index.ts';
import { withZeroFields } from '../../src/patch/schema.ts';

const f = (field: string): PathElement => ({ field });

describe('fieldsV1 encoding', () => {
  it('writes "." first, then fields, keys, values and indexes in structured-merge-diff order', () => {
    const s = FieldSet.of(
      [f('spec'), f('ports')],
      [
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
      ],
      [
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
        f('port'),
      ],
      [
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 8],
            ['protocol', 'TCP'],
          ],
        },
      ],
      [f('metadata'), f('finalizers'), { value: 'b' }],
      [f('metadata'), f('finalizers'), { value: 'a' }],
      [f('spec'), f('a')],
    );
    assert.equal(
      JSON.stringify(s.toFieldsV1()),
      '{"f:metadata":{"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\"":{}}},"f:spec":{"f:a":{},"f:ports":{".":{},"k:{\\"port\\":8,\\"protocol\\":\\"TCP\\"}":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{}}}}}',
    );
  });

  it('reads fieldsV1 back, normalizing key order and ignoring unknown element types', () => {
    const s = FieldSet.fromFieldsV1({
      'f:spec': { 'f:ports': { 'k:{"protocol":"TCP","port":80}': { '.': {}, 'f:port': {} } }, 'x:future': {} },
      'f:data': { '.': {}, 'f:a': {} },
    });
    assert.ok(
      s.has([
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
      ]),
    );
    assert.ok(
      s.has([
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
        f('port'),
      ]),
    );
    assert.ok(s.has([f('data')]));
    assert.ok(!s.has([f('spec')]));
    assert.deepEqual(s.toFieldsV1(), {
      'f:data': { '.': {}, 'f:a': {} },
      'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } } },
    });
  });

  it('rejects malformed entries', () => {
    assert.throws(() => FieldSet.fromFieldsV1({ 'k:{not json': {} }));
    assert.throws(() => FieldSet.fromFieldsV1({ f: {} }));
    assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }));
  });

  it('escapes key values as Go’s JSON encoder does', () => {
    const s = FieldSet.of([f('env'), { key: [['name', 'a<b&c']] }]);
    assert.deepEqual(Object.keys(s.toFieldsV1()['f:env'] as object), ['k:{"name":"a\\u003cb\\u0026c"}']);
  });

  it('prints paths as kube does in conflicts', () => {
    assert.equal(
      pathString([f('spec'), f('containers'), { key: [['name', 'nginx']] }, f('image')]),
      '.spec.containers[name="nginx"].image',
    );
    assert.equal(pathString([f('metadata'), f('finalizers'), { value: 'x' }]), '.metadata.finalizers[="x"]');
    assert.equal(
      pathString([
        f('spec'),
        f('ports'),
        {
          key: [
            ['port', 80],
            ['protocol', 'TCP'],
          ],
        },
      ]),
      '.spec.ports[port=80,protocol="TCP"]',
    );
  });
});

describe('field set algebra', () => {
  const a = FieldSet.of([f('spec'), f('x')], [f('spec'), f('y')], [f('status')]);
  const b = FieldSet.of([f('spec'), f('y')], [f('spec'), f('z')]);
  const paths = (s: FieldSet) => s.paths().map(pathString);

  it('union, intersection and difference work member by member', () => {
    assert.deepEqual(paths(a.union(b)), ['.status', '.spec.x', '.spec.y', '.spec.z']);
    assert.deepEqual(paths(a.intersection(b)), ['.spec.y']);
    assert.deepEqual(paths(a.difference(b)), ['.status', '.spec.x']);
  });

  it('recursive difference removes whole subtrees below members', () => {
    assert.deepEqual(paths(a.recursiveDifference(FieldSet.of([f('spec')]))), ['.status']);
    assert.deepEqual(paths(a.difference(FieldSet.of([f('spec')]))), ['.status', '.spec.x', '.spec.y']);
  });
});

describe('patch schemas', () => {
  it('derives list and map types from a CRD schema', () => {
    const s = schemaFromOpenAPI({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { 'x-kubernetes-int-or-string': true },
            tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
            args: { type: 'array', items: { type: 'string' } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
          },
        },
      },
    });
    assert.equal(s.kind, 'struct');
    const spec = (s as any).fields.spec;
    assert.deepEqual(spec.fields.size, { kind: 'scalar' });
    assert.equal(spec.fields.tags.listType, 'set');
    assert.equal(spec.fields.args.listType, 'atomic');
    assert.deepEqual(spec.fields.labels.other, { kind: 'scalar' });
    assert.equal(spec.fields.template.fields.metadata.fields.ownerReferences.keys[0], 'uid');
    assert.equal((s as any).fields.metadata.fields.finalizers.listType, 'set');
  });

  it('knows the merge keys of built-in kinds and falls back to an open object', () => {
    const pod = patchSchemaFor('', 'v1', 'Pod') as any;
    assert.deepEqual(pod.fields.spec.fields.containers.keys, ['name']);
    assert.deepEqual(pod.fields.spec.fields.containers.item.fields.ports.keys, ['containerPort', 'protocol']);
    assert.equal(pod.fields.spec.fields.containers.item.fields.ports.patchMergeKey, 'containerPort');
    assert.equal(pod.fields.spec.fields.tolerations.listType, 'atomic');
    assert.equal((patchSchemaFor('rbac.authorization.k8s.io', 'v1', 'Role') as any).fields.rules.listType, 'atomic');
    assert.equal(
      (patchSchemaFor('admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration') as any).fields.webhooks
        .patchMergeKey,
      'name',
    );
    const unknown = patchSchemaFor('example.k8s.io', 'v1', 'Thing') as any;
    assert.equal(unknown.kind, 'struct');
    assert.equal(unknown.otherNamed, true);
  });

  it('fills the fields a Go zero value always has, without touching present ones', () => {
    const schema = patchSchemaFor('apps', 'v1', 'Deployment');
    const obj = { spec: { template: { spec: { containers: [{ name: 'a' }] } } } };
    assert.deepEqual(withZeroFields(obj, schema), {
      metadata: {},
      spec: {
        selector: null,
        strategy: {},
        template: { metadata: {}, spec: { containers: [{ name: 'a', resources: {} }] } },
      },
      status: {},
    });
    assert.deepEqual(obj, { spec: { template: { spec: { containers: [{ name: 'a' }] } } } });
  });
});
