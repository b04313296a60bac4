// The AIM model chain on `modelplane dev`'s cluster (simulated registry, nodes with MI300X labels, Jobs
// whose pods print what AIM images print), with the whole `aim` controller set in its own Manager:
// model → templates (discovery, GPU gating) → cache → artifact → PVC → InferenceService.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { EventsV1 } from '@modelplane/runtime/events';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { AIMModels, AIMServiceTemplates } from '../../src/controllers/aim/shared/kinds.ts';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { cond, type Json, startAimCluster } from './helpers/aim-cluster.ts';

const API = 'aim.eai.amd.com/v1alpha1';
const NS = 'chain';
const QWEN = 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5';
const LLAMA = 'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5';
const Jobs = kindRef<KubeObject & { status?: any }>('batch/v1', 'Job');
const Nodes = kindRef<KubeObject>('v1', 'Node');

const startAimChainCluster = (name: string) => startAimCluster(name, { namespaces: [NS] });

describe('AIM model chain on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const templatesOf = async (model: string) =>
    (await admin.list(AIMServiceTemplates, { namespace: NS })).items.filter((t) => t.spec.modelName === model);

  before(async () => {
    cluster = await startAimChainCluster('aim-chain');
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a model by image: metadata from the registry labels, one template per recommended deployment, discovery Jobs, Ready templates and model', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMModel',
      metadata: { name: 'qwen', namespace: NS },
      spec: { image: QWEN },
    });
    const model = await waitFor(
      'model qwen Ready',
      async () => {
        const m = await admin.get(AIMModels, 'qwen', NS);
        return m.status?.status === 'Ready' ? m : undefined;
      },
      {
        timeoutMs: 30_000,
        detail: async () => ({
          model: (await admin.get(AIMModels, 'qwen', NS)).status,
          templates: (await templatesOf('qwen')).map((t) => t.status),
        }),
      },
    );
    assert.equal(model.status?.imageMetadata?.model?.canonicalName, 'Qwen/Qwen3-32B');
    assert.equal(cond(model, 'ServiceTemplatesReady')?.reason, 'AllTemplatesReady');
    const templates = await templatesOf('qwen');
    assert.equal(templates.length, 2);
    for (const t of templates) {
      assert.equal(t.status?.status, 'Ready');
      assert.equal(t.status?.profile?.metadata?.gpu, 'MI300X');
      assert.equal(t.status?.modelSources?.[0]?.sourceUri, 'hf://Qwen/Qwen3-32B');
      assert.equal(t.status?.hardwareSummary, '1 x MI300X');
      assert.equal(cond(t, 'GPUReady')?.reason, 'GPUAvailable');
      assert.equal(t.metadata.ownerReferences?.[0]?.name, 'qwen');
    }
    const jobs = (await admin.list(Jobs, { namespace: NS })).items.filter(
      (j) => j.metadata.labels?.['app.kubernetes.io/name'] === 'aim-discovery',
    );
    assert.equal(jobs.length, 2);
    assert.deepEqual((jobs[0]!.spec as Json).template.spec.containers[0].args, ['dry-run', '--format=json']);
  });

  it('a template needing a GPU no node has is NotAvailable; labelling a node flips it to Ready, unlabelling back', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMModel',
      metadata: { name: 'llama', namespace: NS },
      spec: { image: LLAMA },
    });
    const mi355 = await waitFor(
      'the MI355X template NotAvailable',
      async () =>
        (await templatesOf('llama')).find(
          (t) => t.spec.hardware?.gpu?.model === 'MI355X' && t.status?.status === 'NotAvailable',
        ),
      { timeoutMs: 30_000 },
    );
    assert.equal(cond(mi355, 'GPUReady')?.reason, 'GPUNotAvailable');
    const model = await waitFor('model llama Ready with some templates', async () => {
      const m = await admin.get(AIMModels, 'llama', NS);
      return m.status?.status === 'Ready' ? m : undefined;
    });
    assert.equal(cond(model, 'ServiceTemplatesReady')?.reason, 'SomeTemplatesReady');
    const node = (await admin.list(Nodes)).items.find((n) => n.metadata.name?.startsWith('cpu-node'))!;
    await cluster.k(['label', 'node', node.metadata.name!, 'amd.com/gpu.device-id=75a3']);
    await waitFor(
      'the MI355X template Ready after the relabel',
      async () => (await admin.get(AIMServiceTemplates, mi355.metadata.name!, NS)).status?.status === 'Ready',
    );
    await cluster.k(['label', 'node', node.metadata.name!, 'amd.com/gpu.device-id-']);
    await waitFor(
      'NotAvailable again',
      async () => (await admin.get(AIMServiceTemplates, mi355.metadata.name!, NS)).status?.status === 'NotAvailable',
    );
  });
});

