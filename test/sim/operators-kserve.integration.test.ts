// The simulated KServe controller: what it builds for each predictor form (pure), and against the
// test cluster the happy path to Ready and the failure paths (pod failure, unknown runtime).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InferenceServices, SimDeployments, SimServices } from '@modelplane/sim/operators';
import { planPredictor } from '@modelplane/sim/operators/kserve-predictor';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const isvc = (name: string, predictor: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name, namespace: 'serving', uid: 'u-1', ...extra },
  spec: { predictor },
});

describe('KServe predictor plan', () => {
  const cases: Array<{
    name: string;
    predictor: Record<string, unknown>;
    image?: string;
    port?: number;
    args?: string[];
    error?: string;
  }> = [
    {
      name: 'model with a named runtime',
      predictor: {
        model: {
          modelFormat: { name: 'huggingface' },
          runtime: 'kserve-huggingfaceserver',
          args: ['--backend=vllm'],
          storageUri: 'hf://Qwen/Qwen2.5-0.5B-Instruct',
        },
      },
      image: 'kserve/huggingfaceserver:v0.15.2',
      port: 8080,
      args: ['--model_name=m', '--backend=vllm'],
    },
    {
      name: 'model whose format picks the runtime',
      predictor: { model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://x' } },
      image: 'kserve/sklearnserver:v0.15.2',
      port: 8080,
    },
    {
      name: 'legacy framework field',
      predictor: { xgboost: { storageUri: 'gs://x' } },
      image: 'kserve/xgbserver:v0.15.2',
      port: 8080,
    },
    {
      name: 'custom container with its own port',
      predictor: {
        containers: [
          { name: 'kserve-container', image: 'ghcr.io/amd/aim:1', ports: [{ containerPort: 8000, name: 'http' }] },
        ],
      },
      image: 'ghcr.io/amd/aim:1',
      port: 8000,
    },
    {
      name: 'unknown model format',
      predictor: { model: { modelFormat: { name: 'cobol' } } },
      error: 'NoSupportingRuntime',
    },
    {
      name: 'runtime that does not exist',
      predictor: { model: { modelFormat: { name: 'sklearn' }, runtime: 'my-runtime' } },
      error: 'RuntimeNotRecognized',
    },
    {
      name: 'two predictor forms',
      predictor: { model: { modelFormat: { name: 'sklearn' } }, containers: [{ name: 'x', image: 'y' }] },
      error: 'InvalidPredictorSpec',
    },
    { name: 'no predictor form', predictor: { minReplicas: 1 }, error: 'InvalidPredictorSpec' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planPredictor(isvc('m', c.predictor));
      if (c.error) {
        assert.ok('error' in plan, 'expected an error');
        assert.equal(plan.error.reason, c.error);
        return;
      }
      assert.ok(!('error' in plan), JSON.stringify(plan));
      const container = plan.deployment.spec?.template?.spec?.containers[0];
      assert.equal(container?.name, 'kserve-container');
      assert.equal(container?.image, c.image);
      if (c.args) assert.deepEqual(container?.args, c.args);
      assert.deepEqual(
        ((plan.service.spec?.ports ?? []) as Array<{ port: number; targetPort: number }>).map((p) => [
          p.port,
          p.targetPort,
        ]),
        [[80, c.port]],
      );
    });
  }

  it('labels, pod fields, replicas and failure annotations reach the pod template', () => {
    const plan = planPredictor(
      isvc(
        'llm',
        {
          minReplicas: 2,
          nodeSelector: { gpu: 'yes' },
          serviceAccountName: 'sa',
          labels: { team: 'a' },
          containers: [{ name: 'kserve-container', image: 'img' }],
        },
        {
          labels: { 'aim.eai.amd.com/service': 'svc' },
          annotations: {
            'sim.modelplane.io/fail': 'OOMKilled',
            'kubectl.kubernetes.io/last-applied-configuration': '{}',
          },
        },
      ),
    );
    assert.ok(!('error' in plan));
    const tpl = plan.deployment.spec?.template;
    assert.equal(plan.deployment.metadata.name, 'llm-predictor');
    assert.equal(plan.deployment.spec?.replicas, 2);
    assert.deepEqual(plan.deployment.spec?.selector, { matchLabels: { app: 'isvc.llm-predictor' } });
    assert.equal(tpl?.metadata?.labels?.['serving.kserve.io/inferenceservice'], 'llm');
    assert.equal(tpl?.metadata?.labels?.component, 'predictor');
    assert.equal(tpl?.metadata?.labels?.team, 'a');
    assert.equal(tpl?.metadata?.labels?.['aim.eai.amd.com/service'], 'svc');
    assert.equal(tpl?.metadata?.annotations?.['sim.modelplane.io/fail'], 'OOMKilled');
    assert.equal(tpl?.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], undefined);
    assert.deepEqual(tpl?.spec?.nodeSelector, { gpu: 'yes' });
    assert.equal(tpl?.spec?.serviceAccountName, 'sa');
    assert.equal(plan.deployment.metadata.ownerReferences?.[0]?.kind, 'InferenceService');
  });

  it('an AIM image serves its AIM_MODEL_ID, else the model it was built for; other images serve no chat model', () => {
    const served = (container: Record<string, unknown>) => {
      const plan = planPredictor(isvc('m', { containers: [{ name: 'kserve-container', ...container }] }));
      assert.ok(!('error' in plan));
      const a = plan.deployment.spec?.template?.metadata?.annotations ?? {};
      return [a['sim.modelplane.io/model'], a['sim.modelplane.io/inference-port']];
    };
    const port = { ports: [{ containerPort: 8000 }] };
    assert.deepEqual(served({ image: 'amdenterpriseai/aim-qwen-qwen3-8b:0.8.5', ...port }), ['Qwen/Qwen3-8B', '8000']);
    assert.deepEqual(
      served({
        image: 'docker.io/amdenterpriseai/aim-qwen-qwen3-8b:0.8.5',
        env: [{ name: 'AIM_MODEL_ID', value: 'org/custom' }],
      }),
      ['org/custom', '8080'],
      'AIM_MODEL_ID wins over the image',
    );
    assert.deepEqual(
      served({ image: 'amdenterpriseai/aim-qwen-qwen3-8b:9.9.9' }),
      [undefined, undefined],
      'no such tag',
    );
    assert.deepEqual(served({ image: 'kserve/sklearnserver:v0.15.2' }), [undefined, undefined]);
  });
});

