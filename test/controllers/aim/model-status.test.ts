// AIMModel / AIMClusterModel status decisions, pure and through the pipeline on the in-memory cluster:
// image reference syntax, runtime-config resolution in both scopes, ConfigNotFound → Failed and
// recovery, DefaultConfigNotFound (True, one Normal event), and the pause annotation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { type AIMModelStatus, modelPipeline } from '../../../src/controllers/aim/model/index.ts';
import { parseImageReference } from '../../../src/controllers/aim/shared/image-reference.ts';
import type { AIMClusterModel, AIMModel } from '../../../src/controllers/aim/shared/kinds.ts';
import { FakeCluster } from '../../engine/helpers/fake-cluster.ts';

describe('OCI image references', () => {
  const digest = 'sha256:' + 'a'.repeat(64);
  const valid = [
    'nginx',
    'nginx:1.27',
    'library/nginx:latest',
    'docker.io/library/nginx:latest',
    'ghcr.io/silogen/aim-dummy:0.1.8',
    'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5',
    'localhost/model',
    'localhost:5000/team/model:v1',
    'registry.example.com:443/a/b/c@' + digest,
    `repo:tag@${digest}`,
    '[::1]:5000/model:x',
    'a__b/c---d/e.f_g',
    'model:' + 'T'.repeat(128),
  ];
  for (const image of valid)
    it(`valid: ${image.slice(0, 60)}`, () =>
      assert.equal(parseImageReference(image).ok, true, JSON.stringify(parseImageReference(image))));

  const invalid: [string, RegExp][] = [
    ['', /must not be empty/],
    ['   ', /must not be empty/],
    ['ghcr.io/Silogen/aim', /must be lowercase/],
    ['nginx:', /tag "" is invalid/],
    ['nginx:-x', /tag "-x" is invalid/],
    ['model:' + 't'.repeat(129), /tag .* is invalid/],
    ['https://ghcr.io/x/y:1', /URL scheme/],
    ['ghcr.io//x', /empty component/],
    ['/x', /empty component/],
    ['x/', /empty component/],
    ['nginx@sha256:abc', /digest "sha256:abc" is invalid/],
    ['nginx@sha256:' + 'a'.repeat(63), /sha256 needs 64 hex digits, not 63/],
    ['my model', /whitespace/],
    ['-foo', /component "-foo" is invalid/],
    ['foo_-bar', /component "foo_-bar" is invalid/],
    ['ghcr.io:abc/x', /registry "ghcr.io:abc" is not a valid host/],
    [`ghcr.io/${'a'.repeat(260)}`, /more than 255/],
    [':tag', /no repository name/],
    ['x'.repeat(5000), /more than 4096/],
  ];
  for (const [image, why] of invalid) {
    it(`invalid: ${JSON.stringify(image.slice(0, 40))}`, () => {
      const r = parseImageReference(image);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.message, why);
    });
  }

  it('splits domain, path, tag and digest', () => {
    assert.deepEqual(parseImageReference(`localhost:5000/team/model:v1@${digest}`), {
      ok: true,
      reference: { domain: 'localhost:5000', path: 'team/model', tag: 'v1', digest },
    });
    assert.deepEqual(parseImageReference('team/model'), { ok: true, reference: { path: 'team/model' } });
  });
});

const API = 'aim.eai.amd.com/v1alpha1';
const OP_NS = 'aim-operator';
const FM = 'aim-model-controller';

const model = (spec: AIMModel['spec'], extra: Partial<AIMModel['metadata']> = {}): AIMModel => ({
  apiVersion: API,
  kind: 'AIMModel',
  metadata: { name: 'qwen', namespace: 'ml-team', ...extra },
  spec,
});
const clusterModel = (spec: AIMClusterModel['spec']): AIMClusterModel => ({
  apiVersion: API,
  kind: 'AIMClusterModel',
  metadata: { name: 'qwen' },
  spec,
});
const nsConfig = (name: string, namespace: string, uid = `uid-ns-${namespace}-${name}`): KubeObject =>
  ({ apiVersion: API, kind: 'AIMRuntimeConfig', metadata: { name, namespace, uid }, spec: {} }) as KubeObject;
const clusterConfig = (name: string, uid = `uid-cl-${name}`): KubeObject =>
  ({ apiVersion: API, kind: 'AIMClusterRuntimeConfig', metadata: { name, uid }, spec: {} }) as KubeObject;