describe('AIM caches and artifacts on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const Caches = kindRef<KubeObject & { spec: Json; status?: Json }>(API, 'AIMTemplateCache');
  const Artifacts = kindRef<KubeObject & { spec: Json; status?: Json }>(API, 'AIMArtifact');
  const Pvcs = kindRef<KubeObject & { spec: Json; status?: Json }>('v1', 'PersistentVolumeClaim');

  before(async () => {
    cluster = await startAimChainCluster('aim-cache');
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a template with caching: cache → artifact → check-size → PVC (size + headroom, class from the runtime config) → download → Ready; labels propagate to the Jobs and their pods', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'default', namespace: NS },
      spec: {
        storage: { defaultStorageClassName: 'standard', pvcHeadroomPercent: 20 },
        labelPropagation: { enabled: true, match: ['org.example/*'] },
        env: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'HTTP,XET' }],
      },
    });
    await apply({
      apiVersion: API,
      kind: 'AIMModel',
      metadata: { name: 'qwen8', namespace: NS },
      spec: { image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5', discovery: { createServiceTemplates: false } },
    });
    await apply({
      apiVersion: API,
      kind: 'AIMServiceTemplate',
      metadata: { name: 'qwen8-cached', namespace: NS, labels: { 'org.example/team': 'ml', env: 'test' } },
      spec: {
        modelName: 'qwen8',
        caching: { enabled: true, env: [{ name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET,HTTP' }] },
        hardware: { gpu: { requests: 1, model: 'MI300X' } },
      },
    });
    const cache = await waitFor(
      'cache Ready',
      async () => {
        const c = await admin.getOrUndefined(Caches, 'qwen8-cached', NS);
        return c?.status?.status === 'Ready' ? c : undefined;
      },
      {
        timeoutMs: 40_000,
        detail: async () => ({
          cache: (await admin.getOrUndefined(Caches, 'qwen8-cached', NS))?.status,
          artifacts: (await admin.list(Artifacts, { namespace: NS })).items.map((a) => a.status),
        }),
      },
    );
    assert.equal(cache.metadata.labels?.['org.example/team'], 'ml', 'template → cache');
    assert.equal(cache.metadata.labels?.env, undefined, 'a label not matched is not propagated');
    assert.equal(cache.status?.resolvedRuntimeConfig?.name, 'default', 'the cache resolves its runtime config');
    const entries = Object.values(cache.status?.artifacts ?? {}) as Json[];
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.mountPoint, '/workspace/cache/Qwen/Qwen3-8B');
    const artifact = await admin.get(Artifacts, entries[0]!.name, NS);
    assert.equal(artifact.metadata.labels?.['org.example/team'], 'ml', 'cache → artifact');
    assert.equal(artifact.status?.mode, 'Shared');
    assert.equal(artifact.status?.resolvedRuntimeConfig?.kind, 'AIMRuntimeConfig', 'and so does the artifact');
    assert.equal(artifact.status?.progress?.displayPercentage, '100 %');
    assert.equal(
      artifact.status?.download?.protocol,
      'XET',
      'the artifact env (from caching.env) wins over the runtime config',
    );
    assert.equal(artifact.spec.size, '16400000000', 'the size the discovery reported for the source');
    const pvc = await admin.get(Pvcs, artifact.status?.persistentVolumeClaim, NS);
    assert.equal(pvc.spec.resources.requests.storage, '19Gi', '16.4 GB × 1.2 rounded up to whole GiB');
    assert.equal(pvc.spec.storageClassName, 'standard');
    assert.deepEqual(pvc.spec.accessModes, ['ReadWriteMany'], 'RWX by default: a Shared cache mounts on every node');
    assert.equal(pvc.metadata.labels?.['org.example/team'], 'ml', 'artifact → PVC');
    const jobs = (await admin.list(Jobs, { namespace: NS })).items.filter(
      (j) => j.metadata.labels?.['aim.eai.amd.com/artifact'] === artifact.metadata.name,
    );
    assert.equal(jobs.length, 1, 'the size is known: only the download Job');
    for (const j of jobs) {
      assert.equal(j.metadata.labels?.['org.example/team'], 'ml', 'artifact → Job');
      assert.equal((j.spec as Json).template.metadata.labels['org.example/team'], 'ml', "and the Job's pod template");
    }
  });

  it('a gated source fails with AuthError and progress N/A, and records when it failed (the retry waits from there)', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMArtifact',
      metadata: { name: 'gated', namespace: NS },
      spec: { sourceUri: 'hf://meta-llama/gated-llama', size: '1Gi' },
    });
    // the reason comes from the downloader's log, read once the Job has failed (on a real API server through
    // the kubelet a moment later): until then a Failed artifact may say DownloadFailed
    const a = await waitFor(
      'artifact Failed with AuthError',
      async () => {
        const x = await admin.get(Artifacts, 'gated', NS);
        return x.status?.status === 'Failed' && cond(x, 'Ready')?.reason === 'AuthError' ? x : undefined;
      },
      { timeoutMs: 30_000 },
    );
    assert.equal(a.status?.progress?.displayPercentage, 'N/A');
    assert.equal(cond(a, 'AuthValid')?.status, 'False');
    assert.equal(cond(a, 'DownloadJobReady')?.status, 'False');
    assert.ok(a.status?.lastFailureTime);
  });

  it('protocol switching: a failing protocol is skipped for the next one, and status names the protocol used', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMArtifact',
      metadata: { name: 'switching', namespace: NS },
      spec: {
        sourceUri: 'hf://Qwen/Qwen3-8B',
        env: [
          { name: 'AIM_DOWNLOADER_PROTOCOL', value: 'XET,HF_TRANSFER,HTTP' },
          { name: 'AIM_DEBUG_SIMULATE_HF_FAIL_PROTOCOLS', value: 'XET,HF_TRANSFER' },
        ],
      },
    });
    const a = await waitFor(
      'artifact Ready',
      async () => {
        const x = await admin.get(Artifacts, 'switching', NS);
        return x.status?.status === 'Ready' ? x : undefined;
      },
      {
        timeoutMs: 30_000,
        detail: async () => ({
          status: (await admin.get(Artifacts, 'switching', NS)).status,
          jobs: (await admin.list(Jobs, { namespace: NS })).items.map((j) => [j.metadata.name, j.status]),
        }),
      },
    );
    assert.equal(a.status?.download?.protocol, 'HTTP');
    assert.equal(a.status?.download?.attempt, 3);
    assert.equal(a.status?.download?.protocolSequence, 'XET,HF_TRANSFER,HTTP');
    assert.equal(a.status?.discoveredSizeBytes, 16_400_000_000, 'no spec.size: a check-size Job measured it');
  });
});

