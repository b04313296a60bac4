// The model source's pure parts as tables: filter parsing, repository and tag selection (wildcards,
// excludes, exact tags, semver constraints), maxModels, append-only planning, health and status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  catalogKey,
  catalogsToList,
  type ExistingModels,
  evaluateSource,
  type Listed,
  parseSourceFilters,
  type RegistryListing,
  repositoriesToList,
} from '../../../src/controllers/aim/model-source/evaluate.ts';
import { compareTags, matchesPattern, parseFilter } from '../../../src/controllers/aim/model-source/filters.ts';
import {
  clusterModelFor,
  clusterModelName,
  decorateModelSourceStatus,
  filtersHealth,
  MODEL_SOURCE_LABEL,
  type ModelSourceStatus,
  planModelSource,
} from '../../../src/controllers/aim/model-source/plan.ts';
import type { AIMClusterModelSource } from '../../../src/controllers/aim/shared/kinds.ts';
import { ConditionManager } from '../../../src/engine/index.ts';

type Spec = AIMClusterModelSource['spec'];
const source = (spec: Partial<Spec>, name = 'amd'): AIMClusterModelSource => ({
  apiVersion: 'aim.eai.amd.com/v1alpha1',
  kind: 'AIMClusterModelSource',
  metadata: { name, uid: 'u1', generation: 1 },
  spec: { registry: 'docker.io', syncInterval: '1h', maxModels: 100, filters: [], ...spec } as Spec,
});

const ok = <T>(value: T): Listed<T> => ({ ok: true, value });
const REGISTRY: RegistryListing = {
  catalogs: Object.fromEntries(
    ['', 'amd/aim-', 'amd/aim-q', 'amd/aim-qwen', 'amd/aim-o'].map((prefix) => [
      catalogKey('docker.io', prefix),
      ok(
        ['amd/aim-qwen', 'amd/aim-llama', 'amd/aim-old', 'other/tool', 'amd/aim-team/nested'].filter((r) =>
          r.startsWith(prefix),
        ),
      ),
    ]),
  ),
  tags: {
    'docker.io/amd/aim-qwen': ok(['0.8.4', '0.8.5', 'latest', 'v0.9.0']),
    'docker.io/amd/aim-llama': ok(['0.8.3', '1.0.0-rc.1', '1.0.0']),
    'docker.io/amd/aim-old': ok(['0.1.0']),
    'docker.io/other/tool': ok(['1.0.0']),
    'docker.io/amd/aim-team/nested': ok(['0.9.0']),
  },
};
const none: ExistingModels = { own: [], foreignImages: new Set() };
const uris = (ev: ReturnType<typeof evaluateSource>, key: 'create' | 'keep' | 'offered' = 'create') =>
  ev[key].map((i) => `${i.repository}:${i.tag}`);

