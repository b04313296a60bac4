// Where config.yaml comes from, decided from an observation (pure): an override ConfigMap that is missing,
// in another namespace, or holds broken YAML is not used, nothing is planned (the running Deployment
// stays), and the object is Failed with a reason and a message naming the ConfigMap and what is wrong.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigMap } from '@modelplane/runtime/client';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { LlamaStackDistribution } from '../../../src/apis/llamastack/index.ts';
import { type LlamaStackFetch, observe } from '../../../src/controllers/llamastack/observe.ts';
import { configSource, planLlamaStack } from '../../../src/controllers/llamastack/plan.ts';
import { llamaStackHealth } from '../../../src/controllers/llamastack/status.ts';
import { FetchResult } from '../../../src/engine/index.ts';

const cr = (spec: Record<string, unknown>): LlamaStackDistribution =>
  ({
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name: 'x', namespace: 'ns', uid: 'u' },
    spec: { distribution: { name: 'starter' }, ...spec },
  }) as LlamaStackDistribution;

const missing = <T>(kind: string) => FetchResult.notFound<T>({ kind, name: 'n', namespace: 'ns' });

function fetched(override?: ConfigMap): LlamaStackFetch {
  return {
    operatorConfig: missing('ConfigMap'),
    ...(override ? { overrideConfig: FetchResult.of(override) } : {}),
    secrets: new Map(),
    refs: [],
    deployment: missing('Deployment'),
    service: missing<KubeObject>('Service'),
    serviceAccount: missing<KubeObject>('ServiceAccount'),
    pvc: missing<KubeObject>('PersistentVolumeClaim'),
    pdb: missing<KubeObject>('PodDisruptionBudget'),
    hpa: missing<KubeObject>('HorizontalPodAutoscaler'),
    networkPolicy: missing<KubeObject>('NetworkPolicy'),
    ingress: missing('Ingress'),
    configMaps: FetchResult.of<ConfigMap[]>([]),
    replicaSets: FetchResult.of([]),
    caBundleConfigMap: missing('ConfigMap'),
  };
}

const overrideCm = (text: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'mine', namespace: 'ns' },
  data: { 'config.yaml': text },
});

describe('the config source of an override ConfigMap', () => {
  const broken: Array<[string, string, RegExp]> = [
    ['unclosed flow mapping', 'version: 2\nproviders: {inference: [\n', /is not valid YAML/],
    ['a key set twice', 'version: 2\nversion: 3\n', /is not valid YAML/],
    ['bad indentation', 'version: 2\n  apis: [x]\n bad: 1\n', /is not valid YAML/],
    ['a list, not a mapping', '- version\n- 2\n', /is not a YAML mapping/],
    ['a scalar', 'just text\n', /is not a YAML mapping/],
    ['empty', '', /is not a YAML mapping/],
    [
      'a config the server refuses (no providers)',
      'version: 2\napis: [inference]\n',
      /is not a config Llama Stack 0\.7\.3 accepts \(providers: required\)/,
    ],
    [
      'an API the server does not have',
      'version: 2\napis: [telemetry]\nproviders: {}\n',
      /apis\[0\]: "telemetry" is not an API of Llama Stack 0\.7\.3/,
    ],
    [
      'a provider type the server does not have',
      'version: 2\napis: [inference]\nproviders:\n  inference:\n  - {provider_id: x, provider_type: remote::nope, config: {}}\n',
      /providers\.inference\[0\]\.provider_type: "remote::nope" is not a provider of the inference API in Llama Stack 0\.7\.3/,
    ],
    [
      "a provider config of the wrong type ('yes' is a boolean to YAML 1.1)",
      'version: 2\napis: [inference]\nproviders:\n  inference:\n  - {provider_id: v, provider_type: remote::vllm, config: {base_url: yes}}\n',
      /providers\.inference\[0\]\.config\.base_url: expected string, got true/,
    ],
  ];
  for (const [what, text, message] of broken) {
    it(`${what}: nothing planned, Config fails with InvalidOverrideConfig naming the ConfigMap`, () => {
      const object = cr({ overrideConfig: { configMapName: 'mine' } });
      const obs = observe(object, fetched(overrideCm(text)));
      const src = configSource(object, obs);
      assert.equal(src.source, undefined);
      assert.equal(src.problemReason, 'InvalidOverrideConfig');
      assert.match(src.problem!, message);
      assert.match(src.problem!, /ConfigMap ns\/mine/);
      assert.ok(planLlamaStack(object, obs, 'sys').isEmpty, 'no write while the override cannot be used');
      const health = llamaStackHealth(object, obs).find((h) => h && h.component === 'Config');
      const error = health ? (health.errors?.[0] as { reason: string; category: string } | undefined) : undefined;
      assert.equal(error?.reason, 'InvalidOverrideConfig');
      assert.equal(error?.category, 'InvalidSpec');
    });
  }

  it('a valid mapping is used, hashed by content', () => {
    const object = cr({ overrideConfig: { configMapName: 'mine' } });
    const src = configSource(
      object,
      observe(object, fetched(overrideCm('version: 2\napis: [inference]\nproviders: {inference: []}\n'))),
    );
    assert.equal(src.problem, undefined);
    assert.equal(src.source?.configMap, 'mine');
    assert.match(src.source!.hash!, /^[0-9a-f]{64}$/);
  });

  it('a ConfigMap of another namespace is refused (the pod would mount its own namespace`s)', () => {
    const object = cr({ overrideConfig: { configMapName: 'mine', configMapNamespace: 'other' } });
    const src = configSource(object, observe(object, fetched(overrideCm('version: 2\n'))));
    assert.equal(src.problemReason, 'InvalidOverrideConfig');
    assert.match(src.problem!, /configMapNamespace: other is not the object's namespace ns/);
  });
});
