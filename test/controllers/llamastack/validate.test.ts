// The LlamaStackDistribution admission checks (docs/llamastack.md, "Validation"): what the server or the
// API server would refuse later is refused when the object is written, with the field and the reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LlamaStackDistribution } from '../../../src/apis/llamastack/index.ts';
import { CONFIGMAP_MAX_BYTES } from '../../../src/controllers/llamastack/config/index.ts';
import { type ExistenceLookups, validateLlamaStack } from '../../../src/controllers/llamastack/validate.ts';

type Json = Record<string, any>;
const lookups: ExistenceLookups = {
  secretKeys: async () => ['token'],
  configMapExists: async () => true,
};
const llsd = (spec: Json): LlamaStackDistribution =>
  ({
    apiVersion: 'llamastack.io/v1alpha2',
    kind: 'LlamaStackDistribution',
    metadata: { name: 'x', namespace: 'ns' },
    spec,
  }) as LlamaStackDistribution;
const withSettings = (bytes: number) =>
  llsd({
    distribution: { name: 'remote-vllm' },
    providers: {
      inference: [
        { id: 'vllm', provider: 'vllm', endpoint: 'http://v:8000/v1', settings: { blob: 'x'.repeat(bytes) } },
      ],
    },
  });

describe('LlamaStackDistribution admission', () => {
  it('refuses a spec whose generated config.yaml is over the ConfigMap limit, naming the size and the limit', async () => {
    const out = await validateLlamaStack(withSettings(CONFIGMAP_MAX_BYTES), lookups);
    assert.equal(out.errors?.length, 1, JSON.stringify(out.errors));
    assert.equal(out.errors![0]!.field, 'spec');
    assert.match(
      out.errors![0]!.message,
      /generated config.yaml is \d+ bytes .* over the 1048576-byte limit of a ConfigMap/,
    );
  });

  it('accepts one just under the limit', async () => {
    const out = await validateLlamaStack(withSettings(CONFIGMAP_MAX_BYTES - 8192), lookups);
    assert.deepEqual(out.errors, []);
  });
});

describe('what Llama Stack 0.7.3 cannot run is refused at admission', () => {
  it('a telemetry provider (0.7.3 has no telemetry API), naming the field and what to do instead', async () => {
    const out = await validateLlamaStack(
      llsd({
        distribution: { name: 'starter' },
        providers: { telemetry: [{ id: 'otel', provider: 'inline::meta-reference' }] },
      }),
      lookups,
    );
    assert.equal(out.errors?.length, 1, JSON.stringify(out.errors));
    assert.equal(out.errors![0]!.field, 'spec.providers.telemetry');
    assert.match(out.errors![0]!.message, /Llama Stack 0\.7\.3 has no telemetry API.*OTEL_EXPORTER_OTLP_ENDPOINT/);
  });
});

describe('an override config is checked against the server it targets at admission', () => {
  it('refuses an override ConfigMap whose config.yaml Llama Stack 0.7.3 would refuse, naming the path', async () => {
    const out = await validateLlamaStack(
      llsd({ distribution: { name: 'starter' }, overrideConfig: { configMapName: 'mine' } }),
      {
        ...lookups,
        configMap: async (ns, name) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: ns },
          data: {
            'config.yaml':
              'version: 2\napis: [inference]\nproviders:\n  inference:\n  - {provider_id: v, provider_type: remote::vllm, config: {max_tokens: lots}}\n',
          },
        }),
      },
    );
    assert.equal(out.errors?.[0]?.field, 'spec.overrideConfig');
    assert.match(
      out.errors![0]!.message,
      /providers\.inference\[0\]\.config\.max_tokens: expected integer, got "lots"/,
    );
  });

  it('refuses provider settings of the wrong type for the server, naming the config path', async () => {
    const out = await validateLlamaStack(
      llsd({
        distribution: { name: 'remote-vllm' },
        providers: {
          inference: [{ id: 'vllm', provider: 'vllm', endpoint: 'http://v:8000/v1', settings: { max_tokens: 'lots' } }],
        },
      }),
      lookups,
    );
    assert.match(
      out.errors?.[0]?.message ?? '',
      /not one Llama Stack 0\.7\.3 accepts: providers\.inference\[0\]\.config\.max_tokens: expected integer, got "lots"/,
    );
  });
});
