// The models catalog, pure: each AIM model with its templates and the nodes each fits (the AIM controller's
// GPU rule over the nodes' labels), the deploy values it prefills, and the model sources.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import { catalogView, deploymentName } from '../../../src/cli/dashboard/catalog.ts';

const o = (apiVersion: string, kind: string, name: string, rest: Record<string, unknown> = {}, ns?: string) =>
  ({
    apiVersion,
    kind,
    metadata: { name, ...(ns ? { namespace: ns } : {}), ...((rest.metadata as object) ?? {}) },
    ...Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'metadata')),
  }) as unknown as KubeObject;
const node = (name: string, labels: Record<string, string>) => o('v1', 'Node', name, { metadata: { labels } });
const AIM = 'aim.eai.amd.com/v1alpha1';

describe('models catalog', () => {
  const objects: Record<string, KubeObject[]> = {
    Node: [
      node('amd-1', { 'amd.com/gpu.device-id': '74a1' }),
      node('amd-2', { 'amd.com/gpu.device-id': '75a3' }),
      node('cpu-1', {}),
    ],
    AIMModel: [
      o(
        AIM,
        'AIMModel',
        'qwen3-8b',
        {
          spec: { image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5' },
          status: { status: 'Ready', imageMetadata: { model: { canonicalName: 'Qwen/Qwen3-8B' } } },
        },
        'q',
      ),
    ],
    AIMServiceTemplate: [
      o(
        AIM,
        'AIMServiceTemplate',
        'qwen-mi300x',
        {
          spec: { modelName: 'qwen3-8b', hardware: { gpu: { model: 'MI300X', requests: 2 } } },
          status: { status: 'Ready' },
        },
        'q',
      ),
      o(
        AIM,
        'AIMServiceTemplate',
        'qwen-mi250x',
        {
          spec: { modelName: 'qwen3-8b', hardware: { gpu: { model: 'MI250X', requests: 1 } } },
          status: { status: 'NotAvailable' },
        },
        'q',
      ),
      o(
        AIM,
        'AIMServiceTemplate',
        'other-ns',
        { spec: { modelName: 'qwen3-8b', hardware: { gpu: { model: 'MI300X' } } } },
        'elsewhere',
      ),
    ],
    AIMClusterModelSource: [
      o(AIM, 'AIMClusterModelSource', 'dockerhub', {
        spec: { registry: 'docker.io' },
        status: { status: 'Ready', discoveredModels: 7 },
      }),
    ],
  };
  const view = catalogView({ ofKind: (k) => objects[k] ?? [] });

  it('each node with its GPUs, as the AIM controller reads the labels', () => {
    assert.deepEqual(view.nodes, [
      { name: 'amd-1', gpus: ['MI300X'] },
      { name: 'amd-2', gpus: ['MI355X'] },
      { name: 'cpu-1', gpus: [] },
    ]);
  });

  it("a model's templates (its namespace only), the nodes each fits, the runnable ones first", () => {
    const [m] = view.models;
    assert.equal(m!.modelId, 'Qwen/Qwen3-8B');
    assert.deepEqual(
      m!.templates.map((t) => [t.name, t.hardware, t.fits]),
      [
        ['qwen-mi300x', '2 x MI300X', ['amd-1']],
        ['qwen-mi250x', '1 x MI250X', []],
      ],
    );
  });

  it("deploy prefills a ModelDeployment on the aim provider with the fitting template's GPUs", () => {
    assert.deepEqual(view.models[0]!.deploy, {
      name: 'qwen3-8b',
      namespace: 'q',
      modelId: 'Qwen/Qwen3-8B',
      provider: 'aim',
      gpuCount: '2',
      gpuType: 'amd.com/gpu',
    });
    assert.equal(deploymentName('Llama-3.1-8B-Instruct'), 'llama-3-1-8b-instruct');
    assert.equal(deploymentName('---'), 'model');
    assert.ok(deploymentName('x'.repeat(200)).length <= 50);
  });

  it('the model sources with what they found', () => {
    assert.deepEqual(
      view.sources.map((s) => [s.name, s.registry, s.models]),
      [['dockerhub', 'docker.io', 7]],
    );
  });
});