describe('model source: filter parsing', () => {
  const cases: Array<{ image: string; want: Partial<ReturnType<typeof parseFilter>> | RegExp }> = [
    {
      image: 'amd/aim-*',
      want: { registry: 'docker.io', repository: 'amd/aim-*', wildcard: true, explicitRegistry: false },
    },
    { image: 'amd/aim-qwen:0.8.4', want: { repository: 'amd/aim-qwen', tag: '0.8.4', wildcard: false } },
    {
      image: 'ghcr.io/amd/aim-qwen',
      want: { registry: 'ghcr.io', repository: 'amd/aim-qwen', explicitRegistry: true },
    },
    { image: 'registry-1.docker.io/amd/aim-*', want: { registry: 'docker.io', repository: 'amd/aim-*' } },
    { image: 'localhost:5000/amd/x:1.0.0', want: { registry: 'localhost:5000', repository: 'amd/x', tag: '1.0.0' } },
    { image: 'amd/AIM-*', want: /spec\.filters\[0\]\.image "amd\/AIM-\*".*not a repository/ },
    { image: 'amd/aim-*:1.0', want: /cannot name a tag; use spec\.filters\[0\]\.versions/ },
    { image: 'amd/aim:bad tag', want: /not a repository|tag "bad tag" is invalid/ },
  ];
  for (const c of cases)
    it(c.image, () => {
      const f = parseFilter({ image: c.image }, 0, 'docker.io', undefined);
      if (c.want instanceof RegExp) assert.match(f.problem ?? '', c.want);
      else {
        assert.equal(f.problem, undefined);
        for (const [k, v] of Object.entries(c.want)) assert.deepEqual(f[k as keyof typeof f], v, k);
      }
    });

  it('a bad constraint names its field: the filter own, else spec.versions', () => {
    const own = parseFilter({ image: 'a/b', versions: ['>=0.8', 'banana'] }, 2, 'docker.io', ['>=1']);
    assert.match(own.problem ?? '', /^spec\.filters\[2\]\.versions\[1\] "banana" is not a valid semver constraint/);
    const global = parseFilter({ image: 'a/b' }, 0, 'docker.io', ['>>1']);
    assert.match(global.problem ?? '', /^spec\.versions\[0\] ">>1" is not a valid semver constraint/);
  });

  it('a bad spec.registry is named on the filters that use it, not on those with a host of their own', () => {
    const [plain, hosted] = parseSourceFilters(
      source({ registry: 'https://ghcr.io', filters: [{ image: 'a/b' }, { image: 'quay.io/a/b' }] }),
    );
    assert.match(
      plain!.problem ?? '',
      /^spec\.registry "https:\/\/ghcr\.io" must be a host\[:port\] without a URL scheme/,
    );
    assert.equal(hosted!.problem, undefined);
  });

  it('"*" matches any run of characters, "/" included; the rest literally', () => {
    const table: Array<[string, string, boolean]> = [
      ['amd/aim-*', 'amd/aim-qwen', true],
      ['amd/aim-*', 'amd/aim-', true],
      ['amd/aim-*', 'amd/aimx', false],
      ['*/aim-*-instruct', 'meta/aim-llama-8b-instruct', true],
      ['*/aim-*-instruct', 'meta/aim-instruct', false],
      ['amd/*', 'amd/team/nested', true],
      ['amd/aim.qwen', 'amd/aimxqwen', false],
      ['a*a*a', 'aa', false],
    ];
    for (const [p, t, want] of table) assert.equal(matchesPattern(p, t), want, `${p} ~ ${t}`);
  });

  it('tags: newest semantic version first, v-prefix understood, others after by name', () => {
    assert.deepEqual(['latest', '0.8.4', 'v0.9.0', '1.0.0-rc.1', '1.0.0', 'dev'].sort(compareTags), [
      '1.0.0',
      '1.0.0-rc.1',
      'v0.9.0',
      '0.8.4',
      'dev',
      'latest',
    ]);
  });
});

describe('model source: what a listing selects', () => {
  const cases: Array<{ name: string; spec: Partial<Spec>; want: string[] }> = [
    {
      name: 'a wildcard without constraints takes every tag, "latest" included',
      spec: { filters: [{ image: 'amd/aim-qwen*' }] },
      want: ['amd/aim-qwen:v0.9.0', 'amd/aim-qwen:0.8.5', 'amd/aim-qwen:0.8.4', 'amd/aim-qwen:latest'],
    },
    {
      name: 'global constraints: non-semver tags skipped, prereleases excluded by the range',
      spec: { filters: [{ image: 'amd/aim-*' }], versions: ['>=0.8.4'] },
      want: [
        'amd/aim-llama:1.0.0',
        'amd/aim-qwen:v0.9.0',
        'amd/aim-qwen:0.8.5',
        'amd/aim-qwen:0.8.4',
        'amd/aim-team/nested:0.9.0',
      ],
    },
    {
      name: 'excludes drop repositories by exact name',
      spec: {
        filters: [{ image: 'amd/aim-*', exclude: ['amd/aim-qwen', 'amd/aim-team/nested'] }],
        versions: ['>=0.8.4'],
      },
      want: ['amd/aim-llama:1.0.0'],
    },
    {
      name: "a filter's own versions replace the global ones; every constraint must hold",
      spec: { filters: [{ image: 'amd/aim-qwen', versions: ['>=0.8', '<0.9.0'] }], versions: ['>=1.0.0'] },
      want: ['amd/aim-qwen:0.8.5', 'amd/aim-qwen:0.8.4'],
    },
    {
      name: 'an exact repo:tag takes that tag only, constraints or not',
      spec: { filters: [{ image: 'amd/aim-llama:0.8.3' }], versions: ['>=1.0.0'] },
      want: ['amd/aim-llama:0.8.3'],
    },
    {
      name: 'filters are OR-ed and an image offered twice counts once',
      spec: { filters: [{ image: 'amd/aim-old' }, { image: 'amd/aim-o*' }, { image: 'docker.io/amd/aim-old:0.1.0' }] },
      want: ['amd/aim-old:0.1.0'],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const ev = evaluateSource(source(c.spec), REGISTRY, none);
      assert.deepEqual(uris(ev, 'offered'), c.want);
      assert.deepEqual(uris(ev), c.want, 'all new, all created');
      assert.equal(filtersHealth(ev).reason, 'AllFiltersSucceeded');
    });

  it('the registry is asked only for what the filters need', () => {
    const filters = parseSourceFilters(
      source({ filters: [{ image: 'amd/aim-q*' }, { image: 'ghcr.io/x/y:1.0.0' }, { image: 'bad/AIM' }] }),
    );
    assert.deepEqual(catalogsToList(filters), [{ registry: 'docker.io', prefix: 'amd/aim-q' }]);
    assert.deepEqual(repositoriesToList(filters, REGISTRY.catalogs), [
      { registry: 'docker.io', repository: 'amd/aim-qwen' },
      { registry: 'ghcr.io', repository: 'x/y' },
    ]);
  });
});

