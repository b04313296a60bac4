// spec.externalProviders (docs/llamastack.md, "External providers"): merged after generation — appended
// to its API's providers, the API turned on, a generated provider of the same id replaced (and said so),
// an external package's module kept; checked against the server like any other provider unless it names
// its own module.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { LlamaStackDistributionSpec } from '../../../src/apis/llamastack/index.ts';
import { embeddedBaseConfig, generateConfig } from '../../../src/controllers/llamastack/config/index.ts';

type Json = Record<string, any>;
const gen = (spec: Partial<LlamaStackDistributionSpec>) =>
  generateConfig({
    spec: { distribution: { name: 'remote-vllm' }, ...spec } as LlamaStackDistributionSpec,
    base: embeddedBaseConfig('remote-vllm')!,
    distroName: 'remote-vllm',
  });
const inference = [{ id: 'vllm', provider: 'vllm', endpoint: 'http://vllm:8000/v1' }];

describe('external providers', () => {
  it('are appended after the generated ones, with their module, turning their API on', () => {
    const g = gen({
      providers: { inference },
      externalProviders: {
        inference: [
          { providerId: 'mine', providerType: 'remote::mine', module: 'acme_llama', config: { url: 'http://x' } },
        ],
        files: [
          {
            providerId: 'fs',
            providerType: 'inline::localfs',
            config: { storage_dir: '/data', metadata_store: { table_name: 'files', backend: 'sql_default' } },
          },
        ],
      },
    });
    const cfg = parse(g.yaml, { version: '1.1' }) as Json;
    assert.deepEqual(
      cfg.providers.inference.map((p: Json) => p.provider_id),
      ['vllm', 'mine'],
    );
    assert.deepEqual(cfg.providers.inference[1], {
      provider_id: 'mine',
      provider_type: 'remote::mine',
      module: 'acme_llama',
      config: { url: 'http://x' },
    });
    assert.ok(cfg.apis.includes('files'));
    assert.deepEqual(g.replacedByExternal, []);
  });

  it('replace a generated provider of the same id, and say which', () => {
    const g = gen({
      providers: { inference },
      externalProviders: {
        inference: [{ providerId: 'vllm', providerType: 'remote::vllm', config: { base_url: 'http://other:8000/v1' } }],
      },
    });
    const cfg = parse(g.yaml, { version: '1.1' }) as Json;
    assert.deepEqual(cfg.providers.inference, [
      { provider_id: 'vllm', provider_type: 'remote::vllm', config: { base_url: 'http://other:8000/v1' } },
    ]);
    assert.deepEqual(g.replacedByExternal, ['inference/vllm']);
  });

  it('without a module of their own, are checked against the server: an unknown type is refused with its path', () => {
    assert.throws(
      () =>
        gen({
          providers: { inference },
          externalProviders: { inference: [{ providerId: 'typo', providerType: 'remote::vlm' }] },
        }),
      /providers\.inference\[1\]\.provider_type: "remote::vlm" is not a provider of the inference API in Llama Stack 0\.7\.3/,
    );
  });
});
