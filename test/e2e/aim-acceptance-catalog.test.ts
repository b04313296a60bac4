// Acceptance scenarios of the AIM catalogue kinds (templates, caches, artifacts) on `modelplane dev`'s cluster
// with the whole `aim` controller set, each in its own namespace of one shared cluster (docs/aim.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '../../src/kube/index.ts';
import type { OperatorTestCluster } from '../helpers/dev-cluster.ts';
import {
  AIM_API,
  condSummary,
  Kinds,
  kubectlApply,
  QWEN8_IMAGE,
  startAimCluster,
  waitForObject,
} from './helpers/aim-cluster.ts';

const NAMESPACES = ['cache-no-template', 'min-vram'];

describe('AIM catalogue acceptance scenarios on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;

  before(async () => {
    cluster = await startAimCluster('aim-acceptance-catalog', { namespaces: NAMESPACES });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a template cache whose template does not exist: Failed, Ready=False/ReferenceNotFound, ServiceTemplateReady=False/ReferenceNotFound', async () => {
    const ns = 'cache-no-template';
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMTemplateCache',
      metadata: { name: 'failure-service-template-not-found', namespace: ns },
      spec: { templateName: 'not-existing', templateScope: 'Namespace' },
    });
    const c = await waitForObject(
      admin,
      Kinds.Caches,
      'failure-service-template-not-found',
      ns,
      'Failed',
      (c) => c.status?.status === 'Failed',
    );
    assert.equal(condSummary(c, 'Ready'), 'Ready=False/ReferenceNotFound');
    assert.equal(condSummary(c, 'ServiceTemplateReady'), 'ServiceTemplateReady=False/ReferenceNotFound');
    assert.equal((await admin.list(Kinds.Artifacts, { namespace: ns })).items.length, 0, 'no artifact created');
  });

  it('minVram: a template asking for VRAM a node has is Ready with resolvedHardware.gpu {requests: 1, minVram: 64Gi} and GPUReady=True/GPUAvailable; one asking for 1Ti is NotAvailable with GPUReady=False/VRAMNotAvailable', async () => {
    const ns = 'min-vram';
    await kubectlApply(cluster, {
      apiVersion: AIM_API,
      kind: 'AIMModel',
      metadata: { name: 'test-min-vram-model', namespace: ns },
      spec: { image: QWEN8_IMAGE, discovery: { createServiceTemplates: false } },
    });
    const template = (name: string, minVram: string) => ({
      apiVersion: AIM_API,
      kind: 'AIMServiceTemplate',
      metadata: { name, namespace: ns },
      spec: { modelName: 'test-min-vram-model', hardware: { gpu: { requests: 1, minVram } } },
    });
    await kubectlApply(cluster, template('test-min-vram-template', '64Gi'));
    const t = await waitForObject(
      admin,
      Kinds.Templates,
      'test-min-vram-template',
      ns,
      'Ready',
      (t) => t.status?.status === 'Ready',
    );
    assert.equal(t.status?.resolvedHardware?.gpu?.requests, 1);
    assert.equal(t.status?.resolvedHardware?.gpu?.minVram, '64Gi');
    assert.equal(condSummary(t, 'GPUReady'), 'GPUReady=True/GPUAvailable');
    await kubectlApply(cluster, template('test-min-vram-too-high', '1Ti'));
    const high = await waitForObject(
      admin,
      Kinds.Templates,
      'test-min-vram-too-high',
      ns,
      'NotAvailable',
      (t) => t.status?.status === 'NotAvailable',
    );
    assert.equal(condSummary(high, 'GPUReady'), 'GPUReady=False/VRAMNotAvailable');
  });
});