describe('model source: maxModels and append-only', () => {
  const spec: Partial<Spec> = { filters: [{ image: 'amd/aim-qwen' }], versions: ['>=0.8.0'] };
  const image = (tag: string) => `docker.io/amd/aim-qwen:${tag}`;

  it('creates the newest first up to maxModels and says how many were held back', () => {
    const ev = evaluateSource(source({ ...spec, maxModels: 2 }), REGISTRY, none);
    assert.deepEqual(uris(ev), ['amd/aim-qwen:v0.9.0', 'amd/aim-qwen:0.8.5']);
    assert.equal(ev.overLimit, 1);
    const status: ModelSourceStatus = {};
    const cm = new ConditionManager([]);
    decorateModelSourceStatus(status, cm, ev, Date.parse('2026-11-28T03:00:00.123Z'));
    assert.deepEqual(
      { ...status },
      { discoveredModels: 2, availableModels: 3, modelsLimitReached: true, lastSyncTime: '2026-11-28T03:00:00Z' },
    );
    const limit = cm.get('MaxModelsLimitReached');
    assert.equal(limit?.status, 'True');
    assert.equal(limit?.reason, 'LimitReached');
    assert.match(limit?.message ?? '', /spec\.maxModels is 2: 1 matching image was not turned into models/);
  });

  it('models it already has count towards the limit, also those the registry no longer lists', () => {
    const existing: ExistingModels = {
      own: [
        { name: 'gone', image: 'docker.io/amd/aim-qwen:0.7.0' },
        { name: 'kept', image: image('0.8.5') },
      ],
      foreignImages: new Set(),
    };
    const ev = evaluateSource(source({ ...spec, maxModels: 3 }), REGISTRY, existing);
    assert.deepEqual(uris(ev, 'keep'), ['amd/aim-qwen:0.8.5']);
    assert.deepEqual(uris(ev), ['amd/aim-qwen:v0.9.0']);
    assert.equal(ev.modelCount, 3);
    assert.equal(ev.overLimit, 1);
    const plan = planModelSource(source(spec), ev, 60_000);
    assert.deepEqual(plan.deletes, [], 'append-only: nothing is ever deleted');
    assert.deepEqual(plan.applies.map((a) => (a.object as unknown as { spec: { image: string } }).spec.image).sort(), [
      image('0.8.5'),
      image('v0.9.0'),
    ]);
    assert.equal(plan.requeueAfterMs, 60_000);
  });

  it('an image that already has a model of someone else is left to it', () => {
    const ev = evaluateSource(source(spec), REGISTRY, { own: [], foreignImages: new Set([image('0.8.4')]) });
    assert.deepEqual(uris(ev), ['amd/aim-qwen:v0.9.0', 'amd/aim-qwen:0.8.5']);
  });

  it('the model: owned, labelled, annotated, named from repository, tag and a hash; pull secrets from the source', () => {
    const src = source({ ...spec, imagePullSecrets: [{ name: 'regcred' }] }, 'amd-hub');
    const img = { registry: 'docker.io', repository: 'amd/aim-qwen', tag: '0.8.5' };
    const model = clusterModelFor(src, img);
    assert.match(model.metadata.name ?? '', /^amd-aim-qwen-0-8-5-[0-9a-f]{6}$/);
    assert.equal(model.metadata.name, clusterModelName(img));
    assert.notEqual(clusterModelName({ ...img, registry: 'ghcr.io' }), model.metadata.name);
    assert.deepEqual(model.metadata.labels, {
      [MODEL_SOURCE_LABEL]: 'amd-hub',
      'aim.eai.amd.com/origin': 'auto-generated',
    });
    assert.deepEqual(model.metadata.annotations, {
      'aim.eai.amd.com/source-registry': 'docker.io',
      'aim.eai.amd.com/source-repository': 'amd/aim-qwen',
      'aim.eai.amd.com/source-tag': '0.8.5',
    });
    assert.deepEqual((model as unknown as { spec: unknown }).spec, {
      image: 'docker.io/amd/aim-qwen:0.8.5',
      imagePullSecrets: [{ name: 'regcred' }],
    });
    const plan = planModelSource(src, evaluateSource(src, REGISTRY, none), 1000);
    assert.ok(plan.applies.every((a) => a.mode === 'owned'));
  });
});

