// /openapi/v2 and the real kubectl: `kubectl apply` of a `kind: List` validates (kubectl reads the Swagger
// document for the items of a List), while kubectl's client-side apply of built-ins keeps computing strategic
// merge patches from its compiled-in types (a field another writer added inside a list element survives).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raw, startTestCluster, type TestCluster } from '../../src/testing/index.ts';

const list = `
apiVersion: v1
kind: List
items:
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: l1, namespace: default }, data: { a: "1" } }
  - { apiVersion: v1, kind: ConfigMap, metadata: { name: l2, namespace: default }, data: { b: "2" } }
`;

const deployment = (image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: merged, namespace: default }
spec:
  selector: { matchLabels: { app: merged } }
  template:
    metadata: { labels: { app: merged } }
    spec:
      containers:
        - { name: main, image: ${image} }
        - { name: side, image: busybox }
`;

describe('OpenAPI v2 and kubectl', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('serves a Swagger 2.0 document as JSON and as protobuf', async () => {
    const json = await raw(c, 'GET', '/openapi/v2');
    assert.equal(json.status, 200);
    assert.deepEqual(json.json(), {
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.32.0' },
      paths: {},
      definitions: {},
    });
    const pb = await raw(c, 'GET', '/openapi/v2', undefined, {
      accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });

  it('kubectl apply of a kind: List validates and creates every item', async () => {
    const r = await c.kubectl(['apply', '-f', '-'], { input: list });
    assert.deepEqual([r.code, r.stderr, r.stdout], [0, '', 'configmap/l1 created\nconfigmap/l2 created\n']);
  });

  it("kubectl apply still merges a Deployment's containers by name (a strategic merge patch)", async () => {
    await c.k(['apply', '-f', '-'], deployment('nginx:1'));
    // another writer adds an env var inside the side container
    await c.k([
      'patch',
      'deployment/merged',
      '-n',
      'default',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"side","env":[{"name":"ADDED","value":"yes"}]}]}}}}',
    ]);
    await c.k(['apply', '-f', '-'], deployment('nginx:2'));
    const d = JSON.parse(await c.k(['get', 'deployment/merged', '-n', 'default', '-o', 'json']));
    const byName = Object.fromEntries(d.spec.template.spec.containers.map((x: any) => [x.name, x]));
    assert.equal(byName.main.image, 'nginx:2');
    assert.deepEqual(byName.side.env, [{ name: 'ADDED', value: 'yes' }], 'a merge patch replaced the containers');
  });
});