describe('AIMService through the whole chain on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const Services = kindRef<KubeObject & { spec: Json; status?: Json }>(API, 'AIMService');
  const Isvcs = kindRef<KubeObject & { spec: Json; status?: Json }>('serving.kserve.io/v1beta1', 'InferenceService');
  const Caches = kindRef<KubeObject & { spec: Json; status?: Json }>(API, 'AIMTemplateCache');
  const Pods = kindRef<KubeObject & { spec: Json; status?: Json }>('v1', 'Pod');

  before(async () => {
    cluster = await startAimChainCluster('aim-service-chain');
    admin = cluster.admin;
    await apply({
      apiVersion: API,
      kind: 'AIMRuntimeConfig',
      metadata: { name: 'default', namespace: NS },
      spec: { labelPropagation: { enabled: true, match: ['org.example/*'] } },
    });
  });
  after(() => cluster?.stop());

  it('by image: model → templates → selection → Shared cache → artifact → PVC → InferenceService mounting it → Running; labels down the chain', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMService',
      metadata: { name: 'chat', namespace: NS, labels: { 'org.example/cost-center': 'eng-ml', env: 'test' } },
      spec: { model: { image: QWEN } },
    });
    const svc = await waitFor(
      'service Running',
      async () => {
        const s = await admin.get(Services, 'chat', NS);
        return s.status?.status === 'Running' ? s : undefined;
      },
      { timeoutMs: 60_000, detail: async () => (await admin.get(Services, 'chat', NS)).status },
    );
    assert.equal(cond(svc, 'TemplateReady')?.reason, 'Resolved');
    assert.equal(cond(svc, 'CacheReady')?.reason, 'CacheReady');
    assert.equal(svc.status?.resolvedTemplate?.scope, 'Namespace');
    assert.match(svc.status?.resolvedTemplate?.name, /1x-mi300x-lat-fp8/, 'latency ranks before throughput');
    const cacheName = svc.status?.cache?.templateCacheRef?.name;
    const cache = await admin.get(Caches, cacheName, NS);
    assert.equal(cache.spec.mode, 'Shared');
    assert.equal(cache.metadata.ownerReferences, undefined, 'a Shared cache has no owner');
    assert.equal(cache.metadata.labels?.['org.example/cost-center'], 'eng-ml', 'service → cache');
    const isvc = await admin.get(Isvcs, 'chat', NS);
    const predictor = isvc.spec.predictor;
    const claim = predictor.volumes.find((v: Json) => v.persistentVolumeClaim)?.persistentVolumeClaim.claimName;
    assert.ok(claim, 'the cache PVC is mounted');
    assert.ok(
      predictor.containers[0].volumeMounts.some((m: Json) => m.mountPath === '/workspace/cache/Qwen/Qwen3-32B'),
    );
    assert.ok(predictor.containers[0].env.some((e: Json) => e.name === 'AIM_METRIC' && e.value === 'latency'));
    assert.equal(isvc.metadata.labels?.['org.example/cost-center'], 'eng-ml');
    assert.equal(isvc.metadata.labels?.env, undefined);
    const pods = (await admin.list(Pods, { namespace: NS })).items.filter(
      (p) => p.metadata.labels?.['serving.kserve.io/inferenceservice'] === 'chat',
    );
    assert.ok(
      pods.length > 0 && pods.every((p) => p.metadata.labels?.['org.example/cost-center'] === 'eng-ml'),
      'and the predictor pods',
    );
  });

  it('a second service on the same image shares the model, template and cache', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMService',
      metadata: { name: 'chat-2', namespace: NS },
      spec: { model: { image: QWEN } },
    });
    const svc = await waitFor(
      'second service Running',
      async () => {
        const s = await admin.get(Services, 'chat-2', NS);
        return s.status?.status === 'Running' ? s : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const first = await admin.get(Services, 'chat', NS);
    assert.equal(svc.status?.cache?.templateCacheRef?.name, first.status?.cache?.templateCacheRef?.name);
    assert.equal(svc.status?.resolvedModel?.name, first.status?.resolvedModel?.name);
  });

  it('two templates that rank equally: TemplateSelectionAmbiguous naming both, nothing created', async () => {
    await apply({
      apiVersion: API,
      kind: 'AIMModel',
      metadata: { name: 'twin', namespace: NS },
      spec: { image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5', discovery: { createServiceTemplates: false } },
    });
    for (const name of ['twin-a', 'twin-b']) {
      await apply({
        apiVersion: API,
        kind: 'AIMServiceTemplate',
        metadata: { name, namespace: NS },
        spec: {
          modelName: 'twin',
          metric: 'latency',
          precision: 'fp16',
          hardware: { gpu: { requests: 1, model: 'MI300X' } },
        },
      });
    }
    await apply({
      apiVersion: API,
      kind: 'AIMService',
      metadata: { name: 'twin-svc', namespace: NS },
      spec: { model: { name: 'twin' } },
    });
    const svc = await waitFor(
      'ambiguous',
      async () => {
        const s = await admin.get(Services, 'twin-svc', NS);
        return cond(s, 'TemplateReady')?.reason === 'TemplateSelectionAmbiguous' ? s : undefined;
      },
      { timeoutMs: 30_000, detail: async () => (await admin.get(Services, 'twin-svc', NS)).status },
    );
    assert.match(cond(svc, 'TemplateReady')?.message, /AIMServiceTemplate twin-a, AIMServiceTemplate twin-b/);
    assert.equal(svc.status?.status, 'Pending');
    assert.equal(await admin.getOrUndefined(Isvcs, 'twin-svc', NS), undefined);
    // the user has to act: a Warning event, never a Normal one
    const ambiguity = await waitFor('the TemplateSelectionAmbiguous event', async () =>
      (await admin.list(EventsV1, { namespace: NS })).items
        .filter((e) => e.reason === 'TemplateSelectionAmbiguous' && e.regarding?.name === 'twin-svc')
        .find(() => true),
    );
    assert.equal(ambiguity.type, 'Warning');
  });
});
