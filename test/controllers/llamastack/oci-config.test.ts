// The OCI-label base config (docs/llamastack.md, "Base config from the image"), pure and with a registry
// in memory and a clock in hand: what a label says, the condition naming the image and the label, and the
// resolver's digest cache (one label read per digest), a tag moving to a new digest, a registry that fails
// (retried with backoff, the last good answer kept) and the bounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RegistryError } from '@modelplane/runtime/registry';
import {
  configFromLabels,
  labelBase,
  labelProblem,
  OCI_CONFIG_LABEL,
  type OciResolution,
  setBaseConfigResolved,
} from '../../../src/controllers/llamastack/oci-config.ts';
import { type DigestRegistry, OciConfigResolver } from '../../../src/controllers/llamastack/oci-resolver.ts';
import { ConditionManager } from '../../../src/engine/index.ts';

const IMAGE = 'quay.io/acme/stack:1.0';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const CONFIG = 'version: 2\ndistro_name: acme\napis: [inference]\nproviders: {inference: []}\n';

describe('what an image label says', () => {
  const cases: Array<[string, Record<string, string>, string | RegExp]> = [
    ['a base64 config', { [OCI_CONFIG_LABEL]: b64(CONFIG) }, 'label'],
    ['base64 wrapped over lines', { [OCI_CONFIG_LABEL]: b64(CONFIG).replace(/(.{20})/g, '$1\n') }, 'label'],
    ['no label', { 'org.opencontainers.image.title': 'x' }, 'no-label'],
    [
      'not base64',
      { [OCI_CONFIG_LABEL]: 'not*base64!' },
      /image quay\.io\/acme\/stack:1\.0: label io\.llamastack\.config\.base64 is not base64/,
    ],
    ['not YAML', { [OCI_CONFIG_LABEL]: b64('a: [b\n') }, /io\.llamastack\.config\.base64 is not valid YAML/],
    ['a list, not a mapping', { [OCI_CONFIG_LABEL]: b64('- a\n') }, /is not a YAML mapping/],
    ['no version', { [OCI_CONFIG_LABEL]: b64('apis: []\n') }, /has no "version" field/],
    [
      'over 50 KB',
      { [OCI_CONFIG_LABEL]: b64(`version: 2\nx: "${'a'.repeat(60_000)}"\n`) },
      /over the 51200 a label config may have/,
    ],
    [
      'a config in a layer',
      { 'io.llamastack.config.layer': 'sha256:ab', 'io.llamastack.config.path': '/c.yaml' },
      /io\.llamastack\.config\.layer names a config inside a layer/,
    ],
  ];
  for (const [name, labels, want] of cases)
    it(name, () => {
      const got = configFromLabels(labels, IMAGE);
      if (typeof want === 'string') assert.equal(got.kind, want);
      else {
        assert.equal(got.kind, 'invalid');
        assert.match((got as { message: string }).message, want);
      }
    });

  it('the config read is the YAML the label holds', () => {
    const got = configFromLabels({ [OCI_CONFIG_LABEL]: b64(CONFIG) }, IMAGE);
    assert.deepEqual(got, {
      kind: 'label',
      config: { version: 2, distro_name: 'acme', apis: ['inference'], providers: { inference: [] } },
    });
  });
});

/** a registry in memory: tags point at digests, each digest has labels; it can fail */
class MemoryRegistry implements DigestRegistry {
  tags = new Map<string, string>();
  labels = new Map<string, Record<string, string>>();
  down = false;
  digestReads = 0;
  labelReads: string[] = [];
  async imageDigest(image: string): Promise<string> {
    this.digestReads++;
    if (this.down)
      throw new RegistryError(
        'Unavailable',
        `GET https://quay.io/v2/acme/stack/manifests/1.0: registry unreachable: ECONNREFUSED`,
      );
    const d = this.tags.get(image);
    if (!d) throw new RegistryError('NotFound', `image ${image}: manifest unknown`);
    return d;
  }
  async imageLabels(image: string): Promise<Record<string, string>> {
    this.labelReads.push(image);
    if (this.down) throw new RegistryError('Unavailable', 'down');
    return this.labels.get(image.split('@')[1]!) ?? {};
  }
  point(image: string, digest: string, labels: Record<string, string>) {
    this.tags.set(image, digest);
    this.labels.set(digest, labels);
  }
}

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;

