// The desired upstream object: the overrides deep merge (maps merge, the rest replaces, null deletes,
// identity/status keys blocked), label propagation, the ownerReference, and the identity record that
// decides between an in-place update and a delete + recreate.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import type { ProviderDefinition } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import {
  buildDesired,
  describeIdentityChanges,
  identityChangesSince,
  recordedIdentity,
  upstreamLabels,
} from '../../../src/controllers/kubeairunway/provider/desired.ts';
import { mergeOverrides } from '../../../src/controllers/kubeairunway/provider/merge.ts';
import { IDENTITY_ANNOTATION } from '../../../src/controllers/kubeairunway/provider/names.ts';
import { testWidgets } from './provider-helpers.ts';

describe('mergeOverrides', () => {
  const base = { spec: { a: 1, nested: { x: 'keep', y: 'old' }, list: [1, 2], drop: 'me' }, other: 'o' };
  const cases: Array<[string, Record<string, unknown>, unknown]> = [
    [
      'nested maps merge',
      { spec: { nested: { y: 'new', z: 'added' } } },
      { spec: { a: 1, nested: { x: 'keep', y: 'new', z: 'added' }, list: [1, 2], drop: 'me' }, other: 'o' },
    ],
    [
      'lists replace, never merge',
      { spec: { list: [9] } },
      { spec: { a: 1, nested: { x: 'keep', y: 'old' }, list: [9], drop: 'me' }, other: 'o' },
    ],
    [
      'a scalar replaces a map',
      { spec: { nested: 'flat' } },
      { spec: { a: 1, nested: 'flat', list: [1, 2], drop: 'me' }, other: 'o' },
    ],
    [
      'null deletes',
      { spec: { drop: null, nested: { x: null } } },
      { spec: { a: 1, nested: { y: 'old' }, list: [1, 2] }, other: 'o' },
    ],
    [
      'nulls inside a new map are dropped, not sent',
      { extra: { k: 'v', gone: null } },
      { spec: base.spec, other: 'o', extra: { k: 'v' } },
    ],
    [
      'apiVersion, kind, metadata and status are blocked',
      { apiVersion: 'x/v9', kind: 'Evil', metadata: { name: 'x' }, status: { ok: true }, other: 'changed' },
      { spec: base.spec, other: 'changed' },
    ],
  ];
  for (const [name, overrides, want] of cases) {
    it(name, () => {
      const before = structuredClone(base);
      assert.deepEqual(mergeOverrides(base, overrides), want);
      assert.deepEqual(base, before, 'the base object is not modified');
    });
  }
  it('no overrides → the object as it is', () => assert.equal(mergeOverrides(base, undefined), base));
});

describe('upstreamLabels', () => {
  it("copies only kubeairunway.ai/ labels; the transform's own win; managed-by is always kubeairunway", () => {
    const md = {
      metadata: {
        labels: {
          'kubeairunway.ai/team': 'a',
          'kubeairunway.ai/model-deployment': 'spoofed',
          'kubeairunway.ai/managed-by': 'me',
          app: 'x',
          'example.com/k': 'v',
        },
      },
    };
    assert.deepEqual(upstreamLabels(md, { 'kubeairunway.ai/model-deployment': 'llm', app: 'own' }), {
      'kubeairunway.ai/team': 'a',
      'kubeairunway.ai/model-deployment': 'llm',
      app: 'own',
      'kubeairunway.ai/managed-by': 'kubeairunway',
    });
  });
});

function md(spec: Partial<ModelDeployment['spec']> = {}, labels?: Record<string, string>): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'llm', namespace: 'team', uid: 'u-1', ...(labels ? { labels } : {}) },
    spec: { model: { id: 'org/model' }, engine: { type: 'vllm' }, ...spec },
  };
}

