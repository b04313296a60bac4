// The webhook server on the embedded API server, called through a Service reference as kube-apiserver
// calls it: configurations created without a caBundle get it injected, the real kubectl prints the
// validator's denial and warnings, the defaulter's patch is stored, the caBundle comes back after someone
// removes it, a second replica adopts the Secret instead of overwriting it, and a CRD's conversion
// webhook is served and injected too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServiceEndpoints } from '@modelplane/apiserver';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { ConfigMaps, CustomResourceDefinitions, KubeClient, type Secret, Secrets } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { parse as parseYaml } from 'yaml';
import {
  MutatingWebhookConfigurations,
  startWebhookServer,
  ValidatingWebhookConfigurations,
  type WebhookServerHandle,
} from '../../src/webhooks/index.ts';
import { waitFor } from '../helpers/wait.ts';
import { caBundles, presentedCert, registerConfigMapWebhooks, TEST_NAMESPACE } from './fixture.ts';

const SYSTEM = 'modelplane-system';
const SECRET = { name: 'webhook-server-cert', namespace: SYSTEM };
const SERVICE = { name: 'modelplane-webhooks', namespace: SYSTEM };
const silent = new Logger({}, 'silent');

function widgetCrd() {
  const schema = (spec: Record<string, unknown>) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.test.modelplane.io' },
    spec: {
      group: 'test.modelplane.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        { name: 'v1', served: true, storage: false, schema: schema({ size: { type: 'integer' } }) },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } } }),
        },
      ],
      // no caBundle: the server injects it
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { service: { name: SERVICE.name, namespace: SERVICE.namespace, path: '/convert-widget' } },
        },
      },
    },
  };
}

