// Built-in kinds decode like kube's Go structs: unknown fields are dropped and, per fieldValidation,
// rejected (Strict, kubectl's default), warned about (Warn) or ignored; wrong JSON types are refused with
// Go's unmarshal error. Through the real kubectl 1.32 and raw HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raw, startTestCluster, type TestCluster } from '../../src/testing/index.ts';

const deployment = (name: string, containerExtra: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default }
spec:
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      containers:
        - name: web
          image: nginx:1.27
${containerExtra}
`;
const typo = '          securityContext: { readOnlyRootFileSystem: true, runAsNonRoot: true }';
const TYPO_PATH = 'spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem';

describe('built-in kinds decode like Go structs', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
  });
  after(async () => {
    await c?.stop();
  });

  const getJson = async (args: string[]) => JSON.parse(await c.k([...args, '-o', 'json']));

  it('kubectl apply refuses an unknown field (Strict is the default) with the strict decoding error', async () => {
    const r = await c.kubectl(['apply', '-f', '-'], { input: deployment('strict', typo) });
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /Error from server \(BadRequest\): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.securityContext\.readOnlyRootFileSystem"/,
    );
    assert.notEqual((await c.kubectl(['get', 'deploy', 'strict'])).code, 0, 'nothing was stored');
  });

  it('lists several unknown fields in one error, comma-separated', async () => {
    const r = await c.kubectl(['create', '-f', '-'], {
      input: deployment('several', `${typo}\n          imagePullPolcy: Always`),
    });
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.imagePullPolcy", unknown field "spec\.template\.spec\.containers\[0\]\.securityContext\.readOnlyRootFileSystem"/,
    );
  });

  it('--validate=warn prints the warning and stores the object without the field', async () => {
    const r = await c.kubectl(['apply', '--validate=warn', '-f', '-'], { input: deployment('warned', typo) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`Warning: unknown field "${TYPO_PATH.replace(/[.[\]]/g, '\\$&')}"`));
    const obj = await getJson(['get', 'deploy', 'warned']);
    assert.deepEqual(obj.spec.template.spec.containers[0].securityContext, { runAsNonRoot: true });
  });

  it('--validate=false stores the object without the field and says nothing', async () => {
    const r = await c.kubectl(['apply', '--validate=false', '-f', '-'], { input: deployment('quiet', typo) });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /unknown field/);
    const obj = await getJson(['get', 'deploy', 'quiet']);
    assert.deepEqual(obj.spec.template.spec.containers[0].securityContext, { runAsNonRoot: true });
  });

  it('refuses a value of the wrong JSON type with Go unmarshal error, whatever --validate says', async () => {
    const ports = '          ports: [{ containerPort: "80" }]';
    for (const validate of ['--validate=strict', '--validate=false']) {
      const r = await c.kubectl(['apply', validate, '-f', '-'], { input: deployment('mistyped', ports) });
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort\.spec\.template\.spec\.containers\.ports\.containerPort of type int32/,
      );
    }
    const r = await c.kubectl(['create', 'configmap', 'typed', '--dry-run=client', '-o', 'json']);
    const cm = JSON.parse(r.stdout);
    cm.data = { n: 1 };
    const bad = await c.kubectl(['create', '-f', '-'], { input: JSON.stringify(cm) });
    assert.match(
      bad.stderr,
      /ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap\.data of type string/,
    );
  });

  it('server-side apply with an unknown field under Strict fails and stores nothing', async () => {
    // (kube 1.32 fails typed conversion first: `.spec…readOnlyRootFileSystem: field not declared in schema`)
    const r = await c.kubectl(['apply', '--server-side', '-f', '-'], { input: deployment('ssa', typo) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /readOnlyRootFileSystem/);
    assert.notEqual((await c.kubectl(['get', 'deploy', 'ssa'])).code, 0, 'nothing was stored');
  });

  it('kubectl explain shows nested built-in fields', async () => {
    const sc = await c.k(['explain', 'pod.spec.containers.securityContext']);
    assert.match(sc, /FIELD: securityContext <SecurityContext>/);
    assert.match(sc, /^ {2}readOnlyRootFilesystem\t<boolean>/m);
    const strategy = await c.k(['explain', 'deployment.spec.strategy']);
    assert.match(strategy, /GROUP:\s+apps/);
    assert.match(strategy, /^ {2}rollingUpdate\t<RollingUpdateDeployment>/m);
    assert.match(strategy, /^ {2}type\t<string>/m);
    const ports = await c.k(['explain', 'service.spec.ports']);
    assert.match(ports, /^ {2}port\t<integer> -required-/m);
    assert.match(ports, /^ {2}targetPort\t<IntOrString>/m);
  });

  it('client-side apply of built-ins still merges lists by their keys (strategic merge from compiled-in types)', async () => {
    const withEnv = (env: string) => deployment('merged', `          env: [${env}]`);
    await c.k(['apply', '-f', '-'], withEnv('{ name: A, value: "1" }'));
    await c.k(['set', 'env', 'deploy/merged', 'B=2']);
    await c.k(['apply', '-f', '-'], withEnv('{ name: A, value: "3" }'));
    const obj = await getJson(['get', 'deploy', 'merged']);
    const env = Object.fromEntries(
      obj.spec.template.spec.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    assert.deepEqual(env, { A: '3', B: '2' }, 'B (set by another writer) survives: the patch merged env by name');
  });

  it('unknown fields at the top level, nested, inside lists and inside maps, across kinds (raw HTTP)', async () => {
    const cases: Array<{ path: string; body: Record<string, unknown>; unknown: string[] }> = [
      {
        path: '/api/v1/namespaces/default/services',
        body: {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's1' },
          spec: { ports: [{ port: 80, protocl: 'TCP' }] },
          extra: 1,
        },
        unknown: ['spec.ports[0].protocl', 'extra'],
      },
      {
        path: '/api/v1/namespaces/default/configmaps',
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'c1', labelz: { a: 'b' } },
          data: { a: 'b' },
          datta: {},
        },
        unknown: ['metadata.labelz', 'datta'],
      },
      {
        path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'r1' },
          rules: [
            { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
            { verbs: ['list'], resources: ['pods'], apiGroups: [''], resourceName: ['x'] },
          ],
        },
        unknown: ['rules[1].resourceName'],
      },
      {
        path: '/apis/batch/v1/namespaces/default/jobs',
        body: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'j1' },
          spec: {
            backofLimit: 2,
            template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', envv: [] }] } },
          },
        },
        unknown: ['spec.backofLimit', 'spec.template.spec.containers[0].envv'],
      },
      {
        path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'i1' },
          spec: {
            rules: [
              {
                http: {
                  paths: [
                    {
                      path: '/',
                      pathType: 'Prefix',
                      backend: { service: { name: 's1', port: { number: 80, nmber: 1 } } },
                    },
                  ],
                },
              },
            ],
          },
        },
        unknown: ['spec.rules[0].http.paths[0].backend.service.port.nmber'],
      },
      {
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        body: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'gizmos.example.com' },
          spec: {
            group: 'example.com',
            scope: 'Namespaced',
            names: { plural: 'gizmos', kind: 'Gizmo', singluar: 'gizmo' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: {
                  openAPIV3Schema: {
                    type: 'object',
                    properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimun: 0 } } } },
                  },
                },
              },
            ],
          },
        },
        // properties is a map of schemas: the key is part of the path, as in kube
        unknown: [
          'spec.names.singluar',
          'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.minimun',
        ],
      },
    ];
    for (const { path, body, unknown } of cases) {
      const strict = await raw(c.server, 'POST', `${path}?fieldValidation=Strict`, body);
      assert.equal(strict.status, 400, `${path}: ${strict.text}`);
      const kind = body.kind as string;
      assert.equal(
        strict.json().message,
        `${kind} in version "v1" cannot be handled as a ${kind}: strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`,
      );
      const warn = await raw(c.server, 'POST', `${path}?fieldValidation=Warn&dryRun=All`, body);
      assert.equal(warn.status, 201, warn.text);
      for (const u of unknown)
        assert.ok(
          String(warn.headers.warning).includes(`299 - "unknown field \\"${u}\\""`),
          `${path}: warning for ${u} in ${warn.headers.warning}`,
        );
      const ignored = await raw(c.server, 'POST', `${path}?fieldValidation=Ignore`, body);
      assert.equal(ignored.status, 201, ignored.text);
      assert.equal(ignored.headers.warning, undefined);
      const stored = JSON.stringify(ignored.json());
      for (const u of unknown)
        assert.ok(
          !stored.includes(
            `"${u
              .split('.')
              .at(-1)!
              .replace(/\[\d+\]$/, '')}"`,
          ),
          `${path}: ${u} dropped from ${stored}`,
        );
    }
  });
});
