// The built-in provider registry and what the providers share: each definition is wired to the shared
// InferenceProviderConfig, display name and upstream kind; every engine/mode a provider advertises and the
// compatibility check accepts actually transforms; label values are always valid.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BUILTIN_PROVIDERS,
  type ModelDeployment,
  type ModelDeploymentSpec,
} from '../../../src/apis/kubeairunway/index.ts';
import {
  derivedEngineFlags,
  renderEngineArgs,
  sanitizeLabelValue,
} from '../../../src/controllers/kubeairunway/providers/common/index.ts';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../../../src/controllers/kubeairunway/providers/index.ts';
import { DEFAULT_PROVIDER_SPECS } from '../../../src/controllers/kubeairunway/selection/default-providers.ts';
import {
  checkProviderCompatibility,
  PROVIDER_DISPLAY_NAMES,
} from '../../../src/controllers/kubeairunway/validation/index.ts';

function md(spec: ModelDeploymentSpec): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'm', namespace: 'n', uid: 'u' },
    spec,
  };
}

const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

describe('BUILTIN_PROVIDER_DEFINITIONS', () => {
  it('holds every built-in provider under its own name', () => {
    assert.deepEqual(Object.keys(BUILTIN_PROVIDER_DEFINITIONS).sort(), [...BUILTIN_PROVIDERS].sort());
    for (const [key, def] of Object.entries(BUILTIN_PROVIDER_DEFINITIONS)) assert.equal(def.name, key);
  });

  const upstream: Record<string, [string, string, string]> = {
    kaito: ['kaito.sh/v1beta1', 'Workspace', 'workspaces'],
    dynamo: ['nvidia.com/v1alpha1', 'DynamoGraphDeployment', 'dynamographdeployments'],
    kuberay: ['ray.io/v1', 'RayService', 'rayservices'],
    aim: ['aim.eai.amd.com/v1alpha1', 'AIMService', 'aimservices'],
    llmd: ['apps/v1', 'Deployment', 'deployments'],
  };
  for (const name of BUILTIN_PROVIDERS) {
    it(`${name}: shared config and display name, its upstream kind, a version`, () => {
      const def = BUILTIN_PROVIDER_DEFINITIONS[name];
      assert.equal(
        def.config,
        DEFAULT_PROVIDER_SPECS[name],
        'the InferenceProviderConfig spec comes from default-providers.ts',
      );
      assert.equal(def.displayName, PROVIDER_DISPLAY_NAMES[name]);
      assert.deepEqual([def.upstream.apiVersion, def.upstream.kind, def.upstreamResource], upstream[name]);
      assert.match(def.version, /^\d+\.\d+\.\d+$/);
    });
  }

  // every engine × serving mode × GPU/CPU a provider's capabilities advertise, as the smallest spec that
  // the provider's compatibility check accepts, must transform into the upstream kind
  for (const name of BUILTIN_PROVIDERS) {
    const def = BUILTIN_PROVIDER_DEFINITIONS[name];
    for (const cap of def.config.capabilities?.engines ?? []) {
      for (const mode of cap.servingModes ?? ['aggregated']) {
        for (const gpu of [cap.gpuSupport ? true : undefined, cap.cpuSupport ? false : undefined].filter(
          (g) => g !== undefined,
        )) {
          it(`${name}: ${cap.name} ${mode} on ${gpu ? 'GPU' : 'CPU'} transforms`, () => {
            const type = cap.gpuTypes?.[0] ?? 'nvidia.com/gpu';
            const spec: ModelDeploymentSpec = {
              model: { id: 'org/model' },
              engine: { type: cap.name },
              serving: { mode },
              ...(mode === 'disaggregated'
                ? { scaling: { prefill: { gpu: { count: 1, type } }, decode: { gpu: { count: 1, type } } } }
                : { resources: gpu ? { gpu: { count: 1, type } } : { cpu: '2' } }),
              ...(cap.name === 'llamacpp' ? { image: 'ghcr.io/me/llama:1' } : {}),
            };
            assert.deepEqual(checkProviderCompatibility(name, spec), []);
            const obj = def.transform(md(spec));
            assert.deepEqual(
              [obj.apiVersion, obj.kind, obj.metadata.name, obj.metadata.namespace],
              [def.upstream.apiVersion, def.upstream.kind, 'm', 'n'],
            );
          });
        }
      }
    }
  }
});

describe('shared provider helpers', () => {
  for (const [input, expected] of [
    ['meta-llama/Llama-3.1-8B-Instruct', 'meta-llama_Llama-3.1-8B-Instruct'],
    ['/models/llama 3:latest/', 'models_llama_3_latest'],
    ['plain', 'plain'],
    ['', ''],
  ] as const) {
    it(`sanitizeLabelValue(${JSON.stringify(input)})`, () => assert.equal(sanitizeLabelValue(input), expected));
  }

  it('long values are cut to 63 characters and stay distinct', () => {
    const a = sanitizeLabelValue(`org/${'x'.repeat(80)}-a`);
    const b = sanitizeLabelValue(`org/${'x'.repeat(80)}-b`);
    for (const v of [a, b]) {
      assert.ok(v.length <= 63, v);
      assert.match(v, LABEL_VALUE);
    }
    assert.notEqual(a, b);
  });

  it('a flag the user passes replaces the derived one, whatever its spelling', () => {
    const m = md({
      model: { id: 'org/m' },
      engine: {
        type: 'vllm',
        contextLength: 4096,
        enablePrefixCaching: true,
        extraArgs: ['--max-model-len=2048', '--no-enable-prefix-caching'],
      },
    });
    assert.deepEqual(renderEngineArgs(m, derivedEngineFlags(m, 'vllm', { gpus: 1 })), [
      '--model',
      'org/m',
      '--max-model-len=2048',
      '--no-enable-prefix-caching',
    ]);
  });
});