describe('the OCI config resolver', () => {
  const setup = () => {
    const registry = new MemoryRegistry();
    let now = 0;
    const resolver = new OciConfigResolver(registry, {
      tagRecheckMs: 60_000,
      backoffBaseMs: 5_000,
      backoffMaxMs: 40_000,
      now: () => now,
    });
    return { registry, resolver, at: (t: number) => (now = t) };
  };

  it("reads a digest's labels once; within the recheck not even the tag is asked again", async () => {
    const { registry, resolver, at } = setup();
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: b64(CONFIG) });
    const first = await resolver.resolve(IMAGE);
    assert.equal(first.kind, 'resolved');
    assert.equal(labelBase(first)?.digest, D1);
    assert.deepEqual(registry.labelReads, [`quay.io/acme/stack@${D1}`], 'the labels of the digest resolved');
    at(30_000);
    await resolver.resolve(IMAGE);
    assert.equal(registry.digestReads, 1);
    at(61_000);
    await resolver.resolve(IMAGE);
    assert.equal(registry.digestReads, 2, 'the tag is asked again after the recheck');
    assert.equal(registry.labelReads.length, 1, 'the same digest is not read again');
    assert.equal(resolver.labelReads, 1);
  });

  it('a tag moved to a new digest is re-resolved: the new labels are read and used', async () => {
    const { registry, resolver, at } = setup();
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: b64(CONFIG) });
    await resolver.resolve(IMAGE);
    registry.point(IMAGE, D2, { [OCI_CONFIG_LABEL]: b64(CONFIG.replace('acme', 'acme-2')) });
    at(60_000);
    const moved = await resolver.resolve(IMAGE);
    assert.equal(labelBase(moved)?.digest, D2);
    assert.equal(labelBase(moved)?.config.distro_name, 'acme-2');
    // moving back reads nothing: D1 is still in the cache
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: b64(CONFIG) });
    at(120_000);
    assert.equal(labelBase(await resolver.resolve(IMAGE))?.config.distro_name, 'acme');
    assert.equal(registry.labelReads.length, 2);
  });

  it('a registry down: the last good answer is kept, retried with doubling backoff, then recovers', async () => {
    const { registry, resolver, at } = setup();
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: b64(CONFIG) });
    await resolver.resolve(IMAGE);
    registry.down = true;
    at(60_000);
    const failed = (await resolver.resolve(IMAGE)) as Extract<OciResolution, { kind: 'unavailable' }>;
    assert.equal(failed.kind, 'unavailable');
    assert.equal(failed.retryInMs, 5_000);
    assert.match(failed.message, /ECONNREFUSED/);
    assert.equal(labelBase(failed)?.digest, D1, 'the last good config is still the one used');
    const asked = registry.digestReads;
    at(64_000);
    await resolver.resolve(IMAGE);
    assert.equal(registry.digestReads, asked, 'not asked again during the backoff');
    at(65_000);
    const second = (await resolver.resolve(IMAGE)) as Extract<OciResolution, { kind: 'unavailable' }>;
    assert.equal(second.retryInMs, 10_000, 'the backoff doubles');
    for (let t = 75_000, i = 0; i < 5; i++) {
      at(t);
      const r = (await resolver.resolve(IMAGE)) as Extract<OciResolution, { kind: 'unavailable' }>;
      assert.ok(r.retryInMs <= 40_000, 'and is capped');
      t += r.retryInMs;
    }
    registry.down = false;
    at(1_000_000);
    const back = await resolver.resolve(IMAGE);
    assert.equal(back.kind, 'resolved');
    registry.down = true;
    at(1_060_000);
    assert.equal(
      ((await resolver.resolve(IMAGE)) as { retryInMs: number }).retryInMs,
      5_000,
      'a success resets the backoff',
    );
  });

  it('a registry down with no good answer yet: nothing to keep', async () => {
    const { registry, resolver } = setup();
    registry.down = true;
    const r = await resolver.resolve(IMAGE);
    assert.equal(r.kind, 'unavailable');
    assert.equal(labelBase(r), undefined);
  });

  it('a label that cannot be used is cached by digest like any answer and reported', async () => {
    const { registry, resolver, at } = setup();
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: 'not*base64' });
    const r = await resolver.resolve(IMAGE);
    assert.match(
      labelProblem(r)!,
      /^image quay\.io\/acme\/stack:1\.0: label io\.llamastack\.config\.base64 is not base64/,
    );
    at(60_000);
    await resolver.resolve(IMAGE);
    assert.equal(registry.labelReads.length, 1);
  });

  it('is bounded: at most maxDigests answers and maxImages images are kept', async () => {
    const registry = new MemoryRegistry();
    const resolver = new OciConfigResolver(registry, { tagRecheckMs: 0, maxDigests: 3, maxImages: 3 });
    for (let i = 0; i < 10; i++) registry.point(`r/i${i}:1`, `sha256:${String(i).repeat(64)}`, {});
    for (let i = 0; i < 10; i++) await resolver.resolve(`r/i${i}:1`);
    await resolver.resolve('r/i0:1');
    assert.equal(registry.labelReads.length, 11, 'i0 had been dropped and is read again');
    await resolver.resolve('r/i0:1');
    assert.equal(registry.labelReads.length, 11, 'and is kept now');
  });
});

