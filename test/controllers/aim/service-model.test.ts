// Model resolution for an AIMService (docs/aim.md): by name (namespace, then cluster), by image (find or
// create, namespace first), custom base images, and invalid references; the auto-created AIMModel's shape.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { customModelName } from '../../../src/controllers/aim/service/custom-model.ts';
import {
  autoModelName,
  buildAutoModel,
  desireService,
  fetchServiceModel,
  labelValueFor,
  modelHealth,
  modelMode,
  planService,
} from '../../../src/controllers/aim/service/index.ts';
import { normalizeHealth } from '../../../src/engine/index.ts';
import { FakeCluster } from '../../engine/helpers/fake-cluster.ts';
import { fetched, model, NS, QWEN_IMAGE, resolvedConfig, service } from './helpers/service-fixtures.ts';

function readerWith(...objects: KubeObject[]) {
  const fake = new FakeCluster();
  for (const o of objects) fake.put(o);
  return fake.reader;
}

describe('spec.model.name / ref', () => {
  const cases: Array<{
    name: string;
    objects: KubeObject[];
    spec: object;
    want: { kind?: string; image?: string; error?: RegExp };
  }> = [
    {
      name: 'a namespaced AIMModel',
      objects: [model()],
      spec: { name: 'qwen-qwen3-32b' },
      want: { kind: 'AIMModel', image: QWEN_IMAGE },
    },
    {
      name: 'the namespaced one wins over a cluster one of the same name',
      objects: [model({ namespace: null, image: 'x/cluster:1' }), model()],
      spec: { name: 'qwen-qwen3-32b' },
      want: { kind: 'AIMModel', image: QWEN_IMAGE },
    },
    {
      name: 'else the AIMClusterModel',
      objects: [model({ namespace: null, image: 'x/cluster:1' })],
      spec: { ref: 'qwen-qwen3-32b' },
      want: { kind: 'AIMClusterModel', image: 'x/cluster:1' },
    },
    {
      name: 'a model in another namespace does not count',
      objects: [model({ namespace: 'other' })],
      spec: { name: 'qwen-qwen3-32b' },
      want: {
        error: /^spec\.model\.name: no AIMModel ml-team\/qwen-qwen3-32b and no AIMClusterModel qwen-qwen3-32b exist$/,
      },
    },
    {
      name: 'missing, spelled with the ref alias',
      objects: [],
      spec: { ref: 'nope' },
      want: { error: /^spec\.model\.ref: no AIMModel ml-team\/nope and no AIMClusterModel nope exist$/ },
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const svc = service({ spec: { model: c.spec } });
      const obs = await fetchServiceModel(svc, readerWith(...c.objects));
      const health = normalizeHealth(modelHealth(obs));
      if (c.want.error) {
        assert.equal(health.errors[0]?.category, 'MissingUpstreamDependency');
        assert.equal(health.reason, 'ModelNotFound');
        assert.match(health.message, c.want.error);
        const planned = desireService(svc, resolvedConfig({}), { ...fetched(svc), model: obs });
        assert.equal(planned.desired?.inferenceService, undefined, 'no image, no InferenceService');
        return;
      }
      assert.ok(obs.model?.ok());
      assert.equal(obs.model.value.kind, c.want.kind);
      assert.equal(obs.model.value.spec.image, c.want.image);
      assert.equal(health.state, 'Ready');
      assert.equal(health.reason, 'ModelResolved');
      assert.equal(health.dependencyType, 'Upstream');
    });
  }

  const states: Array<[string, string, string]> = [
    ['Pending', 'Progressing', 'ModelNotReady'],
    ['Progressing', 'Progressing', 'ModelNotReady'],
    ['Failed', 'Failed', 'ModelNotReady'],
    ['Degraded', 'Failed', 'ModelNotReady'],
    ['NotAvailable', 'NotAvailable', 'ModelNotReady'],
  ];
  for (const [status, state, reason] of states) {
    it(`a model that is ${status}: Model ${state}, and no InferenceService before the model is Ready`, async () => {
      const svc = service();
      const obs = await fetchServiceModel(svc, readerWith(model({ status })));
      const h = normalizeHealth(modelHealth(obs));
      assert.equal(h.state, state);
      assert.equal(h.reason, reason);
      assert.equal(h.errors.length, 0);
      const planned = desireService(svc, resolvedConfig({}), { ...fetched(svc), model: obs });
      assert.equal(planned.desired?.inferenceService, undefined, 'nothing is served before the model is Ready');
    });
  }
});

