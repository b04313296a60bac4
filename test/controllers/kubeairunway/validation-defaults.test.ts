// Defaulting (absent fields only, explicit zeros kept) and the identity/config field split of docs/kubeairunway.md's
// update semantics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  CONFIG_FIELDS,
  defaultModelDeployment,
  IDENTITY_FIELDS,
  identityChanges,
} from '../../../src/controllers/kubeairunway/validation/index.ts';

type Spec = ModelDeployment['spec'];
const md = (spec: Spec, status?: ModelDeployment['status']): ModelDeployment => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'my-llm', namespace: 'ml' },
  spec,
  ...(status ? { status } : {}),
});
const defaulted = (spec: Spec) => defaultModelDeployment(md(spec)).spec;

describe('defaultModelDeployment', () => {
  it('fills the documented defaults into a minimal vLLM deployment', () => {
    assert.deepEqual(defaulted({ model: { id: 'm' }, engine: { type: 'vllm' } }), {
      model: { id: 'm', source: 'huggingface' },
      engine: { type: 'vllm', enablePrefixCaching: true },
      serving: { mode: 'aggregated' },
      scaling: { replicas: 1 },
      resources: { gpu: { count: 1, type: 'nvidia.com/gpu' } },
    });
  });

  const noDefaultGpu: Array<[string, Spec]> = [
    ['llama.cpp', { model: { id: 'm' }, engine: { type: 'llamacpp' } }],
    ['no engine.type', { model: { id: 'm' } }],
    ['a custom image', { model: { source: 'custom' }, engine: { type: 'vllm' }, image: 'mine:1' }],
    ['resources already given', { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { cpu: '4' } }],
    ['disaggregated', { model: { id: 'm' }, engine: { type: 'vllm' }, serving: { mode: 'disaggregated' } }],
  ];
  for (const [name, spec] of noDefaultGpu) {
    it(`adds no GPU for ${name}`, () => assert.equal(defaulted(spec).resources?.gpu, undefined));
  }

  it('never overwrites explicit zeros and falses', () => {
    const spec = defaulted({
      model: { id: 'm', source: 'custom' },
      engine: { type: 'vllm', enablePrefixCaching: false },
      scaling: { replicas: 0 },
      resources: { gpu: { count: 0 } },
    });
    assert.equal(spec.scaling?.replicas, 0);
    assert.equal(spec.engine?.enablePrefixCaching, false);
    assert.deepEqual(spec.resources?.gpu, { count: 0, type: 'nvidia.com/gpu' });
    assert.equal(spec.model.source, 'custom');
  });

  it('defaults disaggregated components (replicas, GPU type) and adds no aggregated replicas', () => {
    const spec = defaulted({
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { gpu: { count: 2 } }, decode: { replicas: 0, gpu: { count: 1, type: 'amd.com/gpu' } } },
    });
    assert.deepEqual(spec.scaling, {
      prefill: { replicas: 1, gpu: { count: 2, type: 'nvidia.com/gpu' } },
      decode: { replicas: 0, gpu: { count: 1, type: 'amd.com/gpu' } },
    });
  });

  it('keeps a chosen GPU type and fills a missing count', () => {
    assert.deepEqual(
      defaulted({ model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2, type: 'amd.com/gpu' } } })
        .resources,
      { gpu: { count: 2, type: 'amd.com/gpu' } },
    );
    assert.deepEqual(
      defaulted({ model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { type: 'amd.com/gpu' } } })
        .resources,
      { gpu: { count: 0, type: 'amd.com/gpu' } },
    );
  });

  it('does not modify its input and is idempotent', () => {
    const input = md({ model: { id: 'm' }, engine: { type: 'vllm' } });
    const before = structuredClone(input);
    const once = defaultModelDeployment(input);
    assert.deepEqual(input, before);
    assert.deepEqual(defaultModelDeployment(once), once);
  });
});

describe('identity and config fields', () => {
  it("lists docs/kubeairunway.md's identity fields and keeps them apart from the config fields", () => {
    assert.deepEqual(
      [...IDENTITY_FIELDS],
      ['model.id', 'model.source', 'engine.type', 'provider.name', 'serving.mode'],
    );
    for (const f of IDENTITY_FIELDS) assert.ok(!(CONFIG_FIELDS as readonly string[]).includes(f), f);
    for (const f of [
      'model.servedName',
      'scaling.replicas',
      'env',
      'resources',
      'engine.args',
      'image',
      'secrets.huggingFaceToken',
      'podTemplate.metadata',
      'nodeSelector',
      'tolerations',
      'provider.overrides',
    ]) {
      assert.ok((CONFIG_FIELDS as readonly string[]).includes(f), f);
    }
  });

  const base: Spec = { model: { id: 'a' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } };
  const cases: Array<[string, Spec, Spec, Array<[string, string, string]>, ModelDeployment['status']?]> = [
    ['model.id', base, { ...base, model: { id: 'b' } }, [['model.id', 'a', 'b']]],
    [
      'model.source (absent = huggingface)',
      base,
      { ...base, model: { id: 'a', source: 'custom' } },
      [['model.source', 'huggingface', 'custom']],
    ],
    [
      'model.source absent vs explicit huggingface is no change',
      base,
      { ...base, model: { id: 'a', source: 'huggingface' } },
      [],
    ],
    ['engine.type', base, { ...base, engine: { type: 'sglang' } }, [['engine.type', 'vllm', 'sglang']]],
    [
      'serving.mode (absent = aggregated)',
      base,
      { ...base, serving: { mode: 'disaggregated' } },
      [['serving.mode', 'aggregated', 'disaggregated']],
    ],
    ['serving.mode explicit aggregated is no change', base, { ...base, serving: { mode: 'aggregated' } }, []],
    [
      'provider.name explicit change',
      { ...base, provider: { name: 'dynamo' } },
      { ...base, provider: { name: 'kuberay' } },
      [['provider.name', 'dynamo', 'kuberay']],
    ],
    [
      'provider.name against the auto-selected provider',
      base,
      { ...base, provider: { name: 'kaito' } },
      [['provider.name', 'dynamo', 'kaito']],
      { provider: { name: 'dynamo' } },
    ],
    [
      'provider.name naming the auto-selected provider is no change',
      base,
      { ...base, provider: { name: 'dynamo' } },
      [],
      { provider: { name: 'dynamo' } },
    ],
    [
      'clearing spec.provider.name is no change (selection is sticky)',
      { ...base, provider: { name: 'dynamo' } },
      base,
      [],
    ],
    [
      'config fields only',
      base,
      {
        ...base,
        model: { id: 'a', servedName: 'x' },
        scaling: { replicas: 4 },
        resources: { gpu: { count: 2 } },
        image: 'i',
        env: [{ name: 'A' }],
      },
      [],
    ],
    [
      'several at once, in table order',
      base,
      { ...base, model: { id: 'b', source: 'custom' }, engine: { type: 'trtllm' } },
      [
        ['model.id', 'a', 'b'],
        ['model.source', 'huggingface', 'custom'],
        ['engine.type', 'vllm', 'trtllm'],
      ],
    ],
  ];
  for (const [name, before, after, expected, status] of cases) {
    it(name, () => {
      const changes = identityChanges(md(before, status), md(after, status));
      assert.deepEqual(
        changes.map((c) => [c.field, c.from, c.to]),
        expected,
      );
    });
  }
});
