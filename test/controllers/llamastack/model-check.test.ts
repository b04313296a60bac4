// The pure half of "a referenced ModelDeployment or AIMService counts only when it answers /v1/models with
// the model" (docs/llamastack.md, "Ready means chat works"): which models each provider must serve, when an
// answer is good enough to stop asking, and the condition that names the reference, the URL and what is
// missing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeV1Alpha2Spec } from '../../../src/apis/llamastack/index.ts';
import {
  expectedModels,
  listingGood,
  type ModelCheck,
  type ModelListing,
  modelProblem,
  setModelsAvailable,
} from '../../../src/controllers/llamastack/model-check.ts';
import { ConditionManager } from '../../../src/engine/index.ts';

const check = (listing: ModelListing, expected: string[], over: Partial<ModelCheck> = {}): ModelCheck => ({
  providerId: 'gemma',
  field: 'spec.providers.inference[0].modelDeploymentRef',
  kind: 'ModelDeployment',
  name: 'gemma-cpu',
  url: 'http://gemma-cpu.qs.svc.cluster.local:8000/v1',
  expected,
  listing,
  ...over,
});

describe('the models a referenced endpoint must serve', () => {
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: Record<string, string[]> }> = [
    {
      name: 'a model without provider goes to the first inference provider',
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: {
          inference: [
            { id: 'a', provider: 'vllm', modelDeploymentRef: { name: 'x' } },
            { id: 'b', provider: 'vllm', endpoint: 'http://b/v1' },
          ],
        },
        resources: { models: [{ name: 'm1' }, { name: 'm2', provider: 'b' }, { name: 'm3', provider: 'a' }] },
      },
      want: { a: ['m1', 'm3'], b: ['m2'] },
    },
    {
      name: 'one provider written as an object, its id defaulting to provider',
      spec: {
        distribution: { name: 'remote-vllm' },
        providers: { inference: { provider: 'vllm', modelDeploymentRef: { name: 'x' } } },
        resources: { models: [{ name: 'm' }] },
      },
      want: { vllm: ['m'] },
    },
    {
      name: 'no models: nothing expected by name',
      spec: { distribution: { name: 'remote-vllm' }, providers: { inference: [{ provider: 'vllm' }] } },
      want: {},
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = expectedModels(normalizeV1Alpha2Spec(c.spec as never));
      assert.deepEqual(Object.fromEntries(got), c.want);
    });
});

describe('when a /v1/models answer is good', () => {
  const cases: Array<[string, ModelListing, string[], boolean]> = [
    ['every expected model listed', { reachable: true, models: ['a', 'b', 'c'] }, ['a', 'c'], true],
    ['one expected model missing', { reachable: true, models: ['a'] }, ['a', 'c'], false],
    ['a listed name differing only in case is not the model', { reachable: true, models: ['M'] }, ['m'], false],
    ['nothing expected by name, some model listed', { reachable: true, models: ['x'] }, [], true],
    ['nothing expected by name, an empty list', { reachable: true, models: [] }, [], false],
    ['unreachable', { reachable: false, message: 'ECONNREFUSED' }, [], false],
  ];
  for (const [name, listing, expected, good] of cases)
    it(name, () => assert.equal(listingGood(listing, expected), good));
});

describe('the problem a check reports', () => {
  it('a model not listed: names the field, the reference, the URL, the missing model and what is listed', () => {
    const p = modelProblem(check({ reachable: true, models: ['other', 'x'] }, ['google/gemma', 'x']));
    assert.equal(p?.reason, 'ModelNotListed');
    assert.equal(
      p?.message,
      'spec.providers.inference[0].modelDeploymentRef: ModelDeployment gemma-cpu at http://gemma-cpu.qs.svc.cluster.local:8000/v1 does not list model "google/gemma" in /v1/models (it lists other, x): fix spec.resources.models or the ModelDeployment\'s model',
    );
  });

  it('unreachable: names the URL and the cause', () => {
    const p = modelProblem(
      check({ reachable: false, message: 'GET /models: HTTP 503' }, ['m'], {
        kind: 'AIMService',
        name: 'qwen',
        field: 'spec.providers.inference[1].aimServiceRef',
      }),
    );
    assert.equal(p?.reason, 'ModelEndpointUnreachable');
    assert.match(p!.message, /^spec\.providers\.inference\[1\]\.aimServiceRef: AIMService qwen at http:\/\/gemma-cpu/);
    assert.match(p!.message, /GET \/models: HTTP 503/);
  });

  it('an empty list with nothing expected by name', () => {
    assert.match(modelProblem(check({ reachable: true, models: [] }, []))!.message, /lists no model in \/v1\/models/);
  });

  it('every model listed: no problem', () => {
    assert.equal(modelProblem(check({ reachable: true, models: ['m'] }, ['m'])), undefined);
  });
});

describe('ModelsAvailable', () => {
  it('absent without checks, True when all list their models, False naming every failing reference', () => {
    const cm = new ConditionManager([]);
    assert.equal(setModelsAvailable(cm, []), undefined);
    assert.equal(cm.get('ModelsAvailable'), undefined);
    assert.equal(setModelsAvailable(cm, [check({ reachable: true, models: ['m'] }, ['m'])]), undefined);
    assert.equal(cm.get('ModelsAvailable')?.status, 'True');
    assert.equal(cm.get('ModelsAvailable')?.reason, 'ModelsListed');
    const problem = setModelsAvailable(cm, [
      check({ reachable: true, models: ['m'] }, ['m']),
      check({ reachable: true, models: [] }, ['n'], { name: 'second' }),
      check({ reachable: false, message: 'timeout' }, ['o'], { name: 'third' }),
    ]);
    assert.equal(problem?.reason, 'ModelNotListed');
    const c = cm.get('ModelsAvailable')!;
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'ModelNotListed');
    assert.match(c.message!, /ModelDeployment second .* does not list model "n"/);
    assert.match(c.message!, /ModelDeployment third .* did not answer GET \/v1\/models \(timeout\)/);
    assert.doesNotMatch(c.message!, /gemma-cpu at .* does not list/, 'the healthy reference is not named as failing');
  });

  it('endpoints that do not answer yet are a wait: Unknown, said at info (a fresh start), not an error', () => {
    const cm = new ConditionManager([]);
    const problem = setModelsAvailable(cm, [
      check({ reachable: true, models: ['m'] }, ['m']),
      check({ reachable: false, message: 'no ready endpoint behind its Service' }, ['o'], { name: 'third' }),
    ]);
    assert.equal(problem?.reason, 'ModelEndpointUnreachable');
    const o = cm.observations().find((x) => x.condition.type === 'ModelsAvailable')!;
    assert.deepEqual(
      [o.condition.status, o.condition.reason, o.config.level],
      ['Unknown', 'ModelEndpointUnreachable', 'info'],
    );
    assert.match(o.condition.message!, /ModelDeployment third .* did not answer GET \/v1\/models \(no ready endpoint/);
  });
});