describe('spec.model.image', () => {
  const image = 'ghcr.io/example/aim-llama-3-8b:0.9.1';
  it('no model has the image: an AIMModel is created, unowned, labelled auto-generated, and nothing is served yet', async () => {
    const svc = service({
      metadata: { labels: { 'org.example/cost-center': 'eng-ml' } },
      spec: {
        model: { image },
        runtimeConfigName: 'team',
        imagePullSecrets: [{ name: 'pull' }],
        serviceAccountName: 'sa',
      },
    });
    const obs = await fetchServiceModel(svc, readerWith(model({ image: 'other/image:1' })));
    assert.ok(obs.model?.isNotFound());
    const h = normalizeHealth(modelHealth(obs));
    assert.equal(h.reason, 'CreatingModel');
    assert.equal(h.state, 'Progressing');
    assert.equal(h.dependencyType, 'Downstream');
    const planned = desireService(svc, resolvedConfig({ name: 'team', namespace: {} }), {
      ...fetched(svc),
      model: obs,
    });
    const plan = planService(svc, planned);
    const created = plan.applies.find((a) => a.object.kind === 'AIMModel');
    assert.ok(created);
    assert.equal(created.mode, 'shared', 'applied without an ownerReference');
    assert.equal(created.object.metadata.name, autoModelName(image));
    assert.equal(created.object.metadata.namespace, NS);
    assert.equal(created.object.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
    assert.deepEqual(created.object.spec, {
      image,
      runtimeConfigName: 'team',
      imagePullSecrets: [{ name: 'pull' }],
      serviceAccountName: 'sa',
    });
    assert.equal(
      plan.applies.find((a) => a.object.kind === 'InferenceService'),
      undefined,
      'no InferenceService before the model it creates is Ready',
    );
  });

  it('a namespaced model with the image is used (over a cluster one), and nothing is created', async () => {
    const svc = service({ spec: { model: { image } } });
    const obs = await fetchServiceModel(
      svc,
      readerWith(
        model({ name: 'cluster-llama', namespace: null, image }),
        model({ name: 'team-llama', image, status: 'Pending' }),
      ),
    );
    assert.ok(obs.model?.ok());
    assert.equal(obs.model.value.metadata.name, 'team-llama');
    const planned = desireService(svc, resolvedConfig({}), { ...fetched(svc), model: obs });
    assert.equal(planned.desired?.autoModel, undefined);
  });

  it('among several namespaced models a Ready one wins, then the first name', async () => {
    const svc = service({ spec: { model: { image } } });
    const two = await fetchServiceModel(
      svc,
      readerWith(model({ name: 'b', image }), model({ name: 'a', image, status: 'Pending' })),
    );
    assert.equal(two.model?.ok() && two.model.value.metadata.name, 'b');
    const tie = await fetchServiceModel(svc, readerWith(model({ name: 'd', image }), model({ name: 'c', image })));
    assert.equal(tie.model?.ok() && tie.model.value.metadata.name, 'c');
  });

  it('a cluster model with the image is used when the namespace has none', async () => {
    const svc = service({ spec: { model: { image } } });
    const obs = await fetchServiceModel(svc, readerWith(model({ name: 'cluster-llama', namespace: null, image })));
    assert.equal(obs.model?.ok() && obs.model.value.kind, 'AIMClusterModel');
  });

  it('a Ready model stored in status.resolvedModel is kept while it still has the image', async () => {
    const svc = service({
      spec: { model: { image } },
      status: {
        resolvedModel: { kind: 'AIMModel', name: 'z-stored', namespace: NS, scope: 'Namespace', uid: 'uid-z-stored' },
      },
    });
    const obs = await fetchServiceModel(
      svc,
      readerWith(model({ name: 'a-other', image }), model({ name: 'z-stored', image })),
    );
    assert.equal(obs.model?.ok() && obs.model.value.metadata.name, 'z-stored');
    const changed = await fetchServiceModel(
      svc,
      readerWith(model({ name: 'a-other', image }), model({ name: 'z-stored', image: 'not/the-image:1' })),
    );
    assert.equal(changed.model?.ok() && changed.model.value.metadata.name, 'a-other');
  });
});

describe('spec.model.custom and invalid models', () => {
  it('custom: an AIMModel is created for the base image, sources and hardware (unowned, labelled); nothing else until it exists', async () => {
    const custom = {
      baseImage: 'ghcr.io/example/aim-base:1.0',
      modelSources: [{ modelId: 'org/m', sourceUri: 'hf://org/m' }],
      hardware: { gpu: { requests: 1 } },
    };
    const svc = service({ spec: { model: { custom }, env: [{ name: 'A', value: '1' }] } });
    const obs = await fetchServiceModel(svc, readerWith());
    assert.equal(obs.model?.isNotFound(), true);
    const h = normalizeHealth(modelHealth(obs));
    assert.equal(h.reason, 'CreatingModel');
    assert.equal(h.state, 'Progressing');
    const desired = desireService(svc, resolvedConfig({}), { ...fetched(svc), model: obs });
    const plan = planService(svc, desired);
    assert.deepEqual(
      plan.applies.map((a) => [a.object.kind, a.mode]),
      [['AIMModel', 'shared']],
      'the model first, without owner; no InferenceService before it exists',
    );
    const m = plan.applies[0]!.object as KubeObject & { spec: Record<string, unknown> };
    assert.equal(m.metadata.name, customModelName(custom));
    assert.equal(m.metadata.labels?.['aim.eai.amd.com/custom-model'], 'true');
    assert.equal(m.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
    assert.deepEqual(m.spec, {
      image: custom.baseImage,
      modelSources: custom.modelSources,
      custom: { hardware: custom.hardware },
      env: [{ name: 'A', value: '1' }],
    });
  });

  it('custom: the same custom spec gives the same model name; another source another', () => {
    const base = { baseImage: 'ghcr.io/example/aim-base:1.0', hardware: { gpu: { requests: 1 } } };
    const a = customModelName({ ...base, modelSources: [{ sourceUri: 'hf://org/a' }] });
    assert.equal(a, customModelName({ ...base, modelSources: [{ sourceUri: 'hf://org/a' }] }));
    assert.notEqual(a, customModelName({ ...base, modelSources: [{ sourceUri: 'hf://org/b' }] }));
    assert.match(a, /^aim-base-1-0-custom/);
  });

  const bad: Array<{ name: string; model: object; reason: string; message: RegExp }> = [
    {
      name: 'an uppercase repository',
      model: { image: 'Example/Model:1' },
      reason: 'InvalidImageReference',
      message: /^spec\.model\.image: image reference "Example\/Model:1" repository name must be lowercase/,
    },
    {
      name: 'whitespace',
      model: { image: 'example/model :1' },
      reason: 'InvalidImageReference',
      message: /^spec\.model\.image: .*whitespace/,
    },
    {
      name: 'a URL scheme in the base image',
      model: { custom: { baseImage: 'https://example.com/x', modelSources: [{}], hardware: {} } },
      reason: 'InvalidImageReference',
      message: /^spec\.model\.custom\.baseImage: .*URL scheme/,
    },
    {
      name: 'two model forms (an object stored before the CEL rule)',
      model: { name: 'a', image: 'b/c:1' },
      reason: 'InvalidModelSpec',
      message: /^spec\.model: exactly one of name \(or ref\), image or custom must be set, found name, image$/,
    },
    { name: 'no model form', model: {}, reason: 'InvalidModelSpec', message: /found none/ },
  ];
  for (const c of bad) {
    it(`${c.name}: InvalidSpec naming the field, nothing planned`, async () => {
      const svc = service({ spec: { model: c.model as never } });
      const obs = await fetchServiceModel(svc, readerWith());
      const h = normalizeHealth(modelHealth(obs));
      assert.equal(h.errors[0]?.category, 'InvalidSpec');
      assert.equal(h.reason, c.reason);
      assert.match(h.message, c.message);
      const plan = planService(svc, desireService(svc, resolvedConfig({}), { ...fetched(svc), model: obs }));
      assert.equal(plan.applies.length, 0);
    });
  }
});

describe('names', () => {
  const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  const cases = [
    'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5',
    'ghcr.io:5000/Org/Model_Name:V1.0',
    'registry.example/team/model@sha256:' + 'a'.repeat(64),
    'x/' + 'very-long-repository-name-'.repeat(10) + ':' + 'tag'.repeat(30),
    '___:___',
  ];
  for (const image of cases) {
    it(`autoModelName(${image.slice(0, 50)}…) is a DNS-1123 label with the image's hash`, () => {
      const name = autoModelName(image);
      assert.match(name, DNS1123_LABEL);
      assert.ok(name.length <= 63, `${name.length} characters`);
      assert.equal(autoModelName(image), name, 'deterministic');
      assert.match(name, /-[0-9a-f]{8}$|^[0-9a-f]{8}$/);
    });
  }

  it('readable: repository and tag come first', () => {
    assert.match(autoModelName('amdenterpriseai/aim-qwen-qwen3-32b:0.8.5'), /^aim-qwen-qwen3-32b-0-8-5-[0-9a-f]{8}$/);
  });

  it('same repository and tag under two registries: two names, so neither model overwrites the other', () => {
    assert.notEqual(autoModelName('a.example/llama:1'), autoModelName('b.example/llama:1'));
  });

  it('buildAutoModel uses the name', () => {
    assert.equal(buildAutoModel(service(), QWEN_IMAGE).metadata.name, autoModelName(QWEN_IMAGE));
  });

  it('labelValueFor keeps short names and hashes long ones into 63 characters', () => {
    assert.equal(labelValueFor('qwen-chat'), 'qwen-chat');
    const long = `svc.${'x'.repeat(100)}`;
    assert.ok(labelValueFor(long).length <= 63);
    assert.match(labelValueFor(long), /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    assert.notEqual(labelValueFor(`${long}a`), labelValueFor(`${long}b`));
  });

  it('modelMode tells the alias apart from name', () => {
    assert.deepEqual(modelMode({ model: { ref: 'm' } }), { kind: 'name', name: 'm', field: 'spec.model.ref' });
    assert.deepEqual(modelMode({ model: { name: 'm' } }), { kind: 'name', name: 'm', field: 'spec.model.name' });
  });
});