describe('KServe simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['kserve'] });
    await ensureNamespace(c.client, 'serving');
  });
  after(async () => c?.close());

  it('an InferenceService becomes Ready once its predictor pods are', async () => {
    await c.client.create({
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: 'qwen', namespace: 'serving' },
      spec: {
        predictor: {
          model: {
            modelFormat: { name: 'huggingface' },
            args: ['--max-model-len=4096'],
            env: [{ name: 'HF_HOME', value: '/cache' }],
            resources: {
              requests: { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' },
              limits: { 'nvidia.com/gpu': '1' },
            },
          },
        },
      },
    });
    const ready = await eventually('isvc Ready', async () => {
      const o = await getObj(c.client, InferenceServices, 'qwen', 'serving');
      return condition(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    const st = ready.status as Record<string, any>;
    assert.equal(st.url, 'http://qwen-serving.example.com');
    assert.equal(st.address.url, 'http://qwen-predictor.serving.svc.cluster.local');
    assert.equal(condition(ready, 'PredictorReady')?.status, 'True');
    assert.equal(condition(ready, 'IngressReady')?.status, 'True');
    assert.deepEqual(st.modelStatus.states, { activeModelState: 'Loaded', targetModelState: 'Loaded' });
    assert.equal(st.modelStatus.transitionStatus, 'UpToDate');
    assert.equal(st.observedGeneration, ready.metadata.generation);

    const deploy = await c.client.get(SimDeployments, 'qwen-predictor', 'serving');
    const container = deploy.spec?.template?.spec?.containers[0];
    assert.equal(container?.image, 'kserve/huggingfaceserver:v0.15.2');
    assert.deepEqual(container?.args, ['--model_name=qwen', '--max-model-len=4096']);
    assert.equal(container?.resources?.limits?.['nvidia.com/gpu'], '1');
    assert.ok(container?.env?.some((e) => e.name === 'HF_HOME'));
    const svc = await c.client.get(SimServices, 'qwen-predictor', 'serving');
    assert.deepEqual(
      ((svc.spec?.ports ?? []) as Array<{ port: number; targetPort: number }>).map((p) => [p.port, p.targetPort]),
      [[80, 8080]],
    );
  });

  it("a predictor pod that cannot pull its image fails PredictorReady with the pod's reason and message", async () => {
    await c.client.create({
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: 'broken', namespace: 'serving', annotations: { 'sim.modelplane.io/fail': 'ImagePullBackOff' } },
      spec: { predictor: { containers: [{ name: 'kserve-container', image: 'registry.invalid/model:1' }] } },
    });
    // the kubelet reports ErrImagePull on the first attempt and ImagePullBackOff after it
    const pullFailure = /^(ErrImagePull|ImagePullBackOff)$/;
    const failed = await eventually('PredictorReady=False with an image pull failure', async () => {
      const o = await getObj(c.client, InferenceServices, 'broken', 'serving');
      return pullFailure.test(condition(o, 'PredictorReady')?.reason ?? '') &&
        (o?.status as Record<string, any>)?.modelStatus?.lastFailureInfo
        ? o
        : undefined;
    });
    assert.equal(condition(failed, 'Ready')?.status, 'False');
    assert.match(condition(failed, 'Ready')?.reason ?? '', pullFailure);
    assert.match(condition(failed, 'PredictorReady')?.message ?? '', /registry\.invalid\/model:1/);
    const ms = (failed.status as Record<string, any>).modelStatus;
    assert.equal(ms.states.activeModelState, 'FailedToLoad');
    assert.equal(ms.transitionStatus, 'BlockedByFailedLoad');
    assert.equal(ms.lastFailureInfo.reason, 'ModelLoadFailed');
  });

  it('an InferenceService no runtime supports reports NoSupportingRuntime and creates nothing', async () => {
    await c.client.create({
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: 'cobol', namespace: 'serving' },
      spec: { predictor: { model: { modelFormat: { name: 'cobol' } } } },
    });
    const o = await eventually('NoSupportingRuntime', async () => {
      const x = await getObj(c.client, InferenceServices, 'cobol', 'serving');
      return condition(x, 'Ready')?.reason === 'NoSupportingRuntime' ? x : undefined;
    });
    assert.match(condition(o, 'PredictorReady')?.message ?? '', /model type: cobol/);
    assert.equal(await getObj(c.client, SimDeployments, 'cobol-predictor', 'serving'), undefined);
  });
});
