// Which templates a model plans (docs/aim.md, "Models"): one per recommended deployment plus its custom
// templates; `discovery.createServiceTemplates: false` turns off the generated ones, never the custom ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AIMImageMetadata } from '../../../src/apis/aim/index.ts';
import { plannedTemplates } from '../../../src/controllers/aim/model/templates.ts';
import type { AnyModel } from '../../../src/controllers/aim/shared/kinds.ts';

const metadata: AIMImageMetadata = {
  model: {
    canonicalName: 'Qwen/Qwen3-8B',
    recommendedDeployments: [{ gpuModel: 'MI300X', gpuCount: 1, precision: 'fp16', metric: 'latency' }],
  },
};
const model = (spec: Record<string, unknown>): AnyModel =>
  ({
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMModel',
    metadata: { name: 'qwen8', namespace: 'ns', uid: 'uid-1' },
    spec: { image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5', ...spec },
  }) as AnyModel;
const custom = [
  { name: 'mine', hardware: { gpu: { model: 'MI300X', requests: 2 } }, profile: { metric: 'throughput' } },
];
const names = (spec: Record<string, unknown>) =>
  plannedTemplates(model(spec), metadata).map((t) => [t.metadata.name, (t.spec as { type?: string }).type]);

describe('planned templates', () => {
  it('createServiceTemplates: false with customTemplates: the custom templates, and only them', () => {
    const planned = names({ discovery: { createServiceTemplates: false }, customTemplates: custom });
    assert.equal(planned.length, 1);
    assert.match(String(planned[0]![0]), /^mine/);
    assert.equal(planned[0]![1], 'unoptimized');
  });
  it('createServiceTemplates: false without custom templates: none', () => {
    assert.deepEqual(names({ discovery: { createServiceTemplates: false } }), []);
  });
  it('by default: the recommended deployment plus the custom template', () => {
    assert.equal(names({ customTemplates: custom }).length, 2);
    assert.equal(names({}).length, 1);
  });
});
