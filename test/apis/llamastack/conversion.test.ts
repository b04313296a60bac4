// v1alpha1 <-> v1alpha2 conversion as pure functions: every field maps, and a round trip in either
// direction gives back the object it started from (docs/llamastack.md, "Versions").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convertLlamaStackDistribution,
  V1ALPHA1_FIELDS_ANNOTATION,
  V1ALPHA2_FIELDS_ANNOTATION,
} from '../../../src/apis/llamastack/index.ts';
import { fullV1Alpha1, fullV1Alpha2 } from './fixtures.ts';

const V1 = 'llamastack.io/v1alpha1';
const V2 = 'llamastack.io/v1alpha2';

describe('LlamaStackDistribution conversion', () => {
  it('v1alpha2 → v1alpha1 → v1alpha2 is lossless, every field included', () => {
    const v2 = fullV1Alpha2();
    const v1 = convertLlamaStackDistribution(structuredClone(v2), V1);
    assert.equal(v1.apiVersion, V1);
    assert.ok(v1.metadata.annotations[V1ALPHA2_FIELDS_ANNOTATION], 'v1alpha2-only fields travel in the annotation');
    assert.equal(v1.spec.server.containerSpec.port, 9090);
    assert.equal(v1.spec.network.exposeRoute, true);
    assert.deepEqual(v1.spec.server.tlsConfig, { caBundle: v2.spec.networking.tls.caBundle });
    assert.equal(v1.spec.replicas, 2);
    const back = convertLlamaStackDistribution(v1, V2);
    assert.deepEqual(back, v2);
  });

  it('v1alpha1 → v1alpha2 → v1alpha1 is lossless, the v1alpha1-only container name included', () => {
    const v1 = fullV1Alpha1();
    const v2 = convertLlamaStackDistribution(structuredClone(v1), V2);
    assert.equal(v2.spec.networking.port, 8322);
    assert.deepEqual(v2.spec.overrideConfig, { configMapName: 'my-config', configMapNamespace: 'llama' });
    assert.deepEqual(v2.spec.workload.overrides.env, [{ name: 'INFERENCE_MODEL', value: 'llama3' }]);
    assert.equal(JSON.parse(v2.metadata.annotations[V1ALPHA1_FIELDS_ANNOTATION]).containerName, 'server');
    assert.deepEqual(convertLlamaStackDistribution(v2, V1), v1);
  });

  it("v1alpha1's containerSpec.port 0 (the published operator's default) leaves the v1alpha2 port unset: 8321", () => {
    const v1 = fullV1Alpha1();
    v1.spec.server.containerSpec.port = 0;
    const v2 = convertLlamaStackDistribution(v1, V2);
    assert.equal(v2.spec.networking?.port, undefined);
    assert.doesNotMatch(JSON.stringify(v2), /"port":0/);
  });

  it('maps the fields of the published mapping table', () => {
    const v2 = convertLlamaStackDistribution(fullV1Alpha1(), V2).spec;
    assert.deepEqual(v2.distribution, { image: 'docker.io/llamastack/distribution-starter:0.2.15' });
    assert.deepEqual(v2.workload.storage, { size: '5Gi', mountPath: '/.llama' });
    assert.deepEqual(v2.workload.autoscaling, { minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 60 });
    assert.equal(v2.workload.replicas, 3);
    assert.equal(v2.workload.workers, 3);
    assert.deepEqual(v2.workload.podDisruptionBudget, { minAvailable: 1 });
    assert.equal(v2.workload.overrides.serviceAccountName, 'sa');
    assert.deepEqual(v2.networking.expose, { enabled: true });
    assert.deepEqual(v2.networking.allowedFrom, { namespaces: ['*'], labels: ['allow'] });
    assert.deepEqual(v2.networking.tls, { caBundle: { configMapName: 'ca', configMapKeys: ['a.crt', 'b.crt'] } });
  });

  it('an edit made in v1alpha1 is kept next to the restored v1alpha2-only fields', () => {
    const v1 = convertLlamaStackDistribution(fullV1Alpha2(), V1);
    v1.spec.replicas = 7;
    const v2 = convertLlamaStackDistribution(v1, V2);
    assert.equal(v2.spec.workload.replicas, 7);
    assert.equal(v2.spec.providers.inference.length, 2);
    assert.equal(v2.metadata.annotations[V1ALPHA2_FIELDS_ANNOTATION], undefined, 'the annotation is consumed');
  });

  it('normalises a single-object provider section restored from the annotation', () => {
    const v1 = convertLlamaStackDistribution(fullV1Alpha2(), V1);
    v1.metadata.annotations[V1ALPHA2_FIELDS_ANNOTATION] = JSON.stringify({
      providers: { inference: { provider: 'vllm', endpoint: 'http://x' } },
    });
    assert.deepEqual(convertLlamaStackDistribution(v1, V2).spec.providers, {
      inference: [{ provider: 'vllm', endpoint: 'http://x' }],
    });
  });

  it('refuses a corrupt annotation and an unknown version with a message saying what to do', () => {
    const v1 = fullV1Alpha1();
    (v1.metadata as any).annotations = { [V1ALPHA2_FIELDS_ANNOTATION]: '{not json' };
    assert.throws(
      () => convertLlamaStackDistribution(v1, V2),
      /annotation llamastack.io\/v1alpha2-fields is not a JSON object: remove it/,
    );
    assert.throws(
      () => convertLlamaStackDistribution(fullV1Alpha1(), 'llamastack.io/v9'),
      /cannot convert to llamastack.io\/v9: served versions are/,
    );
  });

  it('drops the v1alpha2-only status fields on the way down and keeps the shared ones', () => {
    const v2 = {
      ...fullV1Alpha2(),
      status: {
        phase: 'Ready',
        availableReplicas: 1,
        resolvedDistribution: { image: 'x' },
        configGeneration: { configMapName: 'c' },
      },
    };
    assert.deepEqual(convertLlamaStackDistribution(v2, V1).status, { phase: 'Ready', availableReplicas: 1 });
  });
});
