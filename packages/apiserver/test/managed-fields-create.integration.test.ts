// The creator's managedFields hold what it sent and what decoding defaulted, not what the server set after
// (kube's field manager runs before the strategy and mutating admission): a Namespace's spec.finalizers and
// a Service's cluster IP belong to nobody.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiServer, startApiServer } from '../src/index.ts';
import { raw } from '../src/testing/index.ts';

describe("a create's managedFields", () => {
  let s: ApiServer;
  before(async () => {
    s = await startApiServer({ port: 0 });
  });
  after(async () => {
    await s?.close();
  });

  it("a Namespace's creator owns its defaulted name label, not the finalizer the strategy adds", async () => {
    const r = await raw(s, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'owned' },
    });
    assert.equal(r.status, 201, r.text);
    const ns = r.json();
    assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(
      ns.metadata.managedFields.map((m: { fieldsV1: unknown }) => m.fieldsV1),
      [{ 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }],
    );
  });

  it("a Service's creator owns its ports, not the cluster IP the server allocated", async () => {
    const r = await raw(s, 'POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: { ports: [{ port: 80 }] },
    });
    assert.equal(r.status, 201, r.text);
    const svc = r.json();
    assert.match(svc.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    const owned = JSON.stringify(svc.metadata.managedFields[0].fieldsV1);
    assert.match(owned, /f:ports/);
    assert.doesNotMatch(owned, /f:clusterIP/);
  });
});