describe('buildDesired', () => {
  it('names it after the deployment, owns it with blockOwnerDeletion, labels it and records the identity', () => {
    const d = buildDesired(testWidgets as ProviderDefinition, md({}, { 'kubeairunway.ai/tier': 'gold', app: 'no' }));
    assert.equal(d.apiVersion, 'test.modelplane.io/v1');
    assert.equal(d.kind, 'Widget');
    assert.equal(d.metadata.name, 'llm');
    assert.equal(d.metadata.namespace, 'team');
    assert.deepEqual(d.metadata.ownerReferences, [
      {
        apiVersion: 'kubeairunway.ai/v1alpha1',
        kind: 'ModelDeployment',
        name: 'llm',
        uid: 'u-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.deepEqual(d.metadata.labels, {
      'kubeairunway.ai/tier': 'gold',
      'kubeairunway.ai/managed-by': 'kubeairunway',
    });
    assert.deepEqual(recordedIdentity(d), {
      'model.id': 'org/model',
      'model.source': 'huggingface',
      'engine.type': 'vllm',
      'serving.mode': 'aggregated',
      'provider.name': 'widgets',
    });
    assert.deepEqual(d.spec, { model: 'org/model', replicas: 1, engine: 'vllm' });
  });

  it('merges spec.provider.overrides when the provider has no overridePatch', () => {
    const d = buildDesired(
      testWidgets as ProviderDefinition,
      md({ provider: { overrides: { spec: { replicas: 3, extra: { a: 'b' } }, metadata: { name: 'hijack' } } } }),
    );
    assert.deepEqual(d.spec, { model: 'org/model', replicas: 3, engine: 'vllm', extra: { a: 'b' } });
    assert.equal(d.metadata.name, 'llm', 'metadata cannot be overridden');
  });

  it('uses overridePatch instead of the raw overrides when the provider translates them', () => {
    const def: ProviderDefinition = {
      ...(testWidgets as ProviderDefinition),
      overridePatch: (m) => ({ spec: { router: String(m.spec.provider?.overrides?.routerMode) } }),
    };
    const d = buildDesired(def, md({ provider: { overrides: { routerMode: 'kv' } } }));
    assert.deepEqual(d.spec, { model: 'org/model', replicas: 1, engine: 'vllm', router: 'kv' });
    assert.equal((d as Record<string, unknown>).routerMode, undefined);
  });

  it("passes the transform's error through (the reconciler reports TransformFailed)", () => {
    assert.throws(
      () => buildDesired(testWidgets as ProviderDefinition, md({ model: { id: 'untransformable' } })),
      /spec.model.id "untransformable" has no widget/,
    );
  });

  it('needs a deployment read from the server (an ownerReference needs the uid)', () => {
    const m = md();
    delete m.metadata.uid;
    assert.throws(() => buildDesired(testWidgets as ProviderDefinition, m), /no metadata.uid/);
  });
});

describe('identityChangesSince', () => {
  const built = buildDesired(testWidgets as ProviderDefinition, md());
  const cases: Array<[string, Partial<ModelDeployment['spec']>, string[]]> = [
    ['nothing changed', {}, []],
    [
      'config fields only (replicas, args, image, overrides) → in place',
      {
        scaling: { replicas: 4 },
        engine: { type: 'vllm', args: { a: '1' } },
        image: 'x',
        provider: { overrides: { a: 1 } },
      },
      [],
    ],
    ['model.id', { model: { id: 'org/other' } }, ['model.id']],
    ['model.source', { model: { id: 'org/model', source: 'custom' } }, ['model.source']],
    ['engine.type', { engine: { type: 'sglang' } }, ['engine.type']],
    ['serving.mode', { serving: { mode: 'disaggregated' } }, ['serving.mode']],
    [
      'explicit defaults are not changes',
      { model: { id: 'org/model', source: 'huggingface' }, serving: { mode: 'aggregated' } },
      [],
    ],
    [
      "spec.provider.name is the core's business, not a recreate by this provider",
      { provider: { name: 'dynamo' } },
      [],
    ],
    ['several at once', { model: { id: 'a' }, engine: { type: 'sglang' } }, ['model.id', 'engine.type']],
  ];
  for (const [name, spec, want] of cases) {
    it(name, () =>
      assert.deepEqual(
        identityChangesSince(built, md(spec)).map((c) => c.field),
        want,
      ),
    );
  }

  it('an object without a record (or a garbled one) gives no change: it is updated in place', () => {
    const bare = { ...built, metadata: { ...built.metadata, annotations: {} } };
    assert.deepEqual(identityChangesSince(bare, md({ model: { id: 'x' } })), []);
    const garbled = { ...built, metadata: { ...built.metadata, annotations: { [IDENTITY_ANNOTATION]: '{not json' } } };
    assert.deepEqual(identityChangesSince(garbled, md({ model: { id: 'x' } })), []);
  });

  it('describes the change as the Warning event says it', () => {
    assert.equal(
      describeIdentityChanges(identityChangesSince(built, md({ engine: { type: 'sglang' } }))),
      'engine.type changed from vllm to sglang',
    );
  });
});
