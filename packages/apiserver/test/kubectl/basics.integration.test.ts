// The real kubectl 1.32 against the embedded API server: everything a user does day to day.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { KUBECTL, startTestCluster, type TestCluster } from '../../src/testing/index.ts';

const widgetCrd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, shortNames: [wd], categories: [all] }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      additionalPrinterColumns:
        - { name: Size, type: integer, jsonPath: .spec.size }
        - { name: Color, type: string, jsonPath: .spec.color }
        - { name: Age, type: date, jsonPath: .metadata.creationTimestamp }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.size <= 10 || self.color == 'gold'"
                  message: "only gold widgets may be larger than 10"
              properties:
                size: { type: integer, minimum: 0, default: 1 }
                color: { type: string, enum: [red, blue, gold] }
                tags: { type: array, items: { type: string }, x-kubernetes-list-type: set }
            status:
              type: object
              properties:
                conditions:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
                  items:
                    type: object
                    required: [type, status]
                    properties:
                      type: { type: string }
                      status: { type: string }
                      reason: { type: string }
`;

const deployment = (replicas: number, image = 'nginx:1.27') => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: { app: web }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: ${image}
          env: [{ name: A, value: "1" }]
          ports: [{ containerPort: 80 }]
`;

describe('kubectl against the embedded API server', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  it('reports its version and lists the system namespaces', async () => {
    const v = JSON.parse(await c.k(['version', '-o', 'json']));
    assert.equal(v.serverVersion.minor, '32');
    const out = await c.k(['get', 'namespaces']);
    for (const ns of ['default', 'kube-system', 'kube-public']) assert.match(out, new RegExp(`^${ns}\\s+Active`, 'm'));
    assert.match(out, /^NAME\s+STATUS\s+AGE/m);
  });

  it('applies client-side, re-applies with a change, and shows the Deployment with printer columns', async () => {
    const out = await c.k(['apply', '-f', '-'], deployment(2));
    assert.match(out, /deployment.apps\/web created/);
    const again = await c.k(['apply', '-f', '-'], deployment(3));
    assert.match(again, /deployment.apps\/web configured/);
    const unchanged = await c.k(['apply', '-f', '-'], deployment(3));
    assert.match(unchanged, /deployment.apps\/web unchanged/);
    const obj = JSON.parse(await c.k(['get', 'deploy', 'web', '-o', 'json']));
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.metadata.generation, 2);
    assert.equal(obj.spec.strategy.type, 'RollingUpdate', 'defaults applied');
    assert.ok(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    const table = await c.k(['get', 'deployments']);
    assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/m);
    const wide = await c.k(['get', 'deploy', '-o', 'wide']);
    assert.match(wide, /CONTAINERS\s+IMAGES\s+SELECTOR/);
    assert.match(wide, /nginx:1\.27/);
  });

  it('server-side apply: conflict with another manager, then --force-conflicts', async () => {
    const cm = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: ssa, namespace: default }\ndata: { key: "${v}" }\n`;
    await c.k(['apply', '--server-side', '--field-manager', 'alice', '-f', '-'], cm('a'));
    const conflict = await c.kubectl(['apply', '--server-side', '--field-manager', 'bob', '-f', '-'], {
      input: cm('b'),
    });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /conflict/i);
    assert.match(conflict.stderr, /alice/);
    assert.match(conflict.stderr, /\.data\.key/);
    await c.k(['apply', '--server-side', '--field-manager', 'bob', '--force-conflicts', '-f', '-'], cm('b'));
    const obj = JSON.parse(await c.k(['get', 'cm', 'ssa', '-o', 'json', '--show-managed-fields']));
    assert.equal(obj.data.key, 'b');
    const managers = obj.metadata.managedFields.map((m: { manager: string }) => m.manager);
    assert.ok(managers.includes('bob'));
  });

  it('gets yaml, json and jsonpath', async () => {
    const y = parseYaml(await c.k(['get', 'deploy', 'web', '-o', 'yaml']));
    assert.equal(y.kind, 'Deployment');
    assert.equal(y.metadata.managedFields, undefined, 'kubectl hides managedFields by default');
    const jp = await c.k([
      'get',
      'deploy',
      'web',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image} {.metadata.labels.app}',
    ]);
    assert.equal(jp, 'nginx:1.27 web');
  });

  it('patches with merge, json and strategic patches', async () => {
    await c.k(['patch', 'deploy', 'web', '--type', 'merge', '-p', '{"metadata":{"labels":{"tier":"front"}}}']);
    await c.k([
      'patch',
      'deploy',
      'web',
      '--type',
      'json',
      '-p',
      '[{"op":"replace","path":"/spec/replicas","value":4}]',
    ]);
    // strategic: merges the env list by name instead of replacing it
    await c.k([
      'patch',
      'deploy',
      'web',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"B","value":"2"}]}]}}}}',
    ]);
    const obj = JSON.parse(await c.k(['get', 'deploy', 'web', '-o', 'json']));
    assert.equal(obj.metadata.labels.tier, 'front');
    assert.equal(obj.spec.replicas, 4);
    const env = obj.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name).sort();
    assert.deepEqual(env, ['A', 'B']);
  });

  it('labels, annotates, scales and deletes', async () => {
    await c.k(['label', 'deploy', 'web', 'env=prod']);
    await c.k(['annotate', 'deploy', 'web', 'note=hello']);
    const sel = await c.k(['get', 'deploy', '-l', 'env=prod', '-o', 'name']);
    assert.equal(sel.trim(), 'deployment.apps/web');
    const none = await c.k(['get', 'deploy', '-l', 'env in (dev,test)', '-o', 'name']);
    assert.equal(none.trim(), '');
    await c.k(['scale', 'deploy', 'web', '--replicas=1']);
    assert.equal(await c.k(['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas}']), '1');
    const del = await c.k(['delete', 'deploy', 'web']);
    assert.match(del, /deployment.apps "web" deleted/);
    const gone = await c.kubectl(['get', 'deploy', 'web']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /Error from server \(NotFound\): deployments.apps "web" not found/);
  });

  it('installs a CRD, applies custom resources with defaults, printer columns and a CEL rule', async () => {
    await c.k(['apply', '-f', '-'], widgetCrd);
    await c.k(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=10s']);
    await c.k(
      ['apply', '-f', '-'],
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w1, namespace: default }\nspec: { color: red }\n',
    );
    const obj = JSON.parse(await c.k(['get', 'widget', 'w1', '-o', 'json']));
    assert.equal(obj.spec.size, 1, 'default applied');
    const table = await c.k(['get', 'wd']);
    assert.match(table, /^NAME\s+SIZE\s+COLOR\s+AGE/m);
    assert.match(table, /^w1\s+1\s+red\s+/m);
    const bad = await c.kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w2, namespace: default }\nspec: { color: red, size: 20 }\n',
    });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /only gold widgets may be larger than 10/);
    const badEnum = await c.kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w3, namespace: default }\nspec: { color: green }\n',
    });
    assert.notEqual(badEnum.code, 0);
    assert.match(badEnum.stderr, /spec\.color: Unsupported value: "green"/);
    const unknown = await c.kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w4, namespace: default }\nspec: { colour: red }\n',
    });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /unknown field "spec.colour"/);
  });

  it('waits for a condition written to the status subresource, and describes the object', async () => {
    const waiting = spawnKubectl(c, ['wait', '--for=condition=Ready', 'widget/w1', '--timeout=20s']);
    await new Promise((r) => setTimeout(r, 500));
    await c.k([
      'patch',
      'widget',
      'w1',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"Done"}]}}',
    ]);
    const r = await waiting;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /widget.example.com\/w1 condition met/);
    const described = await c.k(['describe', 'widget', 'w1']);
    assert.match(described, /Name:\s+w1/);
    assert.match(described, /Kind:\s+Widget/);
  });

  it('streams changes with get -w', async () => {
    const watching = spawnKubectl(c, ['get', 'cm', '-w', '--request-timeout=4s'], 4500);
    await new Promise((r) => setTimeout(r, 800));
    await c.k(['create', 'configmap', 'watched', '--from-literal=a=1']);
    const r = await watching;
    assert.match(r.stdout, /^watched\s+1\s+/m);
  });
});

function spawnKubectl(
  c: TestCluster,
  args: string[],
  killAfterMs = 30_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, ['--kubeconfig', c.kubeconfigPath, '--cache-dir', `${c.dir}/cache`, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => child.kill('SIGTERM'), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