describe('webhook server on the embedded API server', () => {
  let c: TestCluster;
  // where the webhook configurations' Service references lead: the test's own webhook servers
  const endpoints = new ServiceEndpoints();
  let client: KubeClient;
  let hooks: WebhookServerHandle;

  before(async () => {
    c = await startTestCluster({ serviceEndpoints: endpoints });
    client = await KubeClient.create(c.server.kubeconfigYaml(), { fieldManager: 'webhook-test' });
    await c.k(['create', 'namespace', SYSTEM]);
    await c.k(['create', 'namespace', TEST_NAMESPACE]);
    hooks = await startWebhookServer({
      client,
      port: 0,
      host: '127.0.0.1',
      certSecret: SECRET,
      service: SERVICE,
      webhookConfigurations: ['modelplane-test-webhooks'],
      logger: silent,
    });
    registerConfigMapWebhooks(hooks);
    hooks.conversion('/convert-widget', { crds: ['widgets.test.modelplane.io'] }, (obj, desired) => {
      const spec = obj.spec as any;
      return desired.endsWith('/v2')
        ? { ...obj, apiVersion: desired, spec: { dimensions: { size: spec?.size } } }
        : { ...obj, apiVersion: desired, spec: { size: spec?.dimensions?.size } };
    });
    endpoints.register(SERVICE.namespace, SERVICE.name, 443, hooks.url);
    const configs = hooks.configurations('modelplane-test-webhooks');
    assert.ok(
      configs.every((o) => caBundles(o).every((b) => b === undefined)),
      'configurations are built without a caBundle',
    );
    await c.k(['apply', '-f', '-'], configs.map((o) => JSON.stringify(o)).join('\n'));
  });
  after(async () => {
    await hooks?.close();
    client?.close();
    await c?.stop();
  });

  it('creates the certificate Secret and serves a certificate for the Service name that chains to its CA', async () => {
    const secret = await client.get<Secret>(Secrets, SECRET.name, SECRET.namespace);
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    assert.equal(Buffer.from(secret.data!['ca.crt']!, 'base64').toString(), hooks.caPem());
    const served = await presentedCert(hooks.port, hooks.caPem(), 'modelplane-webhooks.modelplane-system.svc');
    assert.equal(served.toString(), Buffer.from(secret.data!['tls.crt']!, 'base64').toString().trim() + '\n');
  });

  it('injects the caBundle into every webhook of the configurations created without one', async () => {
    for (const kind of [MutatingWebhookConfigurations, ValidatingWebhookConfigurations]) {
      const live = await waitFor(`${kind.kind} caBundle`, async () => {
        const o = await client.get(kind, 'modelplane-test-webhooks');
        return caBundles(o).every((b) => b === hooks.caBundle()) ? o : undefined;
      });
      const mine = live.metadata.managedFields?.find((f) => f.manager === 'modelplane-webhook-certs');
      assert.equal(mine?.operation, 'Apply', 'injected by server-side apply under its own field manager');
    }
  });

  it("denies a bad object with the validator's exact message, as kubectl prints it", async () => {
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bad-size, namespace: ${TEST_NAMESPACE} }\ndata: { size: "huge", owner: me }\n`;
    const r = await c.kubectl(['apply', '-f', '-'], { input: yaml });
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Error from server (Forbidden): error when creating "STDIN": admission webhook "vconfigmap.test.modelplane.io" denied the request: data.size must be a whole number, got "huge"\n',
    );
    const two = await c.kubectl(['create', 'configmap', 'two-errors', '-n', TEST_NAMESPACE, '--from-literal=size=11']);
    assert.equal(
      two.stderr,
      'error: failed to create configmap: admission webhook "vconfigmap.test.modelplane.io" denied the request: [data.size 11 exceeds maximum allowed (10), data.owner is required]\n',
    );
  });

  it("prints the validator's warnings and stores the defaulter's patch", async () => {
    const r = await c.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: good, namespace: ${TEST_NAMESPACE} }\ndata: { owner: me, legacy: "1" }\n`,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'Warning: data.legacy is deprecated; use data.modern\n');
    const got = parseYaml(await c.k(['get', 'configmap', 'good', '-n', TEST_NAMESPACE, '-o', 'yaml']));
    assert.deepEqual(got.data, { owner: 'me', legacy: '1', tier: 'standard' });
    assert.equal(got.metadata.labels['test.modelplane.io/defaulted'], 'true');
    // a value the user set is kept: the patch only adds what is missing
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: gold, namespace: ${TEST_NAMESPACE} }\ndata: { owner: me, tier: gold }\n`,
    );
    assert.equal((await client.get(ConfigMaps, 'gold', TEST_NAMESPACE)).data?.tier, 'gold');
  });

  it('puts the caBundle back after an apply removes it', async () => {
    const blanked = hooks
      .configurations('modelplane-test-webhooks')
      .find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    for (const w of blanked.webhooks as any[]) w.clientConfig.caBundle = '';
    // a plain update (what an old Helm or kubectl replace does) takes the field over and empties it
    const live = await client.get(ValidatingWebhookConfigurations, 'modelplane-test-webhooks');
    await client.update({
      ...blanked,
      metadata: { ...blanked.metadata, resourceVersion: live.metadata.resourceVersion },
    });
    await waitFor(
      'caBundle re-injected',
      async () =>
        caBundles(await client.get(ValidatingWebhookConfigurations, 'modelplane-test-webhooks')).every(
          (b) => b === hooks.caBundle(),
        ) || undefined,
    );
    const r = await c.kubectl([
      'create',
      'configmap',
      'after-reset',
      '-n',
      TEST_NAMESPACE,
      '--from-literal=size=x',
      '--from-literal=owner=me',
    ]);
    assert.match(r.stderr, /denied the request: data.size must be a whole number, got "x"/);
  });

  it('a second replica sharing the Secret adopts it and serves the same certificate', async () => {
    const before = await client.get<Secret>(Secrets, SECRET.name, SECRET.namespace);
    const second = await startWebhookServer({
      client,
      port: 0,
      host: '127.0.0.1',
      certSecret: SECRET,
      service: SERVICE,
      webhookConfigurations: ['modelplane-test-webhooks'],
      logger: silent,
    });
    try {
      registerConfigMapWebhooks(second);
      const after = await client.get<Secret>(Secrets, SECRET.name, SECRET.namespace);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'the Secret was not rewritten');
      assert.equal(second.caBundle(), hooks.caBundle());
      assert.equal(second.servingCertPem(), hooks.servingCertPem());
      // kube-apiserver now calls the second replica, with the bundle the first one injected
      endpoints.register(SERVICE.namespace, SERVICE.name, 443, second.url);
      await c.k(['create', 'configmap', 'via-second', '-n', TEST_NAMESPACE, '--from-literal=owner=me']);
      assert.equal((await client.get(ConfigMaps, 'via-second', TEST_NAMESPACE)).data?.tier, 'standard');
      assert.equal(
        (await second.metrics.results.get()).values.find(
          (v) => v.labels.webhook === '/default-configmap' && v.labels.result === 'patched',
        )?.value,
        1,
      );
    } finally {
      endpoints.register(SERVICE.namespace, SERVICE.name, 443, hooks.url);
      await second.close();
    }
  });

  it("injects the CRD's conversion caBundle and converts between versions", async () => {
    await c.k(['apply', '-f', '-'], JSON.stringify(widgetCrd()));
    await waitFor('CRD caBundle', async () => {
      const crd = await client.get(CustomResourceDefinitions, 'widgets.test.modelplane.io');
      return (crd.spec as any).conversion.webhook.clientConfig.caBundle === hooks.caBundle() || undefined;
    });
    await c.k(['wait', '--for=condition=Established', 'crd/widgets.test.modelplane.io', '--timeout=10s']);
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: test.modelplane.io/v1\nkind: Widget\nmetadata: { name: w1, namespace: ${TEST_NAMESPACE}, labels: { a: b } }\nspec: { size: 3 }\n`,
    );
    const v2 = parseYaml(await c.k(['get', 'widgets.v2.test.modelplane.io', 'w1', '-n', TEST_NAMESPACE, '-o', 'yaml']));
    assert.deepEqual(v2.spec, { dimensions: { size: 3 } });
    const v1 = parseYaml(await c.k(['get', 'widgets.v1.test.modelplane.io', 'w1', '-n', TEST_NAMESPACE, '-o', 'yaml']));
    assert.deepEqual(v1.spec, { size: 3 });
    assert.deepEqual(v1.metadata.labels, { a: 'b' });
  });

  it('serves a temporary certificate and reports not ready until the Secret can be written, then recovers', async () => {
    const late = await startWebhookServer({
      client,
      port: 0,
      host: '127.0.0.1',
      certSecret: { name: 'late-cert', namespace: 'late-ns' },
      service: SERVICE,
      logger: silent,
    });
    try {
      assert.match(
        late.notReady() ?? '',
        /^certificate Secret late-ns\/late-cert unavailable: .*namespaces "late-ns" not found/,
      );
      const bootstrapCa = late.caPem();
      await c.k(['create', 'namespace', 'late-ns']);
      await waitFor('the late server to become ready', () => (late.notReady() === undefined ? true : undefined), {
        timeoutMs: 15_000,
      });
      const secret = await client.get<Secret>(Secrets, 'late-cert', 'late-ns');
      assert.equal(Buffer.from(secret.data!['ca.crt']!, 'base64').toString(), late.caPem());
      assert.notEqual(late.caPem(), bootstrapCa);
      const served = await presentedCert(late.port, late.caPem(), 'modelplane-webhooks.modelplane-system.svc');
      assert.equal(served.toString(), late.servingCertPem().trim() + '\n');
    } finally {
      await late.close();
    }
  });

  it('refuses certificate timings that would rotate on every check', async () => {
    const start = (certificates: Record<string, number>) =>
      startWebhookServer({ client, port: 0, certSecret: SECRET, service: SERVICE, certificates, logger: silent });
    await assert.rejects(
      start({ certLifetimeMs: 1000, certRenewBeforeMs: 1000 }),
      /certRenewBeforeMs \(1000\) must be less than certLifetimeMs \(1000\)/,
    );
    await assert.rejects(
      start({ caLifetimeMs: 30_000, certLifetimeMs: 20_000 }),
      /certLifetimeMs \(20000\) must not exceed caRenewBeforeMs \(10000\)/,
    );
    await assert.rejects(start({ certLifetimeMs: -1 }), /certLifetimeMs must be a positive number/);
  });

  it('answers /healthz, /readyz and /metrics', async () => {
    const get = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        import('node:https').then(({ request }) => {
          const req = request(`${hooks.url}${path}`, { ca: hooks.caPem() }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      });
    assert.deepEqual(await get('/healthz'), { status: 200, body: 'ok\n' });
    assert.deepEqual(await get('/readyz'), { status: 200, body: 'ok\n' });
    const metrics = (await get('/metrics')).body;
    assert.match(
      metrics,
      /controller_runtime_webhook_requests_total\{webhook="\/validate-configmap",code="403"\} [1-9]/,
    );
    assert.match(metrics, /modelplane_webhook_results_total\{webhook="\/default-configmap",result="patched"\} [1-9]/);
    assert.match(
      metrics,
      /modelplane_webhook_certificate_expiry_timestamp_seconds\{secret="modelplane-system\/webhook-server-cert",certificate="serving"\}/,
    );
  });
});
