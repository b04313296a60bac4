import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raw, startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { crdFromZod, structuralSchema } from '@modelplane/runtime/crd';
import { z } from 'zod';
import { createCrdAndWait } from './crd-helpers.ts';

const widget = z.object({
  count: z.number().int().min(0).optional(),
  quantity: z.union([z.number().int(), z.string()]).meta({ 'x-kubernetes-int-or-string': true }).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
  open: z.looseObject({ a: z.string().optional() }).optional(),
  mode: z.enum(['A', 'B']).optional(),
  items: z
    .array(z.object({ name: z.string() }))
    .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })
    .optional(),
});

describe('structuralSchema', () => {
  const s = structuralSchema(widget) as any;

  it('drops zod artefacts kube rejects or misreads', () => {
    assert.equal(s.$schema, undefined);
    assert.equal(s.additionalProperties, undefined);
    assert.deepEqual(s.properties.count, { type: 'integer', minimum: 0 });
  });

  it('spells unknown-valued maps and loose objects as x-kubernetes-preserve-unknown-fields', () => {
    assert.deepEqual(s.properties.extra, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    assert.equal(s.properties.open['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(s.properties.open.additionalProperties, undefined);
  });

  it('keeps x-kubernetes-* annotations and int-or-string branches without bounds', () => {
    assert.deepEqual(s.properties.items['x-kubernetes-list-map-keys'], ['name']);
    assert.deepEqual(s.properties.quantity.anyOf.map((b: any) => b.type).sort(), ['integer', 'string']);
    for (const b of s.properties.quantity.anyOf) assert.deepEqual(Object.keys(b), ['type']);
  });

  const rejected: Array<[string, z.ZodType]> = [
    ['a union of scalars', z.object({ v: z.union([z.string(), z.number()]) })],
    ['a union of objects', z.object({ v: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) })],
  ];
  for (const [name, schema] of rejected) {
    it(`rejects ${name} (kube would need anyOf/oneOf without types)`, () =>
      assert.throws(() => structuralSchema(schema), /schema \.v: anyOf/));
  }
});

describe('crdFromZod on the test cluster (embedded or real API server)', () => {
  let server: TestCluster;
  before(async () => {
    server = await startTestCluster();
  });
  after(async () => {
    await server?.stop();
  });

  it('produces a CRD kube accepts as structural, with a working status subresource and printer columns', async () => {
    const crd = crdFromZod({
      group: 'test.modelplane.dev',
      kind: 'Widget',
      plural: 'widgets',
      shortNames: ['wdg'],
      categories: ['all'],
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          spec: widget,
          status: z.object({ phase: z.string().optional() }),
          printerColumns: [{ name: 'Mode', type: 'string', jsonPath: '.spec.mode' }],
        },
      ],
    });
    await createCrdAndWait(server, crd);
    const obj = {
      apiVersion: 'test.modelplane.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { count: 0, quantity: '8Gi', extra: { deep: { x: 1 } }, open: { a: 'x', b: 2 } },
    };
    const r = await raw(server, 'POST', '/apis/test.modelplane.dev/v1/namespaces/default/widgets', obj);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json().spec, obj.spec);
    const bad = await raw(server, 'POST', '/apis/test.modelplane.dev/v1/namespaces/default/widgets', {
      ...obj,
      metadata: { name: 'w2' },
      spec: { mode: 'C' },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.text, /spec\.mode/);
  });

  it('is rejected by the server when hand-edited into a non-structural schema (the check is real)', async () => {
    const crd = crdFromZod({
      group: 'test.modelplane.dev',
      kind: 'Gadget',
      plural: 'gadgets',
      scope: 'Cluster',
      versions: [{ name: 'v1', spec: z.object({ a: z.string() }) }],
    });
    const spec = (crd.spec.versions[0]!.schema!.openAPIV3Schema as any).properties.spec;
    delete spec.properties.a.type;
    const r = await raw(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(r.status, 422, r.text);
    assert.match(r.text, /type/);
  });
});
