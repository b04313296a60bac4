// The real kubectl against admission and conversion webhooks: a validating webhook's denial printed as
// kubectl prints kube-apiserver's, warnings, a mutating webhook's patch in `get -o yaml`, and a CRD read and
// written through two versions whose layouts differ, converted by a webhook.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { partsOf } from '../../src/handle.ts';
import { startTestCluster, type TestCluster } from '../../src/testing/index.ts';
import { admissionAnswer, allow, jsonPatch, startWebhookServer, type WebhookServer } from '../admission/fixture.ts';

function convertSprocket(obj: any, desired: string): any {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  if (obj.apiVersion.endsWith('/v1') && desired.endsWith('/v2'))
    out.spec = { dimensions: { size: obj.spec?.size }, paint: { color: obj.spec?.color } };
  if (obj.apiVersion.endsWith('/v2') && desired.endsWith('/v1'))
    out.spec = { size: obj.spec?.dimensions?.size, color: obj.spec?.paint?.color };
  return out;
}

describe('kubectl with admission and conversion webhooks', () => {
  let c: TestCluster;
  let hooks: WebhookServer;

  before(async () => {
    c = await startTestCluster();
    hooks = await startWebhookServer({ dnsNames: ['modelplane-webhooks.webhooks.svc'] });
    partsOf(c.server).core.serviceEndpoints.register('webhooks', 'modelplane-webhooks', 443, hooks.url);
    hooks.on('/validate', (r) =>
      r.request.name.startsWith('forbidden-')
        ? admissionAnswer(r, {
            allowed: false,
            status: { code: 403, reason: 'Forbidden', message: 'configmaps named forbidden-* are not allowed' },
          })
        : allow(r, r.request.name.startsWith('warned-') ? { warnings: ['this name is discouraged'] } : {}),
    );
    hooks.on('/mutate', (r) =>
      allow(
        r,
        jsonPatch([
          { op: 'add', path: '/metadata/annotations', value: { 'example.com/mutated-by': 'webhook' } },
          { op: 'add', path: '/data/injected', value: 'true' },
        ]),
      ),
    );
    hooks.on('/convert', (r) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: {
        uid: r.request.uid,
        result: { status: 'Success' },
        convertedObjects: r.request.objects.map((o: any) => convertSprocket(o, r.request.desiredAPIVersion)),
      },
    }));
    await c.k(['create', 'namespace', 'webhooks']);
    await c.k(
      ['apply', '-f', '-'],
      `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: { name: names }
webhooks:
  - name: names.example.com
    clientConfig:
      service: { namespace: webhooks, name: modelplane-webhooks, path: /validate }
      caBundle: ${hooks.caBundle}
    rules: [{ operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps] }]
    namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: default } }
    sideEffects: None
    admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: { name: injector }
webhooks:
  - name: injector.example.com
    clientConfig:
      service: { namespace: webhooks, name: modelplane-webhooks, path: /mutate }
      caBundle: ${hooks.caBundle}
    rules: [{ operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps] }]
    objectSelector: { matchLabels: { inject: "yes" } }
    sideEffects: None
    admissionReviewVersions: [v1]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: sprockets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: sprockets, singular: sprocket, kind: Sprocket }
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service: { namespace: webhooks, name: modelplane-webhooks, path: /convert }
        caBundle: ${hooks.caBundle}
  versions:
    - name: v1
      served: true
      storage: false
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer }, color: { type: string } } }
    - name: v2
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                dimensions: { type: object, properties: { size: { type: integer } } }
                paint: { type: object, properties: { color: { type: string } } }
`,
    );
    await c.k(['wait', '--for=condition=Established', 'crd/sprockets.example.com', '--timeout=10s']);
  });
  after(async () => {
    await c.stop();
    await hooks.close();
  });

  it("prints a validating webhook's denial as kubectl prints kube-apiserver's", async () => {
    const r = await c.kubectl(['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: forbidden-one, namespace: default }\n',
    });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Error from server (Forbidden): error when creating "STDIN": admission webhook "names.example.com" denied the request: configmaps named forbidden-* are not allowed\n',
    );
    const created = await c.kubectl(['create', 'configmap', 'forbidden-two', '-n', 'default']);
    assert.equal(
      created.stderr,
      'error: failed to create configmap: admission webhook "names.example.com" denied the request: configmaps named forbidden-* are not allowed\n',
    );
    // the namespaceSelector keeps other namespaces out of the webhook's reach
    await c.k(['create', 'configmap', 'forbidden-three', '-n', 'webhooks']);
  });

  it('prints the warnings a webhook returns', async () => {
    const r = await c.kubectl(['create', 'configmap', 'warned-one', '-n', 'default']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'Warning: this name is discouraged\n');
    assert.equal(r.stdout, 'configmap/warned-one created\n');
  });

  it("shows a mutating webhook's patch in get -o yaml", async () => {
    await c.k(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: injected, namespace: default, labels: { inject: "yes" } }\ndata: { own: "1" }\n',
    );
    const got = parseYaml(await c.k(['get', 'configmap', 'injected', '-n', 'default', '-o', 'yaml']));
    assert.equal(got.metadata.annotations['example.com/mutated-by'], 'webhook');
    assert.deepEqual(got.data, { own: '1', injected: 'true' });
    const plain = parseYaml(await c.k(['get', 'configmap', 'warned-one', '-n', 'default', '-o', 'yaml']));
    assert.equal(plain.metadata.annotations?.['example.com/mutated-by'], undefined);
  });

  it('reads v1 → writes v2 → reads v1 with every field kept, through the conversion webhook', async () => {
    await c.k(
      ['apply', '-f', '-'],
      'apiVersion: example.com/v1\nkind: Sprocket\nmetadata: { name: s1, namespace: default, labels: { tier: gold } }\nspec: { size: 4, color: red }\n',
    );
    const v1 = parseYaml(await c.k(['get', 'sprockets.v1.example.com', 's1', '-n', 'default', '-o', 'yaml']));
    assert.equal(v1.apiVersion, 'example.com/v1');
    assert.deepEqual(v1.spec, { size: 4, color: 'red' });
    const v2 = parseYaml(await c.k(['get', 'sprockets.v2.example.com', 's1', '-n', 'default', '-o', 'yaml']));
    assert.equal(v2.apiVersion, 'example.com/v2');
    assert.deepEqual(v2.spec, { dimensions: { size: 4 }, paint: { color: 'red' } });

    await c.k(
      ['apply', '-f', '-'],
      'apiVersion: example.com/v2\nkind: Sprocket\nmetadata: { name: s1, namespace: default, labels: { tier: gold } }\nspec: { dimensions: { size: 4 }, paint: { color: blue } }\n',
    );
    const back = parseYaml(await c.k(['get', 'sprockets.v1.example.com', 's1', '-n', 'default', '-o', 'yaml']));
    assert.deepEqual(back.spec, { size: 4, color: 'blue' });
    assert.deepEqual(back.metadata.labels, { tier: 'gold' });
    assert.equal(back.metadata.uid, v1.metadata.uid);
    assert.equal(back.metadata.generation, 2);
    const stored = partsOf(c.server).core.store.get('example.com/sprockets', 'default', 's1')!;
    assert.equal(stored.apiVersion, 'example.com/v2');

    const listed = await c.k([
      'get',
      'sprockets.v1.example.com',
      '-n',
      'default',
      '-o',
      "jsonpath={range .items[*]}{.metadata.name}:{.spec.size}:{.spec.color}{'\\n'}{end}",
    ]);
    assert.equal(listed, 's1:4:blue\n');
  });
});
