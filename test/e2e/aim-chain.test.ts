// The AIM model chain on `modelplane dev`'s cluster (simulated registry, nodes with MI300X labels, Jobs
// whose pods print what AIM images print), with the whole `aim` controller set in its own Manager:
// model → templates (discovery, GPU gating) → cache → artifact → PVC → InferenceService.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aimControllerSet } from '../../src/controllers/aim/index.ts';
import { AIMModels, AIMServiceTemplates } from '../../src/controllers/aim/shared/kinds.ts';
import { type KubeClient, type KubeObject, kindRef, Logger, parseLogLevel } from '../../src/kube/index.ts';
import { SimRegistry } from '../../src/sim/registry/index.ts';
import { type OperatorTestCluster, startOperatorTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const API = 'aim.eai.amd.com/v1alpha1';
const NS = 'chain';
const OPERATOR_NS = 'aim-system';
const QWEN = 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5';
const LLAMA = 'amdenterpriseai/aim-meta-llama-llama-3-1-8b-instruct:0.8.5';
const log = new Logger({}, parseLogLevel(process.env.AIM_TEST_LOG, 'silent'));
const Jobs = kindRef<KubeObject & { status?: any }>('batch/v1', 'Job');
const Nodes = kindRef<KubeObject>('v1', 'Node');

type Json = Record<string, any>;
const cond = (o: { status?: unknown } | undefined, type: string): Json | undefined => ((o?.status as Json | undefined)?.conditions as Json[] | undefined)?.find((c) => c.type === type);

describe('AIM model chain on the dev cluster', { timeout: 120_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let admin: KubeClient;
  const apply = (obj: object) => cluster.k(['apply', '-f', '-'], JSON.stringify(obj));
  const templatesOf = async (model: string) => (await admin.list(AIMServiceTemplates, { namespace: NS })).items.filter((t) => t.spec.modelName === model);

  before(async () => {
    cluster = await startOperatorTestCluster({
      name: 'aim-chain',
      log,
      namespaces: [NS, OPERATOR_NS],
      register: (mgr) => aimControllerSet().register(mgr, { operatorNamespace: OPERATOR_NS, podNamespace: 'modelplane-system', log, imageRegistry: new SimRegistry() }),
    });
    admin = cluster.admin;
  });
  after(() => cluster?.stop());

  it('a model by image: metadata from the registry labels, one template per recommended deployment, discovery Jobs, Ready templates and model', async () => {
    await apply({ apiVersion: API, kind: 'AIMModel', metadata: { name: 'qwen', namespace: NS }, spec: { image: QWEN } });
    const model = await waitFor('model qwen Ready', async () => {
      const m = await admin.get(AIMModels, 'qwen', NS);
      return m.status?.status === 'Ready' ? m : undefined;
    }, { timeoutMs: 30_000, detail: async () => ({ model: (await admin.get(AIMModels, 'qwen', NS)).status, templates: (await templatesOf('qwen')).map((t) => t.status) }) });
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
    const jobs = (await admin.list(Jobs, { namespace: NS })).items.filter((j) => j.metadata.labels?.['app.kubernetes.io/name'] === 'aim-discovery');
    assert.equal(jobs.length, 2);
    assert.deepEqual((jobs[0]!.spec as Json).template.spec.containers[0].args, ['dry-run', '--format=json']);
  });

  it('a template needing a GPU no node has is NotAvailable; labelling a node flips it to Ready, unlabelling back', async () => {
    await apply({ apiVersion: API, kind: 'AIMModel', metadata: { name: 'llama', namespace: NS }, spec: { image: LLAMA } });
    const mi355 = await waitFor('the MI355X template NotAvailable', async () => (await templatesOf('llama')).find((t) => t.spec.hardware?.gpu?.model === 'MI355X' && t.status?.status === 'NotAvailable'), { timeoutMs: 30_000 });
    assert.equal(cond(mi355, 'GPUReady')?.reason, 'GPUNotAvailable');
    const model = await waitFor('model llama Ready with some templates', async () => {
      const m = await admin.get(AIMModels, 'llama', NS);
      return m.status?.status === 'Ready' ? m : undefined;
    });
    assert.equal(cond(model, 'ServiceTemplatesReady')?.reason, 'SomeTemplatesReady');
    const node = (await admin.list(Nodes)).items.find((n) => n.metadata.name?.startsWith('cpu-node'))!;
    await cluster.k(['label', 'node', node.metadata.name!, 'amd.com/gpu.device-id=75a3']);
    await waitFor('the MI355X template Ready after the relabel', async () => (await admin.get(AIMServiceTemplates, mi355.metadata.name!, NS)).status?.status === 'Ready');
    await cluster.k(['label', 'node', node.metadata.name!, 'amd.com/gpu.device-id-']);
    await waitFor('NotAvailable again', async () => (await admin.get(AIMServiceTemplates, mi355.metadata.name!, NS)).status?.status === 'NotAvailable');
  });
});
