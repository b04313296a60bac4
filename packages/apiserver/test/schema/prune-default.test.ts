// Pruning (unknown fields, ObjectMeta coercion, preserve-unknown-fields, embedded resources, nulls) and
// structural defaulting (nested defaults inside defaulted objects, list items, on read).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults, compileCrdVersionValidator } from '../../src/schema/index.ts';
import type { JSONSchemaProps } from '../../src/schema/types.ts';
import { aimService, aimServiceSchema } from './fixture.ts';

type Obj = Record<string, any>;

describe('prune', () => {
  const v = compileCrdVersionValidator(aimServiceSchema());

  it('drops unknown fields everywhere and reports their paths, sorted', () => {
    const o: Obj = aimService();
    o.foo = 1;
    o.spec.replicaz = 3;
    o.spec.env[1].valueFrom = { secretKeyRef: { name: 's' } };
    o.spec.routing.extra = true;
    o.status = { status: 'Running', lastSeen: 'x' };
    assert.deepEqual(v.prune(o), [
      'foo',
      'spec.env[1].valueFrom',
      'spec.replicaz',
      'spec.routing.extra',
      'status.lastSeen',
    ]);
    assert.equal('foo' in o, false);
    assert.equal('replicaz' in o.spec, false);
    assert.deepEqual(o.spec.env[1], { name: 'VLLM_LOG', value: 'info' });
    assert.deepEqual(o.status, { status: 'Running' });
    assert.equal(o.apiVersion, 'aim.eai.amd.com/v1alpha1');
    assert.equal(o.kind, 'AIMService');
  });

  it('keeps only ObjectMeta fields in metadata, whatever the schema says about metadata', () => {
    const o: Obj = aimService();
    o.metadata.annotations = { a: 'b' };
    o.metadata.finalizers = ['x'];
    o.metadata.colour = 'red';
    assert.deepEqual(v.prune(o), ['metadata.colour']);
    assert.deepEqual(o.metadata, {
      name: 'llama-3-8b',
      namespace: 'default',
      labels: { team: 'ml' },
      annotations: { a: 'b' },
      finalizers: ['x'],
    });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields', () => {
    const o: Obj = aimService();
    o.spec.extra = { known: 'k', anything: { nested: [1, 2] } };
    assert.deepEqual(v.prune(o), []);
    assert.deepEqual(o.spec.extra, { known: 'k', anything: { nested: [1, 2] } });
  });

  it('still prunes specified fields below a preserve-unknown-fields node', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { strict: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    };
    const o: Obj = { apiVersion: 'x/v1', kind: 'X', metadata: {}, spec: { free: 1, strict: { a: 'x', b: 'y' } } };
    assert.deepEqual(compileCrdVersionValidator(schema).prune(o), ['spec.strict.b']);
    assert.deepEqual(o.spec, { free: 1, strict: { a: 'x' } });
  });

  it('keeps apiVersion/kind/metadata of embedded resources and coerces their metadata', () => {
    const o: Obj = aimService();
    o.spec.podTemplate = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', shape: 'round' },
      spec: { containers: [{ name: 'c' }] },
    };
    assert.deepEqual(v.prune(o), ['spec.podTemplate.metadata.shape']);
    assert.deepEqual(o.spec.podTemplate, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c' }] },
    });
  });

  it('drops nulls of non-nullable fields without a default, keeps nullable ones', () => {
    const o: Obj = aimService();
    o.spec.owner = null;
    o.spec.note = null;
    assert.deepEqual(v.prune(o), []);
    assert.equal('owner' in o.spec, false);
    assert.equal(o.spec.note, null);
  });

  it('prunes a map of objects through additionalProperties', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: { type: 'object', additionalProperties: { type: 'object', properties: { port: { type: 'integer' } } } },
      },
    };
    const o: Obj = { apiVersion: 'x/v1', kind: 'X', metadata: {}, spec: { web: { port: 80, proto: 'tcp' } } };
    assert.deepEqual(compileCrdVersionValidator(schema).prune(o), ['spec.web.proto']);
  });
});

describe('defaults', () => {
  const schema = aimServiceSchema();
  const v = compileCrdVersionValidator(schema);

  it('applies defaults, including nested ones inside a defaulted object', () => {
    const o: Obj = aimService();
    v.default(o);
    assert.equal(o.spec.replicas, 1);
    assert.deepEqual(o.spec.caching, { mode: 'Shared', storage: { size: '10Gi', headroomPercent: 10 } });
    assert.equal('status' in o, false, 'no default for an absent parent without default');
  });

  it('keeps given values and fills the missing siblings', () => {
    const o: Obj = aimService();
    o.spec.replicas = 0;
    o.spec.caching = { mode: 'Dedicated', storage: { size: '1Ti' } };
    o.status = {};
    v.default(o);
    assert.equal(o.spec.replicas, 0);
    assert.deepEqual(o.spec.caching, { mode: 'Dedicated', storage: { size: '1Ti', headroomPercent: 10 } });
    assert.deepEqual(o.status, { status: 'Pending' });
  });

  it('replaces a null in a non-nullable defaulted field (null survives pruning, then gets the default)', () => {
    const o: Obj = aimService();
    o.spec.replicas = null;
    o.spec.caching = null;
    assert.deepEqual(v.prune(o), []);
    v.default(o);
    assert.equal(o.spec.replicas, 1);
    assert.deepEqual(o.spec.caching, { mode: 'Shared', storage: { size: '10Gi', headroomPercent: 10 } });
  });

  it('defaults inside list items and copies default values', () => {
    const s: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            ports: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  protocol: { type: 'string', default: 'TCP' },
                  opts: { type: 'object', default: { a: 1 } },
                },
              },
            },
          },
        },
      },
    };
    const o: Obj = { spec: { ports: [{ protocol: 'UDP' }, {}] } };
    applyDefaults(s, o);
    assert.deepEqual(o.spec.ports, [
      { protocol: 'UDP', opts: { a: 1 } },
      { protocol: 'TCP', opts: { a: 1 } },
    ]);
    o.spec.ports[0].opts.a = 2;
    assert.equal(o.spec.ports[1].opts.a, 1, 'each item gets its own copy');
    assert.deepEqual((s.properties!.spec!.properties!.ports!.items as JSONSchemaProps).properties!.opts!.default, {
      a: 1,
    });
  });

  it('applyDefaults is what the server runs on read', () => {
    const stored: Obj = aimService();
    applyDefaults(schema, stored);
    assert.equal(stored.spec.replicas, 1);
    assert.equal(stored.spec.caching.storage.headroomPercent, 10);
  });
});
