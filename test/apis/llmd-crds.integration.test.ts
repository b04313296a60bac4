// The llmd.ai VariantAutoscaling CRD on the test cluster (embedded or real API server): llm-d's sample
// applies unchanged with kubectl, defaults (variantCost "10.0", minReplicas 1, maxReplicas 10), validation
// with messages that name the field, and the printer columns (Target, Model, Optimized, MetricsReady, Age).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { variantAutoscalingCrd } from '../../src/apis/llmd/index.ts';
import { createCrdAndWait } from './crd-helpers.ts';

const SAMPLE = `apiVersion: llmd.ai/v1alpha1
kind: VariantAutoscaling
metadata:
  name: llama-8b-h100
  namespace: default
  labels:
    inference.optimization/acceleratorName: H100
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: llama-8b-h100
  modelID: meta-llama/Llama-3.1-8B-Instruct
`;

describe('VariantAutoscaling CRD', () => {
  let c: TestCluster;
  before(async () => {
    c = await startTestCluster();
    await createCrdAndWait(c, variantAutoscalingCrd());
  });
  after(() => c.stop());

  it("applies llm-d's sample unchanged and fills the defaults", async () => {
    await c.k(['apply', '-f', '-'], SAMPLE);
    const va = JSON.parse(await c.k(['get', 'va', 'llama-8b-h100', '-o', 'json']));
    assert.deepEqual(
      { cost: va.spec.variantCost, min: va.spec.minReplicas, max: va.spec.maxReplicas },
      { cost: '10.0', min: 1, max: 10 },
    );
  });

  it('shows the printer columns', async () => {
    const out = await c.k(['get', 'variantautoscalings']);
    assert.match(out.split('\n')[0]!, /^NAME\s+TARGET\s+MODEL\s+OPTIMIZED\s+METRICSREADY\s+AGE/);
    assert.match(out, /llama-8b-h100\s+llama-8b-h100\s+meta-llama\/Llama-3.1-8B-Instruct/);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['no modelID', 'modelID: ""', /spec\.modelID/],
    ['a cost that is not a number', 'modelID: m\n  variantCost: "cheap"', /spec\.variantCost/],
    [
      'maxReplicas below minReplicas',
      'modelID: m\n  minReplicas: 5\n  maxReplicas: 2',
      /spec.maxReplicas must be greater than or equal to spec.minReplicas/,
    ],
    ['negative minReplicas', 'modelID: m\n  minReplicas: -1', /spec\.minReplicas/],
  ];
  for (const [name, spec, message] of bad) {
    it(`rejects ${name}, naming the field`, async () => {
      const yaml = `apiVersion: llmd.ai/v1alpha1\nkind: VariantAutoscaling\nmetadata: {name: bad, namespace: default}\nspec:\n  scaleTargetRef: {kind: Deployment, name: x}\n  ${spec}\n`;
      const r = await c.kubectl(['apply', '-f', '-'], { input: yaml });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, message);
    });
  }

  it('minReplicas 0 (scale to zero) is allowed', async () => {
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: llmd.ai/v1alpha1\nkind: VariantAutoscaling\nmetadata: {name: zero, namespace: default}\nspec:\n  scaleTargetRef: {kind: Deployment, name: x}\n  modelID: m\n  minReplicas: 0\n`,
    );
  });
});