describe('model source: failures in FiltersReady', () => {
  const failing: RegistryListing = {
    catalogs: { [catalogKey('docker.io', 'amd/aim-')]: ok(['amd/aim-qwen']) },
    tags: {
      'docker.io/amd/aim-qwen': ok(['0.8.5']),
      'docker.io/amd/private': { ok: false, kind: 'Auth', message: 'unauthorized: authentication required' },
      'docker.io/amd/missing': { ok: false, kind: 'NotFound', message: 'repository name not known to registry' },
      'docker.io/amd/flaky': { ok: false, kind: 'Unavailable', message: 'connect ECONNREFUSED' },
    },
  };
  const health = (filters: Spec['filters'], versions?: string[]) =>
    filtersHealth(evaluateSource(source({ filters, ...(versions ? { versions } : {}) }), failing, none));
  const categories = (h: ReturnType<typeof filtersHealth>) =>
    (h.errors ?? []).map((e) => (e as { category: string; reason: string }).category);

  it('some filters failed: Degraded, no errors (the others still create), the failure named', () => {
    const h = health([{ image: 'amd/aim-*' }, { image: 'amd/private' }]);
    assert.equal(h.state, 'Degraded');
    assert.equal(h.reason, 'SomeFiltersFailed');
    assert.equal(h.errors, undefined);
    assert.match(
      h.message ?? '',
      /1 of 2 filters failed \(1 image matched by the others\): spec\.filters\[1\]\.image: listing the tags of docker\.io\/amd\/private: unauthorized/,
    );
  });

  const all: Array<{ name: string; filters: Spec['filters']; versions?: string[]; category: string; match: RegExp }> = [
    { name: 'auth', filters: [{ image: 'amd/private' }], category: 'Auth', match: /check spec\.imagePullSecrets/ },
    {
      name: 'not found',
      filters: [{ image: 'amd/missing' }],
      category: 'MissingUpstreamDependency',
      match: /not known/,
    },
    { name: 'outage', filters: [{ image: 'amd/flaky' }], category: 'Infrastructure', match: /ECONNREFUSED/ },
    {
      name: 'a repository:tag whose tag does not exist',
      filters: [{ image: 'amd/aim-qwen:9.9.9' }],
      category: 'MissingUpstreamDependency',
      match:
        /spec\.filters\[0\]\.image: docker\.io\/amd\/aim-qwen has no tag "9\.9\.9" \(it has 0\.8\.5\); fix the tag/,
    },
    {
      name: 'bad constraint',
      filters: [{ image: 'amd/aim-qwen' }],
      versions: ['not-a-range!'],
      category: 'InvalidSpec',
      match: /spec\.versions\[0\] "not-a-range!" is not a valid semver constraint/,
    },
  ];
  for (const c of all)
    it(`every filter failed (${c.name}): AllFiltersFailed with ${c.category}`, () => {
      const h = health(c.filters, c.versions);
      assert.equal(h.reason, 'AllFiltersFailed');
      assert.deepEqual(categories(h), [c.category]);
      assert.match((h.errors![0] as Error).message, c.match);
    });

  it('a catalog that cannot be read fails the wildcard filters that needed it', () => {
    const listing: RegistryListing = {
      catalogs: { [catalogKey('docker.io', 'amd/')]: { ok: false, kind: 'Unavailable', message: 'catalog: 503' } },
      tags: {},
    };
    const h = filtersHealth(evaluateSource(source({ filters: [{ image: 'amd/*' }] }), listing, none));
    assert.equal(h.reason, 'AllFiltersFailed');
    assert.match(h.message ?? '', /spec\.filters\[0\]\.image: listing the repositories of docker\.io: catalog: 503/);
  });
});
