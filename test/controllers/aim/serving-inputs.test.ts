// The serving-inputs record on an InferenceService (docs/aim.md, "A running service is never disturbed"): a
// stable encoding (same inputs, same string: a re-apply changes nothing), a round trip, and an annotation
// edited into anything else read as "no record" rather than trusted or crashing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  encodeServingInputs,
  SERVING_INPUTS_ANNOTATION,
  type ServingInputs,
  servingInputsOf,
} from '../../../src/controllers/aim/service/serving-inputs.ts';

const inputs: ServingInputs = {
  image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
  model: { kind: 'AIMModel', name: 'qwen8', namespace: 'ml', scope: 'Namespace', uid: 'u1' },
  template: { kind: 'AIMServiceTemplate', name: 'qwen8-tpl', namespace: 'ml', scope: 'Namespace', uid: 'u2' },
  templateInput: {
    name: 'qwen8-tpl',
    metric: 'latency',
    precision: 'fp16',
    profileId: undefined,
    env: [{ name: 'A', value: '1' }],
    gpu: { count: 1, resourceName: 'amd.com/gpu' },
    nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
  },
};
const isvc = (value: string | undefined) => ({
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'x', ...(value === undefined ? {} : { annotations: { [SERVING_INPUTS_ANNOTATION]: value } }) },
});

describe('serving inputs', () => {
  it('round trip, and a stable string whatever the key order', () => {
    const text = encodeServingInputs(inputs);
    const back = servingInputsOf(isvc(text));
    assert.ok(back);
    assert.equal(encodeServingInputs(back), text);
    const reordered = JSON.parse(
      JSON.stringify({
        templateInput: inputs.templateInput,
        image: inputs.image,
        model: inputs.model,
        template: inputs.template,
      }),
    );
    assert.equal(encodeServingInputs(reordered), text);
    assert.equal(back.templateInput?.gpu?.count, 1);
    assert.equal('profileId' in (back.templateInput ?? {}), false, 'undefined fields are not written');
  });

  const bad: Array<[string, string | undefined]> = [
    ['absent', undefined],
    ['empty', ''],
    ['not JSON', '{image:'],
    ['an array', '[]'],
    ['no image', '{"model":{"name":"m"}}'],
    ['image not a string', '{"image":42}'],
    ['a model ref without a name', '{"image":"i","model":{"namespace":"ns"}}'],
    [
      'a GPU count of zero',
      '{"image":"i","templateInput":{"name":"t","gpu":{"count":0,"resourceName":"amd.com/gpu"}}}',
    ],
    [
      'a fractional GPU count',
      '{"image":"i","templateInput":{"name":"t","gpu":{"count":1.5,"resourceName":"amd.com/gpu"}}}',
    ],
    ['env not a list', '{"image":"i","templateInput":{"name":"t","env":{"A":"1"}}}'],
    ['an env entry without a name', '{"image":"i","templateInput":{"name":"t","env":[{"value":"1"}]}}'],
    ['node affinity a string', '{"image":"i","templateInput":{"name":"t","nodeAffinity":"any"}}'],
  ];
  for (const [name, value] of bad)
    it(`read as no record: ${name}`, () => assert.equal(servingInputsOf(isvc(value)), undefined));
});
