// The AIM provider, pure: ModelDeployment → AIMService (accepted by the AIMService schema), the AIM
// overrides, and AIMService status → unified phase.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceSpecSchema } from '../../../src/apis/aim/index.ts';
import type { ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import { buildDesired } from '../../../src/controllers/kubeairunway/provider/desired.ts';
import {
  type AIMService,
  aimProvider,
  translateAimOverrides,
} from '../../../src/controllers/kubeairunway/providers/aim/index.ts';
import { deploymentsIn, pathsOf, statusRows, transformCases, withStatus } from './provider-test-kit.ts';

const md = deploymentsIn('ml-team', 'qwen');

const AMD: ModelDeploymentSpec = {
  model: { id: 'Qwen/Qwen3-32B' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
};

describe('aim transform', () => {
  it('a Hugging Face model: the AIM base image serving the repository, AMD GPUs requested', () => {
    const svc = aimProvider.transform(md({ ...AMD, secrets: { huggingFaceToken: 'hf-secret' } }));
    assert.deepEqual(
      [svc.apiVersion, svc.kind, svc.metadata.name, svc.metadata.namespace],
      ['aim.eai.amd.com/v1alpha1', 'AIMService', 'qwen', 'ml-team'],
    );
    assert.deepEqual(svc.metadata.labels, {
      'kubeairunway.ai/model-deployment': 'qwen',
      'kubeairunway.ai/model-source': 'huggingface',
      'kubeairunway.ai/engine-type': 'vllm',
      'kubeairunway.ai/model-id': 'Qwen_Qwen3-32B',
    });
    assert.deepEqual(svc.spec, {
      model: {
        custom: {
          baseImage: 'amdenterpriseai/aim-base:0.8.5',
          modelSources: [{ name: 'qwen-qwen3-32b', modelId: 'Qwen/Qwen3-32B', sourceUri: 'hf://Qwen/Qwen3-32B' }],
          hardware: { gpu: { requests: 1 } },
        },
      },
      template: { allowUnoptimized: true },
      // routed by the gateway controller by model name, not by the namespace's AIM path template
      routing: { enabled: false },
      replicas: 1,
      resources: { requests: { 'amd.com/gpu': '1' }, limits: { 'amd.com/gpu': '1' } },
      env: [
        { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-secret', key: 'HF_TOKEN' } } },
        { name: 'AIM_MODEL_ID', value: 'Qwen/Qwen3-32B' },
      ],
    });
    assert.deepEqual(pathsOf(svc, 'hf-secret'), ['.spec.env[0].valueFrom.secretKeyRef.name']);
    assert.equal(serviceSpecSchema.safeParse(svc.spec).success, true);
  });

  const cases: Array<{ name: string; spec: ModelDeploymentSpec; check: (svc: AIMService) => void }> = [
    {
      name: 'an engine image is served as model.image',
      spec: { ...AMD, engine: { type: 'vllm', image: 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5' } },
      check: (svc) => assert.deepEqual(svc.spec.model, { image: 'amdenterpriseai/aim-qwen-qwen3-32b:0.8.5' }),
    },
    {
      name: 'the legacy spec.image too, and no AIM_MODEL_ID (the image knows its model)',
      spec: {
        ...AMD,
        model: { source: 'custom' },
        image: 'me/aim-custom:1',
        env: [{ name: 'AIM_PRECISION', value: 'fp8' }],
      },
      check: (svc) => {
        assert.deepEqual(svc.spec.model, { image: 'me/aim-custom:1' });
        assert.deepEqual(svc.spec.env, [{ name: 'AIM_PRECISION', value: 'fp8' }]);
      },
    },
    {
      name: 'replicas, cpu and memory; replicas 0 sticks',
      spec: {
        ...AMD,
        resources: { gpu: { count: 8, type: 'amd.com/gpu' }, cpu: '32', memory: '256Gi' },
        scaling: { replicas: 0 },
      },
      check: (svc) => {
        assert.equal(svc.spec.replicas, 0);
        assert.deepEqual(svc.spec.resources, {
          requests: { 'amd.com/gpu': '8', cpu: '32', memory: '256Gi' },
          limits: { 'amd.com/gpu': '8', memory: '256Gi' },
        });
      },
    },
    {
      name: 'podTemplate labels and annotations on the AIMService (no pod template of its own)',
      spec: { ...AMD, podTemplate: { metadata: { labels: { team: 'a' }, annotations: { note: 'x' } } } },
      check: (svc) => {
        assert.equal(svc.metadata.labels?.team, 'a');
        assert.deepEqual(svc.metadata.annotations, { note: 'x' });
      },
    },
    {
      name: 'the user’s own AIM_MODEL_ID wins',
      spec: { ...AMD, env: [{ name: 'AIM_MODEL_ID', value: 'other' }] },
      check: (svc) => assert.deepEqual(svc.spec.env, [{ name: 'AIM_MODEL_ID', value: 'other' }]),
    },
  ];
  transformCases(
    cases,
    md,
    (input) => aimProvider.transform(input),
    (svc) => assert.equal(serviceSpecSchema.safeParse(svc.spec).success, true, 'the AIMService schema accepts it'),
  );

  for (const [name, spec, message] of [
    [
      'a custom model without an image',
      { ...AMD, model: { source: 'custom' } },
      /^spec\.image: a custom model on AIM is served from its image/,
    ],
    ['sglang', { ...AMD, engine: { type: 'sglang' } }, /^spec\.engine\.type: AIM serves vllm images, got sglang$/],
    [
      'fields an AIMService cannot carry, all named',
      {
        ...AMD,
        engine: { type: 'vllm', args: { a: '1' } },
        nodeSelector: { pool: 'mi300' },
        tolerations: [{ operator: 'Exists' }],
      },
      /^spec\.engine\.args, spec\.nodeSelector, spec\.tolerations: an AIMService has no place for it/,
    ],
  ] as const) {
    it(`refuses ${name}`, () =>
      assert.throws(() => aimProvider.transform(md(spec as ModelDeploymentSpec)), { message }));
  }
});

describe('aim overrides', () => {
  const withOverrides = (overrides: Record<string, unknown>) => md({ ...AMD, provider: { name: 'aim', overrides } });
  it('runtimeConfigName, routing, storage and imagePullSecrets land on the AIMService spec', () => {
    const overrides = {
      runtimeConfigName: 'fast',
      routing: { enabled: true, pathTemplate: '/{.metadata.namespace}/x' },
      storage: { defaultStorageClassName: 'ssd' },
      imagePullSecrets: [{ name: 'registry' }],
    };
    assert.deepEqual(translateAimOverrides(withOverrides(overrides)), { spec: overrides });
    assert.deepEqual(aimProvider.overridePatch(withOverrides(overrides)), { spec: overrides });
  });
  it('the AIM path route is off unless the overrides turn it on (the gateway controller routes the deployment)', () => {
    const desired = (overrides?: Record<string, unknown>) =>
      buildDesired(aimProvider, {
        ...withOverrides(overrides ?? {}),
        metadata: { name: 'qwen', namespace: 'ml-team', uid: 'u' },
      }) as unknown as AIMService;
    assert.deepEqual(desired().spec.routing, { enabled: false });
    assert.deepEqual(desired({ routing: { enabled: true, pathTemplate: '/{.metadata.namespace}/x' } }).spec.routing, {
      enabled: true,
      pathTemplate: '/{.metadata.namespace}/x',
    });
  });
  it('nothing to translate: no patch', () => {
    assert.deepEqual(translateAimOverrides(md(AMD)), {});
    assert.deepEqual(translateAimOverrides(withOverrides({ unknown: 1 })), {});
  });
  for (const [overrides, message] of [
    [{ runtimeConfigName: 1 }, /^spec\.provider\.overrides\.runtimeConfigName: must be a string$/],
    [{ routing: 'on' }, /^spec\.provider\.overrides\.routing: must be an object$/],
    [
      { imagePullSecrets: ['registry'] },
      /^spec\.provider\.overrides\.imagePullSecrets: must be a list of \{name: <Secret name>\}$/,
    ],
  ] as const) {
    it(`refuses ${JSON.stringify(overrides)}`, () =>
      assert.throws(() => translateAimOverrides(withOverrides(overrides)), { message }));
  }
});

describe('aim mapStatus', () => {
  const svc = (status: AIMService['status'], generation = 1) =>
    withStatus(aimProvider.transform(md({ ...AMD, scaling: { replicas: 2 } })), status, generation);
  const notReady = (message: string) => [{ type: 'Ready', status: 'False' as const, reason: 'x', message }];
  const rows: Array<{ name: string; svc: AIMService; phase: string; message?: string }> = [
    {
      name: 'Running → Running',
      svc: svc({ status: 'Running', conditions: [{ type: 'Ready', status: 'True', message: 'all ready' }] }),
      phase: 'Running',
    },
    {
      name: 'Starting → Deploying with the Ready message',
      svc: svc({ status: 'Starting', conditions: notReady('InferenceService ml-team/qwen is not ready yet') }),
      phase: 'Deploying',
      message: 'InferenceService ml-team/qwen is not ready yet',
    },
    { name: 'Pending → Pending', svc: svc({ status: 'Pending' }), phase: 'Pending' },
    {
      name: 'Degraded → Failed with the Ready message',
      svc: svc({ status: 'Degraded', conditions: notReady('the model failed to load') }),
      phase: 'Failed',
      message: 'the model failed to load',
    },
    {
      name: 'Failed → Failed with the Ready message',
      svc: svc({ status: 'Failed', conditions: notReady('InferenceService ml-team/qwen was rejected by KServe') }),
      phase: 'Failed',
      message: 'InferenceService ml-team/qwen was rejected by KServe',
    },
    {
      name: 'Failed without a Ready message → another failed condition’s',
      svc: svc({ status: 'Failed', conditions: [{ type: 'ModelReady', status: 'False', message: 'no AIMModel' }] }),
      phase: 'Failed',
      message: 'no AIMModel',
    },
    {
      name: 'Failed with no message at all',
      svc: svc({ status: 'Failed' }),
      phase: 'Failed',
      message: 'the AIMService is Failed',
    },
    { name: 'empty status → Pending', svc: svc({}), phase: 'Pending' },
    { name: 'no status → Pending', svc: svc(undefined), phase: 'Pending' },
    {
      name: 'a status for an older generation → Deploying',
      svc: svc({ status: 'Running', observedGeneration: 1 }, 2),
      phase: 'Deploying',
      message: 'waiting for the AIM operator to observe generation 2 (it reports 1)',
    },
  ];
  statusRows(
    rows,
    (r) => aimProvider.mapStatus(r.svc, md(AMD)),
    (s, r) => {
      assert.deepEqual(s.endpoint, { service: 'qwen-predictor', port: 80 });
      const ready = r.phase === 'Running' ? 2 : 0;
      assert.deepEqual(s.replicas, { desired: 2, ready, available: ready });
    },
  );
});
