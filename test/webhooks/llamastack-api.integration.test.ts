// LlamaStackDistribution through an API server with kubectl: the CRD with its CEL rules, the conversion
// webhook (v1alpha2 stored, v1alpha1 served; round trips in both directions keep every field) and the
// defaulting webhook that turns a single-object provider section into a list. The webhooks are reached by
// URL, so the same test runs against any backend the test cluster starts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { CustomResourceDefinitions, KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import {
  LLAMASTACK_CONVERSION_PATH,
  LLS_CRD_NAME,
  llamaStackCrd,
  V1ALPHA2_FIELDS_ANNOTATION,
} from '../../src/apis/llamastack/index.ts';
import {
  pointLlamaStackConversion,
  registerLlamaStackConversion,
  registerLlamaStackDefaulting,
  registerLlamaStackValidation,
} from '../../src/controllers/llamastack/webhook.ts';
import { generateCA } from '../../src/webhooks/certs.ts';
import { conversionStanza, startWebhookServer, type WebhookServerHandle } from '../../src/webhooks/index.ts';
import { fullV1Alpha1, fullV1Alpha2 } from '../apis/llamastack/fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'llama';
const SYSTEM = 'modelplane-system';
const CONFIGS = 'llamastack-test-webhooks';

/** the object as a user wrote it: no server-set metadata, no status */
function userView(o: any) {
  const { name, namespace, labels, annotations } = o.metadata;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name, namespace, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: o.spec,
  };
}
const withoutLastApplied = (o: any) => {
  const a = { ...(o.metadata.annotations ?? {}) };
  delete a['kubectl.kubernetes.io/last-applied-configuration'];
  return {
    ...o,
    metadata: { ...o.metadata, ...(Object.keys(a).length ? { annotations: a } : { annotations: undefined }) },
  };
};
const clean = (o: any) => JSON.parse(JSON.stringify(userView(withoutLastApplied(o))));