async function reconcile(fake: FakeCluster, obj: AIMModel | AIMClusterModel) {
  const stored = fake.put(obj);
  await modelPipeline({ operatorNamespace: OP_NS }).run(stored, fake.deps());
  const after = fake.getObject<AIMModel>(API, obj.kind, obj.metadata.name!, obj.metadata.namespace)!;
  const status = (after.status ?? {}) as AIMModelStatus;
  const cond = (t: string) => status.conditions?.find((c) => c.type === t);
  return { after, status, cond };
}

describe('model status decisions (pipeline, in-memory cluster)', () => {
  const IMAGE = 'ghcr.io/silogen/aim-dummy:0.1.8';
  type Case = {
    name: string;
    object: AIMModel | AIMClusterModel;
    configs: KubeObject[];
    status: string;
    ready: [string, string];
    runtimeConfig: [string, string];
    ref?: { kind: string; name: string; namespace: string; scope: string; uid: string };
    configValid?: [string, string];
    message?: RegExp;
  };
  const cases: Case[] = [
    {
      name: 'no config and none named: default absent is fine',
      object: model({ image: IMAGE }),
      configs: [],
      status: 'Ready',
      ready: ['True', 'AllComponentsReady'],
      runtimeConfig: ['True', 'DefaultConfigNotFound'],
    },
    {
      name: 'explicit config missing: Failed, reason ConfigNotFound',
      object: model({ image: IMAGE, runtimeConfigName: 'missing' }),
      configs: [nsConfig('missing', 'other-team')],
      status: 'Failed',
      ready: ['False', 'ConfigNotFound'],
      runtimeConfig: ['False', 'ConfigNotFound'],
      configValid: ['False', 'ReferenceNotFound'],
      message: /RuntimeConfig missing not found.*in namespace ml-team/,
    },
    {
      name: 'namespaced config',
      object: model({ image: IMAGE, runtimeConfigName: 'gpu' }),
      configs: [nsConfig('gpu', 'ml-team')],
      status: 'Ready',
      ready: ['True', 'AllComponentsReady'],
      runtimeConfig: ['True', 'RuntimeConfigResolved'],
      ref: {
        kind: 'AIMRuntimeConfig',
        name: 'gpu',
        namespace: 'ml-team',
        scope: 'Namespace',
        uid: 'uid-ns-ml-team-gpu',
      },
    },
    {
      name: 'cluster config only',
      object: model({ image: IMAGE }),
      configs: [clusterConfig('default'), nsConfig('default', 'other-team')],
      status: 'Ready',
      ready: ['True', 'AllComponentsReady'],
      runtimeConfig: ['True', 'RuntimeConfigResolved'],
      ref: { kind: 'AIMClusterRuntimeConfig', name: 'default', namespace: '', scope: 'Cluster', uid: 'uid-cl-default' },
    },
    {
      name: 'both scopes: one ref, the namespaced one',
      object: model({ image: IMAGE }),
      configs: [clusterConfig('default'), nsConfig('default', 'ml-team')],
      status: 'Ready',
      ready: ['True', 'AllComponentsReady'],
      runtimeConfig: ['True', 'RuntimeConfigResolved'],
      ref: {
        kind: 'AIMRuntimeConfig',
        name: 'default',
        namespace: 'ml-team',
        scope: 'Namespace',
        uid: 'uid-ns-ml-team-default',
      },
    },
    {
      name: 'cluster model: the namespaced config in the operator namespace',
      object: clusterModel({ image: IMAGE, runtimeConfigName: 'gpu' }),
      configs: [nsConfig('gpu', OP_NS), clusterConfig('gpu')],
      status: 'Ready',
      ready: ['True', 'AllComponentsReady'],
      runtimeConfig: ['True', 'RuntimeConfigResolved'],
      ref: { kind: 'AIMRuntimeConfig', name: 'gpu', namespace: OP_NS, scope: 'Namespace', uid: `uid-ns-${OP_NS}-gpu` },
    },
    {
      name: 'cluster model: a namespaced config elsewhere does not count',
      object: clusterModel({ image: IMAGE, runtimeConfigName: 'gpu' }),
      configs: [nsConfig('gpu', 'ml-team')],
      status: 'Failed',
      ready: ['False', 'ConfigNotFound'],
      runtimeConfig: ['False', 'ConfigNotFound'],
      configValid: ['False', 'ReferenceNotFound'],
      message: new RegExp(`in namespace ${OP_NS}`),
    },
    {
      name: 'invalid image: Failed, ConfigValid names spec.image',
      object: model({ image: 'ghcr.io/Silogen/aim dummy' }),
      configs: [],
      status: 'Failed',
      ready: ['False', 'InvalidImageReference'],
      runtimeConfig: ['True', 'DefaultConfigNotFound'],
      configValid: ['False', 'InvalidSpec'],
      message: /spec\.image "ghcr\.io\/Silogen\/aim dummy" is not a valid OCI image reference/,
    },
    {
      name: 'invalid image and missing config: Failed wins',
      object: clusterModel({ image: 'UPPER', runtimeConfigName: 'nope' }),
      configs: [],
      status: 'Failed',
      ready: ['False', 'InvalidImageReference'],
      runtimeConfig: ['False', 'ConfigNotFound'],
      configValid: ['False', 'InvalidSpec'],
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const fake = new FakeCluster(FM);
      for (const cfg of c.configs) fake.put(cfg);
      const { status, cond } = await reconcile(fake, c.object);
      assert.equal(status.status, c.status);
      assert.deepEqual([cond('Ready')?.status, cond('Ready')?.reason], c.ready, 'Ready');
      assert.deepEqual(
        [cond('RuntimeConfigReady')?.status, cond('RuntimeConfigReady')?.reason],
        c.runtimeConfig,
        'RuntimeConfigReady',
      );
      if (c.ref) assert.deepEqual(status.resolvedRuntimeConfig, c.ref);
      else assert.equal(status.resolvedRuntimeConfig, undefined, 'no ref');
      if (c.configValid) assert.deepEqual([cond('ConfigValid')?.status, cond('ConfigValid')?.reason], c.configValid);
      else assert.equal(cond('ConfigValid'), undefined, 'no ConfigValid unless the spec or a reference is invalid');
      if (c.message) assert.match(cond('Ready')!.message, c.message);
      assert.equal(status.observedGeneration, 1);
    });
  }

  it('ConfigNotFound, then the config is created: recovers with the ref', async () => {
    const fake = new FakeCluster(FM);
    let r = await reconcile(fake, model({ image: IMAGE, runtimeConfigName: 'late' }));
    assert.equal(r.status.status, 'Failed');
    fake.put(nsConfig('late', 'ml-team', 'uid-late'));
    await modelPipeline({ operatorNamespace: OP_NS }).run(r.after, fake.deps());
    const after = fake.getObject<AIMModel>(API, 'AIMModel', 'qwen', 'ml-team')!;
    r = { ...r, status: after.status as AIMModelStatus };
    assert.equal(r.status.status, 'Ready');
    assert.equal(r.status.resolvedRuntimeConfig?.uid, 'uid-late');
    // and the config deleted again: the ref goes, the model is Failed again
    fake.remove(API, 'AIMRuntimeConfig', 'late', 'ml-team');
    await modelPipeline({ operatorNamespace: OP_NS }).run(after, fake.deps());
    const again = fake.getObject<AIMModel>(API, 'AIMModel', 'qwen', 'ml-team')!.status as AIMModelStatus;
    assert.equal(again.status, 'Failed');
    assert.equal(again.resolvedRuntimeConfig, undefined);
  });

  it('DefaultConfigNotFound: one Normal event on the first reconcile, none after', async () => {
    const fake = new FakeCluster(FM);
    const pipeline = modelPipeline({ operatorNamespace: OP_NS });
    let obj = fake.put(model({ image: IMAGE }));
    for (let i = 0; i < 3; i++) {
      await pipeline.run(obj, fake.deps());
      obj = fake.getObject<AIMModel>(API, 'AIMModel', 'qwen', 'ml-team')!;
    }
    const defaults = fake.events.filter((e) => e.reason === 'DefaultConfigNotFound');
    assert.equal(defaults.length, 1, JSON.stringify(fake.events));
    assert.equal(defaults[0]!.type, 'Normal');
    assert.match(defaults[0]!.note, /no runtime config named default exists/);
  });

  it('a paused model is left alone', async () => {
    const fake = new FakeCluster(FM);
    const obj = fake.put(
      model({ image: 'NOT VALID' }, { annotations: { 'aim.eai.amd.com/reconcile-paused': 'true' } }),
    );
    assert.equal((await modelPipeline({ operatorNamespace: OP_NS }).run(obj, fake.deps())).phase, 'paused');
    assert.equal(fake.count('applyStatus'), 0);
  });
});