describe('BaseConfigResolved', () => {
  const resolved = (labels: Record<string, string>): OciResolution => ({
    kind: 'resolved',
    image: IMAGE,
    digest: D1,
    result: configFromLabels(labels, IMAGE),
  });
  const cases: Array<[string, OciResolution | undefined, string | undefined, string | undefined, RegExp | undefined]> =
    [
      ['no registry asked: absent', undefined, 'starter', undefined, undefined],
      [
        'from the label',
        resolved({ [OCI_CONFIG_LABEL]: b64(CONFIG) }),
        undefined,
        'True/OCILabel',
        /^base config from label io\.llamastack\.config\.base64 of image quay\.io\/acme\/stack:1\.0 \(sha256:111111111111\)$/,
      ],
      [
        'no label, a built-in config',
        resolved({}),
        'starter',
        'True/EmbeddedFallback',
        /carries no io\.llamastack\.config\.base64 label: the built-in base config of distribution starter is used/,
      ],
      ['no label, nothing built in', resolved({}), undefined, 'False/NoConfigLabel', /set spec\.overrideConfig/],
      [
        'an unusable label',
        resolved({ [OCI_CONFIG_LABEL]: '***' }),
        'starter',
        'False/InvalidBaseConfigLabel',
        /label io\.llamastack\.config\.base64 is not base64/,
      ],
      [
        'registry down, last good label kept',
        {
          kind: 'unavailable',
          image: IMAGE,
          message: 'ECONNREFUSED',
          retryInMs: 9_500,
          backoffMs: 10_000,
          lastGood: { digest: D1, result: { kind: 'label', config: { version: 2 } } },
        },
        'starter',
        'False/RegistryUnavailable',
        /^image quay\.io\/acme\/stack:1\.0: its registry could not be read \(ECONNREFUSED\); using the last good base config, from label io\.llamastack\.config\.base64 of sha256:111111111111; asked again every 10 s, doubling$/,
      ],
      [
        'registry down, built-in used',
        { kind: 'unavailable', image: IMAGE, message: 'timeout', retryInMs: 1_200, backoffMs: 5_000 },
        'remote-vllm',
        'False/RegistryUnavailable',
        /the built-in base config of distribution remote-vllm is used; asked again every 5 s, doubling/,
      ],
    ];
  for (const [name, oci, fallback, want, message] of cases)
    it(name, () => {
      const cm = new ConditionManager([]);
      setBaseConfigResolved(cm, oci, fallback);
      const c = cm.get('BaseConfigResolved');
      assert.equal(c ? `${c.status}/${c.reason}` : undefined, want);
      if (message) assert.match(c!.message!, message);
    });
});

describe('what a failed registry read is called', () => {
  for (const [cause, reason] of [
    ['NotFound', 'ImageNotFound'],
    ['Auth', 'RegistryAuthFailed'],
    ['Unavailable', 'RegistryUnavailable'],
  ] as const)
    it(`${cause} → ${reason}`, async () => {
      const registry = new MemoryRegistry();
      if (cause === 'Unavailable') registry.down = true;
      else
        registry.imageDigest = async () => {
          throw new RegistryError(cause, `image ${IMAGE}: ${cause}`);
        };
      const r = await new OciConfigResolver(registry, { tagRecheckMs: 1 }).resolve(IMAGE);
      const cm = new ConditionManager([]);
      setBaseConfigResolved(cm, r, 'starter');
      assert.equal(cm.get('BaseConfigResolved')?.reason, reason);
    });
});

describe('objects of one image reconciled at once', () => {
  it('share one registry read', async () => {
    const registry = new MemoryRegistry();
    registry.point(IMAGE, D1, { [OCI_CONFIG_LABEL]: b64(CONFIG) });
    const resolver = new OciConfigResolver(registry, { tagRecheckMs: 60_000 });
    const all = await Promise.all(Array.from({ length: 50 }, () => resolver.resolve(IMAGE)));
    assert.ok(all.every((r) => labelBase(r)?.digest === D1));
    assert.equal(registry.digestReads, 1);
    assert.equal(registry.labelReads.length, 1);
  });
});
