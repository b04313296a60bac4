// AIMClusterModelSource on `modelplane dev`'s cluster with the simulated registry, reached over HTTP by the
// registry client `modelplane run` uses (as `modelplane dev` wires it): a wildcard source with semver
// constraints and maxModels creates AIMClusterModels (owned, labelled, annotated) that go on to become
// Ready; models are only ever added; a bad constraint, a bad registry and missing credentials are named
// in the status, and a pull secret in the operator namespace opens the private repository.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import {
  SIM_REGISTRY_PASSWORD,
  SIM_REGISTRY_USERNAME,
  type SimRegistryServer,
  startSimRegistryServer,
} from '@modelplane/sim/registry/server';
import { kubeSecretSource, OciRegistryClient } from '../../src/controllers/aim/catalog/oci/client.ts';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { AIMClusterModelSources, AIMClusterModels } from '../../src/controllers/aim/shared/kinds.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const API = 'aim.eai.amd.com/v1alpha1';
const OPERATOR_NS = 'aim-system';
const SOURCE_LABEL = 'aim.eai.amd.com/model-source';
const log = new Logger({}, parseLogLevel(process.env.AIM_TEST_LOG, 'silent'));

type Json = Record<string, any>;
const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined =>
  ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);

describe('AIMClusterModelSource on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  let registry: SimRegistryServer;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const modelsOf = async (source: string) =>
    (await admin.list(AIMClusterModels, { labelSelector: `${SOURCE_LABEL}=${source}` })).items;
  const sourceWhen = (name: string, what: string, ok: (s: Json) => boolean) =>
    waitFor(
      `source ${name}: ${what}`,
      async () => {
        const s = (await admin.get(AIMClusterModelSources, name)) as unknown as Json;
        return ok(s) ? s : undefined;
      },
      { timeoutMs: 30_000, detail: async () => (await admin.get(AIMClusterModelSources, name)).status },
    );

  before(async () => {
    registry = await startSimRegistryServer({ maxPageSize: 2 });
    cluster = await startOperatorTestCluster({
      name: 'aim-model-source',
      log,
      namespaces: [OPERATOR_NS],
      register: (mgr) =>
        aimControllerSet().register(mgr, {
          operatorNamespace: OPERATOR_NS,
          podNamespace: 'modelplane-system',
          log,
          imageRegistry: new OciRegistryClient({
            mirrors: { 'docker.io': registry.url },
            secrets: kubeSecretSource(mgr.client),
          }),
        }),
    });
    admin = cluster.admin;
  });
  after(async () => {
    await cluster?.stop();
    await registry?.close();
  });

  it('lists the registry, keeps the tags the constraints allow, stops at maxModels, and the models come up', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMClusterModelSource',
      metadata: { name: 'amd-hub' },
      spec: {
        registry: 'docker.io',
        filters: [{ image: 'amdenterpriseai/aim-*', exclude: ['amdenterpriseai/aim-private-model'] }],
        versions: ['>=0.8.4'],
        maxModels: 3,
        syncInterval: '10m',
      },
    });
    const source = await sourceWhen('amd-hub', 'Ready', (s) => s.status?.status === 'Ready');
    // offered: qwen3-32b 0.8.5 and 0.8.4, qwen3-8b 0.8.5, llama 0.8.5 (0.8.3 and "latest" fail the constraint)
    assert.equal(source.status.availableModels, 4);
    assert.equal(source.status.discoveredModels, 3);
    assert.equal(source.status.modelsLimitReached, true);
    assert.match(source.status.lastSyncTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(cond(source, 'FiltersReady')?.reason, 'AllFiltersSucceeded');
    assert.equal(cond(source, 'MaxModelsLimitReached')?.status, 'True');
    assert.equal(source.status.observedGeneration, source.metadata.generation);

    const models = await modelsOf('amd-hub');
    assert.deepEqual(models.map((m) => m.spec.image).sort(), [
      'docker.io/amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.4',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.5',
    ]);
    for (const m of models) {
      assert.equal(m.metadata.ownerReferences?.[0]?.kind, 'AIMClusterModelSource');
      assert.equal(m.metadata.ownerReferences?.[0]?.name, 'amd-hub');
      assert.equal(m.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
      assert.equal(m.metadata.annotations?.['aim.eai.amd.com/source-registry'], 'docker.io');
    }
    // the models do what any AIMClusterModel does: metadata from the image labels, templates, Ready
    const llama = models.find((m) => m.spec.image.includes('llama'))!;
    await waitFor(
      'the llama model from the source Ready',
      async () => (await admin.get(AIMClusterModels, llama.metadata.name!)).status?.status === 'Ready',
      { timeoutMs: 30_000, detail: async () => (await admin.get(AIMClusterModels, llama.metadata.name!)).status },
    );
  });

  it('append-only: narrowing the filters keeps every model; raising maxModels adds the ones held back', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMClusterModelSource',
      metadata: { name: 'amd-hub' },
      spec: {
        registry: 'docker.io',
        filters: [{ image: 'amdenterpriseai/aim-qwen-*' }],
        versions: ['>=0.8.4'],
        maxModels: 4,
        syncInterval: '10m',
      },
    });
    const source = await sourceWhen(
      'amd-hub',
      'synced generation 2 with 4 models',
      (s) => s.status?.observedGeneration === 2 && s.status?.discoveredModels === 4,
    );
    assert.equal(source.status.availableModels, 3, 'the qwen images only');
    assert.equal(source.status.modelsLimitReached, false);
    assert.equal(cond(source, 'MaxModelsLimitReached')?.reason, 'WithinLimit');
    const images = (await modelsOf('amd-hub')).map((m) => m.spec.image).sort();
    assert.deepEqual(images, [
      'docker.io/amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.4',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-32b:0.8.5',
      'docker.io/amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
    ]);

    // a model deleted by hand comes back: the source still offers it
    const qwen8b = (await modelsOf('amd-hub')).find((m) => m.spec.image.endsWith('qwen3-8b:0.8.5'))!;
    await admin.delete(AIMClusterModels, qwen8b.metadata.name!);
    await waitFor('the deleted model recreated', async () => {
      const m = await admin.getOrUndefined(AIMClusterModels, qwen8b.metadata.name!);
      return m !== undefined && m.metadata.uid !== qwen8b.metadata.uid;
    });
  });

  it('a bad semver constraint and a bad registry: Failed, the condition names the field', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMClusterModelSource',
      metadata: { name: 'bad-constraint' },
      spec: { filters: [{ image: 'amdenterpriseai/aim-qwen-qwen3-8b', versions: ['>=0.8', 'newest'] }] },
    });
    const bad = await sourceWhen('bad-constraint', 'Failed', (s) => s.status?.status === 'Failed');
    assert.equal(cond(bad, 'FiltersReady')?.reason, 'AllFiltersFailed');
    assert.equal(cond(bad, 'ConfigValid')?.status, 'False');
    assert.match(
      cond(bad, 'Ready')?.message,
      /spec\.filters\[0\]\.versions\[1\] "newest" is not a valid semver constraint/,
    );
    assert.equal((await modelsOf('bad-constraint')).length, 0);

    await apply({
      apiVersion: API,
      kind: 'AIMClusterModelSource',
      metadata: { name: 'bad-registry' },
      spec: { registry: 'https://ghcr.io', filters: [{ image: 'amd/*' }] },
    });
    const reg = await sourceWhen('bad-registry', 'Failed', (s) => s.status?.status === 'Failed');
    assert.match(
      cond(reg, 'FiltersReady')?.message,
      /spec\.registry "https:\/\/ghcr\.io" must be a host\[:port\] without a URL scheme/,
    );
  });

  it('a private repository: AuthValid=False without credentials; a pull secret in the operator namespace opens it', async () => {
    const spec = { filters: [{ image: 'amdenterpriseai/aim-private-model' }], syncInterval: '10m' };
    await apply({ apiVersion: API, kind: 'AIMClusterModelSource', metadata: { name: 'private' }, spec });
    const denied = await sourceWhen('private', 'Failed', (s) => s.status?.status === 'Failed');
    assert.equal(cond(denied, 'AuthValid')?.status, 'False');
    assert.equal(cond(denied, 'AuthValid')?.reason, 'AuthError');
    assert.equal(cond(denied, 'Ready')?.reason, 'RegistryAuthFailed');
    assert.match(
      cond(denied, 'FiltersReady')?.message,
      /spec\.filters\[0\]\.image: listing the tags of docker\.io\/amdenterpriseai\/aim-private-model: .*401 UNAUTHORIZED.*anonymously/,
    );

    const auth = Buffer.from(`${SIM_REGISTRY_USERNAME}:${SIM_REGISTRY_PASSWORD}`).toString('base64');
    await apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'hub-creds', namespace: OPERATOR_NS },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': JSON.stringify({ auths: { 'docker.io': { auth } } }) },
    });
    await apply({
      apiVersion: API,
      kind: 'AIMClusterModelSource',
      metadata: { name: 'private' },
      spec: { ...spec, imagePullSecrets: [{ name: 'hub-creds' }] },
    });
    const open = await sourceWhen('private', 'Ready', (s) => s.status?.status === 'Ready');
    assert.equal(cond(open, 'AuthValid')?.status, 'True', 'the lazy condition stays, flipped back');
    const [model] = await modelsOf('private');
    assert.equal(model?.spec.image, 'docker.io/amdenterpriseai/aim-private-model:0.9.0');
    assert.deepEqual(model?.spec.imagePullSecrets, [{ name: 'hub-creds' }]);
    // the model reads its labels with the same secret (cluster-scoped: from the operator namespace)
    await waitFor(
      'the private model has its metadata',
      async () =>
        (await admin.get(AIMClusterModels, model!.metadata.name!)).status?.imageMetadata?.model?.canonicalName ===
        'example/private',
      { timeoutMs: 30_000, detail: async () => (await admin.get(AIMClusterModels, model!.metadata.name!)).status },
    );
  });
});
