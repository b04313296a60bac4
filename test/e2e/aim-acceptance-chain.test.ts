// AIMService acceptance scenarios through the whole chain (model → template → cache → artifact → PVC →
// InferenceService) on `modelplane dev`'s cluster with the `aim` controller set (docs/aim.md, "Acceptance
// scenarios"): a Shared cache deleted under a running service, the legacy caching mode Never, the profile id
// of a recommended deployment, and a custom model given inline. Each in its own namespace of one cluster.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import {
  AIM_API,
  cond,
  condSummary,
  type Json,
  Kinds,
  kubectlApply,
  type Obj,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';

const MISTRAL_IMAGE = 'amdenterpriseai/aim-mistralai-mistral-7b-instruct-v0-3:0.8.2';
const NAMESPACES = ['cache-shared', 'cache-never', 'profile-id', 'custom-model'];

const pvcClaims = (isvc: Obj): string[] =>
  ((isvc.spec.predictor.volumes ?? []) as Json[]).flatMap((v) =>
    v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName as string] : [],
  );

describe('AIMService acceptance scenarios through the whole chain', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const model = (ns: string, name: string, image: string) =>
    kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name, namespace: ns },
      spec: { image },
    });
  const service = (ns: string, name: string, spec: Json) =>
    kubectlApply(cluster, { apiVersion: AIM_API, kind: 'AIMService', metadata: { name, namespace: ns }, spec });
  const running = (ns: string, name: string, ok: (s: Obj) => boolean = () => true) =>
    waitForObject(admin, Kinds.Services, name, ns, 'Running', (s) => s.status?.status === 'Running' && ok(s), {
      timeoutMs: 60_000,
    });

  before(async () => {
    cluster = await startAimCluster('aim-acceptance-chain', { namespaces: NAMESPACES });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a Shared cache and its artifacts deleted under a running service: the InferenceService keeps its PVC volumes and the service stays Running (CacheRebuilding) while the cache is recreated, then CacheReady', async () => {
    const ns = 'cache-shared';
    await model(ns, 'test-model', QWEN8_IMAGE);
    await service(ns, 'cache-deleted-shared-svc', { model: { name: 'test-model' }, caching: { mode: 'Shared' } });
    const s = await running(ns, 'cache-deleted-shared-svc', (s) => cond(s, 'CacheReady')?.status === 'True');
    assert.equal(condSummary(s, 'CacheReady'), 'CacheReady=True/CacheReady');
    const cacheName = s.status?.cache?.templateCacheRef?.name as string;
    const cache = await admin.get(Kinds.Caches, cacheName, ns);
    const claimsBefore = pvcClaims(await admin.get(Kinds.InferenceServices, 'cache-deleted-shared-svc', ns));
    assert.ok(claimsBefore.length >= 1, 'the InferenceService mounts the cache PVC');

    const seen = new Set<string>();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const x = await admin.getOrUndefined(Kinds.Services, 'cache-deleted-shared-svc', ns);
        seen.add(`${x?.status?.status}/${cond(x, 'CacheReady')?.reason}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      for (const a of Object.values((cache.status?.artifacts ?? {}) as Record<string, Json>))
        await cluster.k(['delete', 'aimartifact', a.name, '-n', ns, '--wait=false']);
      await cluster.k(['delete', 'aimtemplatecache', cacheName, '-n', ns, '--wait=false']);
      const claimsAfter = pvcClaims(await admin.get(Kinds.InferenceServices, 'cache-deleted-shared-svc', ns));
      assert.deepEqual(claimsAfter, claimsBefore, 'the volumes stay while the cache is gone');
      await waitFor('the service to report the cache being rebuilt', () => seen.has('Running/CacheRebuilding'), {
        detail: () => [...seen],
      });
      const back = await waitForObject(
        admin,
        Kinds.Caches,
        cacheName,
        ns,
        'recreated and Ready',
        (c) => c.metadata.uid !== cache.metadata.uid && c.status?.status === 'Ready',
        { timeoutMs: 60_000 },
      );
      assert.equal(back.metadata.ownerReferences, undefined, 'a Shared cache has no owner');
      await running(ns, 'cache-deleted-shared-svc', (x) => cond(x, 'CacheReady')?.reason === 'CacheReady');
    } finally {
      sampling = false;
      await sampler;
    }
    // decision (docs/aim.md): a cache rebuilt under a running predictor is upstream noise for the service
    assert.deepEqual(
      [...seen].filter((v) => !v.startsWith('Running/')),
      [],
      `the service stays Running while its cache comes back; seen: ${[...seen].join(', ')}`,
    );
    assert.deepEqual(
      pvcClaims(await admin.get(Kinds.InferenceServices, 'cache-deleted-shared-svc', ns)),
      claimsBefore,
      'the workload was not disrupted',
    );
  });

  it('caching mode Never (legacy): model and template resolved, a Dedicated cache owned by the service, Running', async () => {
    const ns = 'cache-never';
    await model(ns, 'test-no-cache-model', QWEN8_IMAGE);
    await service(ns, 'test-no-cache-service', { model: { name: 'test-no-cache-model' }, caching: { mode: 'Never' } });
    const s = await running(ns, 'test-no-cache-service');
    assert.equal(s.status?.resolvedModel?.name, 'test-no-cache-model');
    assert.ok(s.status?.resolvedTemplate?.name);
    assert.equal(cond(s, 'ModelReady')?.status, 'True');
    assert.equal(cond(s, 'TemplateReady')?.status, 'True');
    const cache = await admin.get(Kinds.Caches, s.status?.cache?.templateCacheRef?.name, ns);
    assert.equal(cache.spec.mode, 'Dedicated', 'Never means Dedicated');
    assert.equal(cache.metadata.ownerReferences?.[0]?.uid, s.metadata.uid, 'owned by the service');
    const isvc = await admin.get(Kinds.InferenceServices, 'test-no-cache-service', ns);
    assert.equal(isvc.metadata.labels?.['aim.eai.amd.com/service'], 'test-no-cache-service');
  });

  it("profile id: a recommended deployment's profileId reaches the template and the InferenceService as AIM_PROFILE_ID", async () => {
    const ns = 'profile-id';
    await model(ns, 'mistral', MISTRAL_IMAGE);
    await service(ns, 'test-profile-id', { model: { name: 'mistral' } });
    const s = await running(ns, 'test-profile-id');
    const template = await admin.get(Kinds.Templates, s.status?.resolvedTemplate?.name, ns);
    assert.equal(template.spec.profileId, 'mi300x-fp16-throughput');
    const isvc = await admin.get(Kinds.InferenceServices, 'test-profile-id', ns);
    const container = (isvc.spec.predictor.containers as Json[]).find((c) => c.name === 'kserve-container')!;
    assert.deepEqual(
      (container.env as Json[]).filter((e) => e.name === 'AIM_PROFILE_ID'),
      [{ name: 'AIM_PROFILE_ID', value: 'mi300x-fp16-throughput' }],
    );
  });

  it('custom model inline: an AIMModel (custom, auto-generated) and its template with the inline sources are created; the service resolves both, caches the source and runs the base image', async () => {
    const ns = 'custom-model';
    const custom = {
      baseImage: QWEN8_IMAGE,
      modelSources: [{ modelId: 'inline/test-model', sourceUri: 'hf://sshleifer/tiny-gpt2' }],
      hardware: { gpu: { requests: 1 } },
    };
    await service(ns, 'test-inline-custom-model', {
      model: { custom },
      template: { allowUnoptimized: true },
      replicas: 1,
    });
    const models = await waitForObject(admin, Kinds.Services, 'test-inline-custom-model', ns, 'a model resolved', (s) =>
      Boolean(s.status?.resolvedModel?.name),
    );
    const m = await waitForObject(
      admin,
      Kinds.Models,
      models.status?.resolvedModel?.name,
      ns,
      'Ready',
      (m) => m.status?.status === 'Ready',
    );
    assert.equal(m.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
    assert.equal(m.metadata.labels?.['aim.eai.amd.com/custom-model'], 'true');
    assert.equal(m.metadata.ownerReferences, undefined, 'it outlives the service');
    assert.equal(m.spec.image, QWEN8_IMAGE);
    assert.deepEqual(m.spec.modelSources, custom.modelSources);
    assert.deepEqual(m.spec.custom, { hardware: custom.hardware });
    assert.equal(m.status?.sourceType, 'Custom');
    const templates = (await admin.list(Kinds.Templates, { namespace: ns })).items;
    assert.equal(templates.length, 1);
    const t = templates[0]!;
    assert.equal(t.metadata.labels?.['aim.eai.amd.com/origin'], 'auto-generated');
    assert.deepEqual(t.spec.hardware, custom.hardware);
    assert.deepEqual(t.spec.modelSources, custom.modelSources);
    const s = await running(ns, 'test-inline-custom-model');
    assert.equal(s.status?.resolvedTemplate?.name, t.metadata.name);
    assert.equal(condSummary(s, 'ModelReady'), 'ModelReady=True/ModelResolved');
    assert.equal(condSummary(s, 'TemplateReady'), 'TemplateReady=True/Resolved');
    const isvc = await admin.get(Kinds.InferenceServices, 'test-inline-custom-model', ns);
    assert.equal(isvc.spec.predictor.containers[0].image, QWEN8_IMAGE);
    assert.ok(
      (isvc.spec.predictor.containers[0].volumeMounts as Json[]).some(
        (v) => v.mountPath === '/workspace/cache/inline/test-model',
      ),
      'the inline source is cached and mounted',
    );
  });
});
