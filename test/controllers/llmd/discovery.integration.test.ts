// A ModelDeployment or AIMService annotated llm-d.ai/managed: "true" gets its VariantAutoscaling: the pure
// planner's table, and the controller on the test cluster (created owned, removed with the annotation).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureCrd } from '@modelplane/runtime/crd';
import { rootLogger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KubeObject } from '@modelplane/runtime/meta';
import { startCluster, type TestCluster } from '@modelplane/runtime/testing';
import { kubeairunwayCrds } from '../../../src/apis/kubeairunway/index.ts';
import { variantAutoscalingCrd } from '../../../src/apis/llmd/index.ts';
import {
  type Parent,
  planVariantAutoscaling,
  type ServingDeployment,
} from '../../../src/controllers/llmd/discovery/plan.ts';
import { type Autoscaler, registerAutoscaler } from '../../../src/controllers/llmd/index.ts';
import { VariantAutoscalings } from '../../../src/controllers/llmd/kinds.ts';
import { waitFor } from '../../helpers/wait.ts';
import { namespaces, SettableMetrics, WVA_NS } from './fixture.ts';

const md = (annotations: Record<string, string>): Parent => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name: 'llama', namespace: 'ns', annotations },
  spec: { model: { id: 'meta-llama/Llama-3.1-8B-Instruct' } },
});
const dep = (name: string, labels: Record<string, string>, gpu = 'nvidia.com/gpu'): ServingDeployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ns' },
  spec: { template: { metadata: { labels }, spec: { containers: [{ resources: { limits: { [gpu]: 1 } } }] } } },
});
const mine = { 'kubeairunway.ai/model-deployment': 'llama' };

describe('planVariantAutoscaling', () => {
  it('off without the annotation', () =>
    assert.deepEqual(planVariantAutoscaling(md({}), [dep('w', mine)]), { off: true }));
  it('the worker Deployment, the model ID, defaults and the accelerator from the GPU resource', () => {
    const out = planVariantAutoscaling(md({ 'llm-d.ai/managed': 'true' }), [
      dep('llama-frontend', { ...mine, 'nvidia.com/dynamo-component-type': 'frontend' }),
      dep('llama-vllmworker', { ...mine, 'nvidia.com/dynamo-component-type': 'worker' }),
      dep('other', {}),
    ]);
    assert.ok('va' in out);
    const va = out.va as KubeObject & { spec: Record<string, unknown> };
    assert.deepEqual(va.spec, {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'llama-vllmworker' },
      modelID: 'meta-llama/Llama-3.1-8B-Instruct',
      variantCost: '10.0',
      minReplicas: 1,
      maxReplicas: 10,
    });
    assert.equal(va.metadata.labels?.['inference.optimization/acceleratorName'], 'NVIDIA-GPU');
  });
  it('annotations override model ID, cost, bounds and accelerator', () => {
    const out = planVariantAutoscaling(
      md({
        'llm-d.ai/managed': 'true',
        'llm-d.ai/model-id': 'llama',
        'llm-d.ai/variant-cost': '25.5',
        'llm-d.ai/min-replicas': '0',
        'llm-d.ai/max-replicas': '3',
        'llm-d.ai/accelerator': 'H100',
      }),
      [dep('w', mine)],
    );
    assert.ok('va' in out);
    assert.deepEqual((out.va as unknown as { spec: Record<string, unknown> }).spec, {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'w' },
      modelID: 'llama',
      variantCost: '25.5',
      minReplicas: 0,
      maxReplicas: 3,
    });
    assert.equal(out.va.metadata.labels?.['inference.optimization/acceleratorName'], 'H100');
  });
  it('waits for a serving Deployment', () =>
    assert.ok('waiting' in planVariantAutoscaling(md({ 'llm-d.ai/managed': 'true' }), [])));
  const invalid: Array<[Record<string, string>, RegExp]> = [
    [{ 'llm-d.ai/variant-cost': 'cheap' }, /llm-d.ai\/variant-cost is "cheap"/],
    [{ 'llm-d.ai/max-replicas': '0' }, /llm-d.ai\/max-replicas is "0"; it must be an integer >= 1/],
    [
      { 'llm-d.ai/min-replicas': '5', 'llm-d.ai/max-replicas': '2' },
      /max-replicas \(2\) is below llm-d.ai\/min-replicas \(5\)/,
    ],
  ];
  for (const [ann, message] of invalid) {
    it(`rejects ${JSON.stringify(ann)} naming the annotation`, () => {
      const out = planVariantAutoscaling(md({ 'llm-d.ai/managed': 'true', ...ann }), [dep('w', mine)]);
      assert.ok('invalid' in out);
      assert.match(out.invalid, message);
      assert.match(out.invalid, /^ModelDeployment ns\/llama: /);
    });
  }
});