describe('LlamaStackDistribution on the API server', () => {
  let c: TestCluster;
  let client: KubeClient;
  let hooks: WebhookServerHandle;
  const get = async (version: string, name: string) =>
    JSON.parse(await c.k(['get', `llamastackdistributions.${version}.llamastack.io`, name, '-n', NS, '-o', 'json']));

  before(async () => {
    c = await startTestCluster();
    client = await KubeClient.create(c.kubeconfig, { fieldManager: 'llamastack-test' });
    await c.k(['create', 'namespace', SYSTEM]);
    await c.k(['create', 'namespace', NS]);
    hooks = await startWebhookServer({
      client,
      port: 0,
      host: '127.0.0.1',
      certSecret: { name: 'llamastack-test-cert', namespace: SYSTEM },
      service: { name: 'llamastack-test-webhooks', namespace: SYSTEM },
      webhookConfigurations: [CONFIGS],
      logger: new Logger({}, 'silent'),
    });
    registerLlamaStackConversion(hooks);
    registerLlamaStackDefaulting(hooks);
    registerLlamaStackValidation(hooks, client, SYSTEM);
    // what the fixtures reference, so the validating webhook lets them in
    for (const [secret, key] of [
      ['vllm-creds', 'token'],
      ['brave', 'key'],
      ['redis', 'pw'],
      ['pg', 'dsn'],
    ]) {
      await c.k(['create', 'secret', 'generic', secret!, '-n', NS, `--from-literal=${key}=x`]);
    }
    const cert = (await generateCA({ commonName: 'test-ca', lifetimeMs: 3_600_000 })).certPem;
    await c.k(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'my-config', namespace: NS },
            data: { 'config.yaml': 'version: 2\napis: []\nproviders: {}\n' },
          },
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'ca', namespace: NS },
            data: { 'ca.crt': cert, 'a.crt': cert, 'b.crt': cert },
          },
        ],
      }),
    );
    await c.k(
      ['apply', '-f', '-'],
      JSON.stringify(llamaStackCrd(conversionStanza(LLAMASTACK_CONVERSION_PATH, { url: hooks.url }))),
    );
    await c.k(
      ['apply', '-f', '-'],
      hooks
        .configurations(CONFIGS, { target: { url: hooks.url } })
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    await waitFor('conversion caBundle injected', async () => {
      const crd = await client.get(CustomResourceDefinitions, LLS_CRD_NAME);
      return (crd.spec as any).conversion?.webhook?.clientConfig?.caBundle === hooks.caBundle() || undefined;
    });
    await c.k(['wait', '--for=condition=Established', `crd/${LLS_CRD_NAME}`, '--timeout=20s']);
  });
  after(async () => {
    await hooks?.close();
    client?.close();
    await c?.stop();
  });

  it('v1alpha2 → v1alpha1 → v1alpha2 through kubectl keeps every field', async () => {
    const original = fullV1Alpha2('round-2', NS);
    await c.k(['create', '-f', '-'], JSON.stringify(original));
    const asV1 = await get('v1alpha1', 'round-2');
    assert.equal(asV1.apiVersion, 'llamastack.io/v1alpha1');
    assert.ok(asV1.metadata.annotations[V1ALPHA2_FIELDS_ANNOTATION], 'the v1alpha2-only fields ride in the annotation');
    assert.equal(asV1.spec.server.containerSpec.port, 9090);
    // write the v1alpha1 form back as a user would (replace), then read the stored v1alpha2 object
    await c.k(['replace', '-f', '-'], JSON.stringify(asV1));
    const back = await get('v1alpha2', 'round-2');
    assert.deepEqual(clean(back), clean(original));
  });

  it('v1alpha1 → v1alpha2 → v1alpha1 through kubectl keeps every field', async () => {
    const original = fullV1Alpha1('round-1', NS);
    await c.k(['apply', '-f', '-'], JSON.stringify(original));
    const stored = await get('v1alpha2', 'round-1');
    assert.equal(stored.spec.networking.port, 8322);
    assert.deepEqual(stored.spec.overrideConfig, { configMapName: 'my-config', configMapNamespace: 'llama' });
    await c.k(['replace', '-f', '-'], JSON.stringify(stored));
    assert.deepEqual(clean(await get('v1alpha1', 'round-1')), clean(original));
  });

  it('prints the v1alpha2 columns and answers to the short name', async () => {
    const out = await c.k(['get', 'llsd', 'round-2', '-n', NS]);
    assert.match(out.split('\n')[0]!, /^NAME\s+PHASE\s+PROVIDERS\s+AVAILABLE\s+AGE$/);
    const wide = await c.k(['get', 'llsd', 'round-2', '-n', NS, '-o', 'wide']);
    assert.match(wide.split('\n')[0]!, /^NAME\s+PHASE\s+DISTRIBUTION\s+CONFIG\s+PROVIDERS\s+AVAILABLE\s+AGE$/);
  });

  it('stores a provider section written as one object as a one-element list', async () => {
    const yaml = `apiVersion: llamastack.io/v1alpha2
kind: LlamaStackDistribution
metadata: { name: single, namespace: ${NS} }
spec:
  distribution: { name: remote-vllm }
  providers:
    inference: { provider: vllm, endpoint: "http://vllm:8000/v1", settings: { apiKey: { name: not-a-secret, key: k } } }
`;
    await c.k(['create', '-f', '-'], yaml);
    const stored = await get('v1alpha2', 'single');
    assert.deepEqual(stored.spec.providers.inference, [
      { provider: 'vllm', endpoint: 'http://vllm:8000/v1', settings: { apiKey: { name: 'not-a-secret', key: 'k' } } },
    ]);
  });

  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'a Secret that does not exist (validating webhook)',
      {
        distribution: { name: 'remote-vllm' },
        providers: {
          inference: [{ provider: 'vllm', endpoint: 'http://x', apiKey: { name: 'missing', key: 'token' } }],
        },
      },
      /admission webhook "vllamastackdistribution.llamastack.io" denied the request: Secret "missing" not found in namespace "llama". Referenced by: spec.providers.inference\[0\].apiKey/,
    ],
    [
      'an unknown distribution (validating webhook)',
      { distribution: { name: 'nope' } },
      /Unknown distribution "nope". Available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter/,
    ],
    [
      'a model naming a provider the config will not have (validating webhook)',
      { distribution: { name: 'remote-vllm' }, resources: { models: [{ name: 'm', provider: 'ghost' }] } },
      /spec.resources.models\[0\].provider: "ghost" is not an inference provider/,
    ],
    [
      'a misspelt provider field (validating webhook)',
      { distribution: { name: 'remote-vllm' }, providers: { inference: [{ provider: 'vllm', endpiont: 'http://x' }] } },
      /spec.providers.inference\[0\].endpiont: unknown field/,
    ],
    [
      'both name and image',
      { distribution: { name: 'starter', image: 'x' } },
      /distribution: set exactly one of name and image/,
    ],
    ['neither name nor image', { distribution: {} }, /distribution: set exactly one of name and image/],
    [
      'two providers without ids',
      { distribution: { name: 'starter' }, providers: { inference: [{ provider: 'vllm' }, { provider: 'ollama' }] } },
      /providers.inference: every provider needs an id/,
    ],
    [
      'the same id in two provider types',
      {
        distribution: { name: 'starter' },
        providers: { inference: [{ id: 'x', provider: 'vllm' }], safety: [{ id: 'x', provider: 'llama-guard' }] },
      },
      /provider ids \(id, or provider when id is unset\) must be unique across all provider types/,
    ],
    [
      'overrideConfig with providers',
      {
        distribution: { name: 'starter' },
        overrideConfig: { configMapName: 'c' },
        providers: { inference: [{ provider: 'vllm' }] },
      },
      /overrideConfig cannot be combined with providers/,
    ],
    [
      'redis without endpoint',
      { distribution: { name: 'starter' }, storage: { kv: { type: 'redis' } } },
      /storage.kv: type redis requires endpoint/,
    ],
    [
      'postgres without connectionString',
      { distribution: { name: 'starter' }, storage: { sql: { type: 'postgres' } } },
      /storage.sql: type postgres requires connectionString/,
    ],
    [
      'tls enabled without secretName',
      { distribution: { name: 'starter' }, networking: { tls: { enabled: true } } },
      /networking.tls: enabled requires secretName/,
    ],
    [
      'an API both disabled and configured',
      { distribution: { name: 'starter' }, disabled: ['inference'], providers: { inference: [{ provider: 'vllm' }] } },
      /spec.disabled lists inference while spec.providers.inference configures it/,
    ],
    [
      'endpoint and modelDeploymentRef',
      {
        distribution: { name: 'starter' },
        providers: { inference: [{ provider: 'vllm', endpoint: 'http://x', modelDeploymentRef: { name: 'm' } }] },
      },
      /set at most one of endpoint, modelDeploymentRef and aimServiceRef/,
    ],
  ];
  for (const [what, spec, message] of refused) {
    it(`refuses ${what} at admission, naming the field`, async () => {
      const obj = {
        apiVersion: 'llamastack.io/v1alpha2',
        kind: 'LlamaStackDistribution',
        metadata: { name: 'bad', namespace: NS },
        spec,
      };
      const r = await c.kubectl(['create', '-f', '-'], { input: JSON.stringify(obj) });
      assert.equal(r.code, 1, `${what} was accepted`);
      assert.match(r.stderr, message);
    });
  }

  // last: it points conversion at a Service this test does not serve
  it("points the conversion webhook at the installation's own webhook Service, keeping the injected caBundle", async () => {
    assert.equal(
      await pointLlamaStackConversion(client, { name: 'modelplane-webhook-service', namespace: 'llama-ops' }),
      false,
      'a URL is left alone',
    );
    // as shipped: a Service in the default namespace
    await c.k(
      ['apply', '-f', '-'],
      JSON.stringify(
        llamaStackCrd(
          conversionStanza(LLAMASTACK_CONVERSION_PATH, {
            service: { name: 'modelplane-webhook-service', namespace: 'modelplane-system' },
          }),
        ),
      ),
    );
    assert.equal(
      await pointLlamaStackConversion(client, { name: 'modelplane-webhook-service', namespace: 'llama-ops' }),
      true,
    );
    const crd = await client.get(CustomResourceDefinitions, LLS_CRD_NAME);
    const cc = (crd.spec as any).conversion.webhook.clientConfig;
    assert.deepEqual(cc.service, {
      name: 'modelplane-webhook-service',
      namespace: 'llama-ops',
      path: LLAMASTACK_CONVERSION_PATH,
      port: 443,
    });
    assert.equal(cc.caBundle, hooks.caBundle());
  });
});
