// docs/kubeairunway.md's provider-compatibility table (checked by the provider controllers), exact messages, plus
// our aim provider's limits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import { checkProviderCompatibility, requestsGpu } from '../../../src/controllers/kubeairunway/validation/index.ts';

const gpu = (count: number, type?: string) => ({ gpu: { count, ...(type ? { type } : {}) } });
const spec = (
  engine: 'vllm' | 'sglang' | 'trtllm' | 'llamacpp',
  extra: Partial<ModelDeploymentSpec> = {},
): ModelDeploymentSpec => ({
  model: { id: 'm' },
  engine: { type: engine },
  resources: gpu(1),
  ...extra,
});
const DISAGG: Partial<ModelDeploymentSpec> = {
  serving: { mode: 'disaggregated' },
  resources: undefined,
  scaling: { prefill: gpu(2), decode: gpu(1) },
};

describe("docs/kubeairunway.md's provider compatibility table", () => {
  const cases: Array<[string, string, ModelDeploymentSpec, string]> = [
    ['kaito', 'sglang', spec('sglang'), 'KAITO does not support sglang engine'],
    ['kaito', 'trtllm', spec('trtllm'), 'KAITO does not support trtllm engine'],
    ['dynamo', 'llamacpp', spec('llamacpp'), 'Dynamo does not support llamacpp engine'],
    ['kuberay', 'llamacpp', spec('llamacpp'), 'KubeRay does not support llamacpp engine'],
    ['kuberay', 'sglang', spec('sglang'), 'KubeRay does not support sglang engine'],
    ['kuberay', 'trtllm', spec('trtllm'), 'KubeRay does not support trtllm engine'],
    ['dynamo', 'gpu.count 0', spec('vllm', { resources: gpu(0) }), 'Dynamo requires GPU'],
    ['kuberay', 'gpu.count 0', spec('vllm', { resources: { cpu: '8' } }), 'KubeRay requires GPU'],
    ['kaito', 'disaggregated', spec('vllm', DISAGG), 'KAITO does not support disaggregated mode'],
  ];
  for (const [provider, what, s, message] of cases) {
    it(`${provider} + ${what} → "${message}"`, () =>
      assert.deepEqual(checkProviderCompatibility(provider, s), [message]));
  }

  it('replicas: 0 is incompatible with the providers that always run a pod (the webhook may have been down)', () => {
    const zero = spec('vllm', { scaling: { replicas: 0 } });
    for (const [p, who] of [
      ['kaito', 'KAITO'],
      ['kuberay', 'KubeRay'],
    ] as const)
      assert.deepEqual(checkProviderCompatibility(p, zero), [
        `${who} cannot run 0 replicas (it always runs at least one serving pod): set spec.scaling.replicas to 1 or more, or use a provider that runs 0 replicas`,
      ]);
    for (const p of ['dynamo', 'llmd']) assert.deepEqual(checkProviderCompatibility(p, zero), [], p);
  });

  it('accepts what each provider runs', () => {
    assert.deepEqual(checkProviderCompatibility('kaito', spec('vllm')), []);
    assert.deepEqual(
      checkProviderCompatibility('kaito', spec('llamacpp', { resources: { cpu: '4' }, image: 'runner' })),
      [],
    );
    for (const e of ['vllm', 'sglang', 'trtllm'] as const)
      assert.deepEqual(checkProviderCompatibility('dynamo', spec(e)), [], e);
    assert.deepEqual(
      checkProviderCompatibility('dynamo', spec('vllm', DISAGG)),
      [],
      'prefill/decode GPUs count as GPU',
    );
    assert.deepEqual(checkProviderCompatibility('kuberay', spec('vllm', { resources: gpu(2) })), []);
    assert.deepEqual(checkProviderCompatibility('kuberay', spec('vllm', DISAGG)), []);
    assert.deepEqual(
      checkProviderCompatibility('someone-else', spec('llamacpp')),
      [],
      'unknown providers check themselves',
    );
  });

  it('lists every incompatibility, not only the first', () => {
    assert.deepEqual(checkProviderCompatibility('kaito', spec('sglang', DISAGG)), [
      'KAITO does not support sglang engine',
      'KAITO does not support disaggregated mode',
    ]);
    assert.deepEqual(checkProviderCompatibility('kuberay', spec('llamacpp', { resources: { cpu: '2' } })), [
      'KubeRay does not support llamacpp engine',
      'KubeRay requires GPU',
    ]);
  });

  it('KAITO runs llama.cpp only from spec.image (reference)', () => {
    assert.deepEqual(checkProviderCompatibility('kaito', spec('llamacpp', { resources: { cpu: '4' } })), [
      'llamacpp engine requires spec.image to be set',
    ]);
  });
});

describe('aim provider limits', () => {
  it('runs vLLM on AMD GPUs, aggregated', () => {
    assert.deepEqual(checkProviderCompatibility('aim', spec('vllm', { resources: gpu(1, 'amd.com/gpu') })), []);
  });
  it('refuses other engines, CPU, disaggregated and other GPU vendors', () => {
    assert.deepEqual(checkProviderCompatibility('aim', spec('sglang', { resources: gpu(1, 'amd.com/gpu') })), [
      'AIM does not support sglang engine',
    ]);
    assert.deepEqual(checkProviderCompatibility('aim', spec('vllm', { resources: { cpu: '4' } })), [
      'AIM requires GPU',
    ]);
    assert.deepEqual(checkProviderCompatibility('aim', spec('vllm', { resources: gpu(1) })), [
      'AIM requires AMD GPUs (set resources.gpu.type to amd.com/gpu)',
    ]);
    assert.ok(
      checkProviderCompatibility('aim', spec('vllm', DISAGG)).includes('AIM does not support disaggregated mode'),
    );
  });
});

describe('requestsGpu', () => {
  const cases: Array<[string, ModelDeploymentSpec, boolean]> = [
    ['top-level GPU', spec('vllm'), true],
    ['gpu.count 0', spec('vllm', { resources: gpu(0) }), false],
    ['no resources', spec('vllm', { resources: undefined }), false],
    ['disaggregated with component GPUs', spec('vllm', DISAGG), true],
    ['aggregated ignores component GPUs', spec('vllm', { resources: undefined, scaling: { prefill: gpu(1) } }), false],
  ];
  for (const [name, s, expected] of cases) it(name, () => assert.equal(requestsGpu(s), expected));
});