describe('discovery controller on the test cluster', () => {
  let cluster: TestCluster;
  let mgr: Manager;
  let autoscaler: Autoscaler;
  const quiet = rootLogger().child({ test: 'discovery' });
  before(async () => {
    cluster = await startCluster({ operatorUser: 'wva-controller' });
    for (const crd of [...kubeairunwayCrds(), variantAutoscalingCrd()]) await ensureCrd(cluster.admin, crd);
    await namespaces(cluster.admin, WVA_NS, 'ns');
    mgr = await Manager.create({ kubeconfig: cluster.operatorKubeconfig, logger: quiet });
    autoscaler = await registerAutoscaler(
      mgr,
      {
        namespace: WVA_NS,
        configMapName: 'a',
        saturationConfigMapName: 'b',
        metricsSource: new SettableMetrics(),
        autoStart: false,
      },
      quiet,
    );
    await mgr.start();
  });
  after(async () => {
    await mgr?.stop();
    await cluster?.close();
  });

  it('creates the VariantAutoscaling owned by the annotated ModelDeployment and deletes it when the annotation goes', async () => {
    assert.ok(autoscaler.engine);
    const created = await cluster.admin.apply({
      ...md({ 'llm-d.ai/managed': 'true' }),
      spec: { model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' } },
    } as KubeObject);
    await cluster.admin.apply({
      ...dep('llama-vllmworker', mine),
      spec: {
        selector: { matchLabels: mine },
        template: {
          metadata: { labels: mine },
          spec: {
            containers: [{ name: 'vllm', image: 'vllm/vllm-openai', resources: { limits: { 'nvidia.com/gpu': 1 } } }],
          },
        },
      },
    } as KubeObject);
    const va = await waitFor('the VariantAutoscaling', () =>
      cluster.admin.getOrUndefined(VariantAutoscalings, 'llama', 'ns'),
    );
    assert.equal(va.spec.scaleTargetRef.name, 'llama-vllmworker');
    assert.equal(va.metadata.ownerReferences?.[0]?.uid, created.metadata.uid);
    const parent = await cluster.admin.get(
      { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' } as never,
      'llama',
      'ns',
    );
    assert.ok(
      !parent.metadata.managedFields?.some((f) => f.manager === 'variantautoscaling-discovery'),
      'the parent is never written by the discovery controller',
    );
    const mdKind = { apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' } as never;
    await cluster.admin.patch(
      mdKind,
      'llama',
      'ns',
      { metadata: { annotations: { 'llm-d.ai/max-replicas': 'lots' } } },
      'merge',
    );
    const warning = await waitFor('a Warning event naming the annotation', async () =>
      (await cluster.admin.list({ apiVersion: 'v1', kind: 'Event' } as never, { namespace: 'ns' })).items.find(
        (e) => (e as unknown as { reason: string }).reason === 'InvalidAutoscalingAnnotation',
      ),
    );
    assert.match(
      (warning as unknown as { message: string }).message,
      /ModelDeployment ns\/llama: annotation llm-d.ai\/max-replicas is "lots"; it must be an integer >= 1; the VariantAutoscaling is left as it was/,
    );
    assert.ok(await cluster.admin.getOrUndefined(VariantAutoscalings, 'llama', 'ns'), 'the VariantAutoscaling stays');
    await cluster.admin.patch(
      mdKind,
      'llama',
      'ns',
      { metadata: { annotations: { 'llm-d.ai/managed': null } } },
      'merge',
    );
    await waitFor(
      'the VariantAutoscaling deleted',
      async () => (await cluster.admin.getOrUndefined(VariantAutoscalings, 'llama', 'ns')) === undefined,
    );
  });
});
