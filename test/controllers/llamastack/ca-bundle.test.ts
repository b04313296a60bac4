// CA bundles (docs/llamastack.md, "What the controller creates"): only a ConfigMap of the object's own namespace, only keys
// that exist, only PEM certificates that parse, all of them merged into the one file SSL_CERT_FILE names;
// refused at admission and reported by the controller otherwise, and the running Deployment kept.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ConfigMap } from '@modelplane/runtime/client';
import type { LlamaStackDistribution } from '../../../src/apis/llamastack/index.ts';
import { mergeCaBundle } from '../../../src/controllers/llamastack/ca-bundle.ts';
import { observe } from '../../../src/controllers/llamastack/observe.ts';
import { planLlamaStack } from '../../../src/controllers/llamastack/plan.ts';
import { validateLlamaStack } from '../../../src/controllers/llamastack/validate.ts';
import { FetchResult } from '../../../src/engine/index.ts';
import { generateCA } from '../../../src/webhooks/certs.ts';

type Json = Record<string, any>;
let certA: string;
let certB: string;
const cm = (data: Record<string, string>, namespace = 'ns'): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'ca', namespace },
  data,
});
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n';

describe('CA bundles', () => {
  before(async () => {
    certA = (await generateCA({ commonName: 'ca-a', lifetimeMs: 3_600_000 })).certPem;
    certB = (await generateCA({ commonName: 'ca-b', lifetimeMs: 3_600_000 })).certPem;
  });

  it('merges the certificates of every named key, in order, skipping non-certificate blocks', () => {
    const out = mergeCaBundle(
      { configMapName: 'ca', configMapKeys: ['one.crt', 'two.crt'] },
      'ns',
      cm({ 'one.crt': `${certA}${KEY}`, 'two.crt': `# corporate root\n${certB}` }),
    );
    assert.ok(out.ok);
    assert.equal(out.certificates, 2);
    assert.equal(out.pem.match(/BEGIN CERTIFICATE/g)?.length, 2);
    assert.ok(out.pem.indexOf(certA.split('\n')[1]!) < out.pem.indexOf(certB.split('\n')[1]!));
    assert.doesNotMatch(out.pem, /PRIVATE KEY/);
  });

  const refused: Array<[string, () => ReturnType<typeof mergeCaBundle>, string, RegExp]> = [
    [
      'another namespace',
      () =>
        mergeCaBundle(
          { configMapName: 'ca', configMapNamespace: 'other' },
          'ns',
          cm({ 'ca-bundle.crt': certA }, 'other'),
        ),
      'spec.networking.tls.caBundle.configMapNamespace',
      /other is not the object's namespace ns/,
    ],
    [
      'a key that does not exist',
      () =>
        mergeCaBundle({ configMapName: 'ca', configMapKeys: ['missing.crt'] }, 'ns', cm({ 'ca-bundle.crt': certA })),
      'spec.networking.tls.caBundle.configMapKeys',
      /key "missing.crt" of ConfigMap ns\/ca does not exist/,
    ],
    [
      'the default key missing',
      () => mergeCaBundle({ configMapName: 'ca' }, 'ns', cm({ 'other.crt': certA })),
      'spec.networking.tls.caBundle.configMapKeys',
      /key "ca-bundle.crt"/,
    ],
    [
      'a certificate that does not parse',
      () =>
        mergeCaBundle(
          { configMapName: 'ca' },
          'ns',
          cm({ 'ca-bundle.crt': `${certA}-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n` }),
        ),
      'spec.networking.tls.caBundle',
      /certificate 2 does not parse/,
    ],
    [
      'text that holds no certificate',
      () => mergeCaBundle({ configMapName: 'ca' }, 'ns', cm({ 'ca-bundle.crt': 'hello' })),
      'spec.networking.tls.caBundle',
      /holds no PEM certificate/,
    ],
  ];
  for (const [what, run, field, message] of refused)
    it(`refuses ${what}, naming the field`, () => {
      const out = run();
      assert.equal(out.ok, false);
      if (out.ok) return;
      assert.equal(out.field, field);
      assert.match(out.message, message);
    });

  it('a whitespace-only key is an empty, valid bundle', () => {
    const out = mergeCaBundle({ configMapName: 'ca' }, 'ns', cm({ 'ca-bundle.crt': '  \n' }));
    assert.deepEqual(out, { ok: true, pem: '', certificates: 0 });
  });

  it('the webhook refuses another namespace without reading it, and a missing key', async () => {
    const reads: string[] = [];
    const lookups = {
      secretKeys: async () => [],
      configMapExists: async () => true,
      configMap: async (ns: string, name: string) => {
        reads.push(`${ns}/${name}`);
        return cm({ 'ca-bundle.crt': certA }, ns);
      },
    };
    const object = (caBundle: Json) =>
      ({
        apiVersion: 'llamastack.io/v1alpha2',
        kind: 'LlamaStackDistribution',
        metadata: { name: 'x', namespace: 'ns' },
        spec: { distribution: { name: 'starter' }, networking: { tls: { caBundle } } },
      }) as LlamaStackDistribution;
    const other = await validateLlamaStack(object({ configMapName: 'ca', configMapNamespace: 'kube-system' }), lookups);
    assert.equal(other.errors?.[0]?.field, 'spec.networking.tls.caBundle.configMapNamespace');
    assert.deepEqual(reads, [], 'nothing of another namespace was read');
    const key = await validateLlamaStack(object({ configMapName: 'ca', configMapKeys: ['nope.crt'] }), lookups);
    assert.match(key.errors?.[0]?.message ?? '', /key "nope.crt" of ConfigMap ns\/ca does not exist/);
    const ok = await validateLlamaStack(object({ configMapName: 'ca' }), lookups);
    assert.deepEqual(ok.errors, []);
  });

  it('the Deployment mounts the merged bundle of <cr>-ca-bundle and points SSL_CERT_FILE at it; a bad bundle plans nothing', () => {
    const object = {
      apiVersion: 'llamastack.io/v1alpha2',
      kind: 'LlamaStackDistribution',
      metadata: { name: 'x', namespace: 'ns', uid: 'u' },
      spec: {
        distribution: { name: 'starter' },
        networking: { tls: { caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] } } },
      },
    } as LlamaStackDistribution;
    const missing = (kind: string) => FetchResult.notFound<any>({ kind, name: 'n' });
    const fetched = (data: Record<string, string>) => ({
      operatorConfig: missing('ConfigMap'),
      caBundle: FetchResult.of(cm(data)),
      secrets: new Map(),
      refs: [],
      deployment: missing('Deployment'),
      service: missing('Service'),
      serviceAccount: missing('ServiceAccount'),
      pvc: missing('PersistentVolumeClaim'),
      pdb: missing('PodDisruptionBudget'),
      hpa: missing('HorizontalPodAutoscaler'),
      networkPolicy: missing('NetworkPolicy'),
      ingress: missing('Ingress'),
      configMaps: FetchResult.of<ConfigMap[]>([]),
      replicaSets: FetchResult.of([]),
      caBundleConfigMap: missing('ConfigMap'),
    });
    const plan = planLlamaStack(object, observe(object, fetched({ 'a.crt': certA, 'b.crt': certB })), 'sys');
    const bundle = plan.applies.find((a) => a.object.metadata.name === 'x-ca-bundle')!.object as ConfigMap;
    assert.equal(bundle.data!['ca-bundle.crt']!.match(/BEGIN CERTIFICATE/g)?.length, 2);
    const d = plan.applies.find((a) => a.object.kind === 'Deployment')!.object as Json;
    const pod = d.spec.template.spec;
    assert.deepEqual(pod.volumes.find((v: Json) => v.name === 'ca-bundle').configMap, {
      name: 'x-ca-bundle',
      items: [{ key: 'ca-bundle.crt', path: 'ca-bundle.crt' }],
    });
    const env = pod.containers[0].env.find((e: Json) => e.name === 'SSL_CERT_FILE');
    assert.equal(env.value, '/etc/ssl/certs/ca-bundle/ca-bundle.crt');
    assert.match(d.spec.template.metadata.annotations['llamastack.io/ca-bundle-hash'], /^[0-9a-f]{16}$/);
    const bad = planLlamaStack(object, observe(object, fetched({ 'a.crt': certA })), 'sys');
    assert.ok(bad.isEmpty, 'a missing key keeps everything as it is');
  });
});
