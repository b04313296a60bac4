// The config generator's properties beyond the golden files: determinism (same input → same bytes and
// hash, whatever the base's key order), secret env names, the embedded distributions and image overrides.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { LlamaStackDistributionSpec } from '../../../src/apis/llamastack/index.ts';
import {
  DISTRIBUTION_NAMES,
  DISTRIBUTIONS,
  deterministicYaml,
  EmbeddedConfigResolver,
  embeddedBaseConfig,
  generateConfig,
  parseImageOverrides,
  resolveImage,
  secretEnvName,
} from '../../../src/controllers/llamastack/config/index.ts';

const spec: LlamaStackDistributionSpec = {
  distribution: { name: 'remote-vllm' },
  providers: {
    inference: [
      { id: 'vllm-primary', provider: 'vllm', endpoint: 'http://vllm:8000/v1', apiKey: { name: 's', key: 'k' } },
    ],
  },
  resources: { models: [{ name: 'llama3' }] },
};

function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .reverse()
        .map((k) => [k, reversedKeys((v as any)[k])]),
    );
  return v;
}

describe('config generator', () => {
  it('is deterministic: the same input twice gives identical YAML and hash, and base key order does not matter', () => {
    const base = embeddedBaseConfig('remote-vllm')!;
    const a = generateConfig({ spec, base, distroName: 'remote-vllm' });
    const b = generateConfig({
      spec: structuredClone(spec),
      base: structuredClone(base) as any,
      distroName: 'remote-vllm',
    });
    assert.equal(a.yaml, b.yaml);
    assert.equal(a.hash, b.hash);
    const c = generateConfig({ spec, base: reversedKeys(base) as any, distroName: 'remote-vllm' });
    assert.equal(c.hash, a.hash);
    assert.match(a.hash, /^[0-9a-f]{64}$/);
    assert.doesNotMatch(a.yaml, /\d{4}-\d{2}-\d{2}T/, 'no timestamps');
  });

  it('writes YAML that parses back to exactly the input, tricky scalars included', () => {
    const tricky = {
      strings: [
        'yes',
        'no',
        'on',
        'null',
        '~',
        '1.0',
        '0x1F',
        '1e3',
        '2026-01-01',
        ' lead',
        'trail ',
        'a: b',
        '- x',
        '#c',
        'x #c',
        '*alias',
        '&anchor',
        '!tag',
        '%dir',
        '@at',
        '`tick`',
        "it's",
        'quote"d',
        'multi\nline',
        '',
        `\${env.X:=y}`,
        'remote::vllm',
        'ünïcode',
        '[a]',
        '{b}',
        '|',
        '>',
        '?',
        '.inf',
        '-.nan',
        'Yes',
        'TRUE',
      ],
      numbers: [0, -1, 1.5, 1e21, 4096],
      bools: [true, false],
      nil: null,
      empty: { map: {}, list: [] },
      nested: [[1, [2]], [], {}, { a: [{ b: { c: [] } }] }],
      'key with space': 1,
      'key:colon': 2,
      '123': 3,
    };
    assert.deepEqual(parseYaml(deterministicYaml(tricky)), tricky);
    for (const name of DISTRIBUTION_NAMES) {
      const base = embeddedBaseConfig(name)!;
      assert.deepEqual(parseYaml(deterministicYaml(base as Record<string, unknown>)), base, name);
    }
  });

  it('a different spec gives a different hash', () => {
    const base = embeddedBaseConfig('remote-vllm')!;
    const other = { ...spec, networking: { port: 9000 } };
    assert.notEqual(
      generateConfig({ spec, base, distroName: 'x' }).hash,
      generateConfig({ spec: other, base, distroName: 'x' }).hash,
    );
  });

  it('never writes a secret value, only environment references', () => {
    const g = generateConfig({ spec, base: embeddedBaseConfig('remote-vllm')!, distroName: 'remote-vllm' });
    assert.match(g.yaml, /api_token: "\$\{env\.LLSD_VLLM_PRIMARY_API_KEY\}"/);
    assert.deepEqual(g.secrets, [
      { env: 'LLSD_VLLM_PRIMARY_API_KEY', secret: 's', key: 'k', field: 'spec.providers.inference[0].apiKey' },
    ]);
  });

  it('names secret variables LLSD_<PROVIDER_ID>_<FIELD>', () => {
    assert.equal(secretEnvName('vllm-primary', 'apiKey'), 'LLSD_VLLM_PRIMARY_API_KEY');
    assert.equal(secretEnvName('pg', 'password'), 'LLSD_PG_PASSWORD');
    assert.equal(secretEnvName('my.store', 'access-key-id'), 'LLSD_MY_STORE_ACCESS_KEY_ID');
  });

  it('embeds a base config for every distribution in distributions.json, and each generates', () => {
    assert.deepEqual(DISTRIBUTION_NAMES, ['meta-reference-gpu', 'postgres-demo', 'remote-vllm', 'starter']);
    for (const name of DISTRIBUTION_NAMES) {
      assert.ok(
        existsSync(new URL(`../../../src/controllers/llamastack/config/distributions/${name}.yaml`, import.meta.url)),
        name,
      );
      const g = generateConfig({ spec: { distribution: { name } }, base: embeddedBaseConfig(name)!, distroName: name });
      assert.equal(g.configVersion, 2, name);
      assert.ok(g.providerCount > 0, name);
    }
    const json = JSON.parse(
      readFileSync(
        new URL('../../../src/controllers/llamastack/config/distributions/distributions.json', import.meta.url),
        'utf8',
      ),
    );
    assert.deepEqual(Object.keys(json).sort(), DISTRIBUTION_NAMES);
  });

  it('resolves images: overrides beat distributions.json, an explicit image is used verbatim, unknown names are listed', () => {
    const { images, skipped } = parseImageOverrides('starter: quay.io/acme/starter:2.0\nremote-vllm: "NOT AN IMAGE"\n');
    assert.deepEqual(images, { starter: 'quay.io/acme/starter:2.0' });
    assert.equal(skipped.length, 1);
    assert.match(skipped[0]!, /image-overrides.remote-vllm: "NOT AN IMAGE" is not an image reference; skipped/);
    assert.deepEqual(resolveImage({ name: 'starter' }, images), {
      ok: true,
      image: 'quay.io/acme/starter:2.0',
      distribution: 'starter',
    });
    assert.deepEqual(resolveImage({ name: 'remote-vllm' }, images), {
      ok: true,
      image: DISTRIBUTIONS['remote-vllm'],
      distribution: 'remote-vllm',
    });
    assert.deepEqual(resolveImage({ image: 'quay.io/me/x:1' }, images), { ok: true, image: 'quay.io/me/x:1' });
    assert.deepEqual(resolveImage({ name: 'nope' }, images), {
      ok: false,
      message:
        'Unknown distribution "nope". Available distributions: meta-reference-gpu, postgres-demo, remote-vllm, starter',
    });
    assert.deepEqual(parseImageOverrides('[1, 2]').images, {});
    assert.match(parseImageOverrides(': : :').skipped[0]!, /image-overrides/);
  });

  it('finds the embedded base for a distribution image, shipped or overridden, and none for an unknown image', () => {
    const r = new EmbeddedConfigResolver({ ...DISTRIBUTIONS, starter: 'quay.io/acme/starter:2.0' });
    assert.equal(r.resolve('quay.io/acme/starter:2.0')?.distribution, 'starter');
    assert.equal(r.resolve(DISTRIBUTIONS['remote-vllm']!)?.distribution, 'remote-vllm');
    assert.equal(r.resolve('quay.io/me/custom:1'), undefined);
  });
});
