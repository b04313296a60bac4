// The Dynamo provider, pure: ModelDeployment → DynamoGraphDeployment for each engine and serving mode, the
// documented overrides translated into a DGD patch, and DGD status → unified phase for every row of the
// design's status-mapping table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import {
  type DynamoGraphDeployment,
  dynamoProvider,
  translateDynamoOverrides,
} from '../../../src/controllers/kubeairunway/providers/dynamo/index.ts';
import { deploymentsIn, pathsOf, statusRows, transformCases, withStatus } from './provider-test-kit.ts';

const md = deploymentsIn('team-a', 'llm');

const VLLM: ModelDeploymentSpec = {
  model: { id: 'Qwen/Qwen3-8B' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 } },
};
const DISAGG: ModelDeploymentSpec = {
  model: { id: 'meta-llama/Llama-3.3-70B-Instruct' },
  engine: { type: 'vllm' },
  serving: { mode: 'disaggregated' },
  scaling: {
    prefill: { replicas: 2, gpu: { count: 4 }, memory: '128Gi' },
    decode: { replicas: 4, gpu: { count: 2 }, memory: '64Gi' },
  },
};

const worker = (dgd: DynamoGraphDeployment, name: string) => dgd.spec.services![name]!;
const mainContainer = (dgd: DynamoGraphDeployment, name: string) =>
  worker(dgd, name).extraPodSpec!.mainContainer as { image: string; command: string[]; args: string[] };

describe('dynamo transform', () => {
  it('aggregated vLLM: a Frontend and one VllmWorker in the deployment’s name and namespace', () => {
    const dgd = dynamoProvider.transform(md(VLLM, 'qwen'));
    assert.deepEqual(
      [dgd.apiVersion, dgd.kind, dgd.metadata.name, dgd.metadata.namespace],
      ['nvidia.com/v1alpha1', 'DynamoGraphDeployment', 'qwen', 'team-a'],
    );
    assert.deepEqual(dgd.metadata.labels, {
      'kubeairunway.ai/model-deployment': 'qwen',
      'kubeairunway.ai/model-source': 'huggingface',
      'kubeairunway.ai/engine-type': 'vllm',
      'kubeairunway.ai/model-id': 'Qwen_Qwen3-8B',
    });
    assert.equal(dgd.spec.backendFramework, 'vllm');
    assert.deepEqual(Object.keys(dgd.spec.services!), ['Frontend', 'VllmWorker']);
    assert.deepEqual(worker(dgd, 'Frontend'), {
      componentType: 'frontend',
      replicas: 1,
      labels: { 'kubeairunway.ai/model-deployment': 'qwen' },
      resources: { requests: { cpu: '2', memory: '4Gi' } },
      envs: [{ name: 'DYN_ROUTER_MODE', value: 'round-robin' }],
      extraPodSpec: {
        mainContainer: {
          image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1',
          command: ['python3', '-m', 'dynamo.frontend'],
          args: ['--http-port', '8000'],
        },
      },
    });
    assert.deepEqual(worker(dgd, 'VllmWorker'), {
      componentType: 'worker',
      replicas: 1,
      labels: { 'kubeairunway.ai/model-deployment': 'qwen' },
      resources: { requests: { gpu: '1' }, limits: { gpu: '1' } },
      extraPodSpec: {
        mainContainer: {
          image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.1.1',
          command: ['python3', '-m', 'dynamo.vllm'],
          args: ['--model', 'Qwen/Qwen3-8B', '--enable-prefix-caching'],
        },
      },
    });
  });

  const cases: Array<{ name: string; spec: ModelDeploymentSpec; check: (dgd: DynamoGraphDeployment) => void }> = [
    {
      name: 'vLLM engine settings become flags; the user’s own flag replaces the derived one',
      spec: {
        ...VLLM,
        model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen' },
        engine: {
          type: 'vllm',
          contextLength: 8192,
          trustRemoteCode: true,
          enablePrefixCaching: false,
          enforceEager: true,
          args: { 'max-model-len': '4096', 'gpu-memory-utilization': '0.9', 'enable-chunked-prefill': '' },
          extraArgs: ['--seed', '7'],
        },
        resources: { gpu: { count: 4 }, memory: '64Gi', cpu: '16' },
      },
      check: (dgd) => {
        assert.deepEqual(mainContainer(dgd, 'VllmWorker').args, [
          '--model',
          'Qwen/Qwen3-8B',
          '--served-model-name',
          'qwen',
          '--trust-remote-code',
          '--no-enable-prefix-caching',
          '--enforce-eager',
          '--tensor-parallel-size',
          '4',
          '--enable-chunked-prefill',
          '--gpu-memory-utilization',
          '0.9',
          '--max-model-len',
          '4096',
          '--seed',
          '7',
        ]);
        assert.deepEqual(worker(dgd, 'VllmWorker').resources, {
          requests: { gpu: '4' },
          limits: { gpu: '4', memory: '64Gi', cpu: '16' },
        });
      },
    },
    {
      name: 'SGLang: its own flags, image and module, the service still named VllmWorker',
      spec: {
        ...VLLM,
        engine: { type: 'sglang', contextLength: 32768, enablePrefixCaching: false },
        resources: { gpu: { count: 2 } },
      },
      check: (dgd) => {
        assert.equal(dgd.spec.backendFramework, 'sglang');
        const c = mainContainer(dgd, 'VllmWorker');
        assert.equal(c.image, 'nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.1.1');
        assert.deepEqual(c.command, ['python3', '-m', 'dynamo.sglang']);
        assert.deepEqual(c.args, [
          '--model-path',
          'Qwen/Qwen3-8B',
          '--context-length',
          '32768',
          '--disable-radix-cache',
          '--tp-size',
          '2',
        ]);
      },
    },
    {
      name: 'TensorRT-LLM: --model-path, no context-length flag, the tensorrtllm image',
      spec: { ...VLLM, engine: { type: 'trtllm', contextLength: 8192 } },
      check: (dgd) => {
        const c = mainContainer(dgd, 'VllmWorker');
        assert.equal(c.image, 'nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:1.1.1');
        assert.deepEqual(c.command, ['python3', '-m', 'dynamo.trtllm']);
        assert.deepEqual(c.args, ['--model-path', 'Qwen/Qwen3-8B']);
      },
    },
    {
      name: 'disaggregated: prefill and decode workers with their own replicas, GPUs, memory and NIXL',
      spec: DISAGG,
      check: (dgd) => {
        assert.deepEqual(Object.keys(dgd.spec.services!), ['Frontend', 'VllmPrefillWorker', 'VllmDecodeWorker']);
        for (const [name, role, replicas, gpus, memory] of [
          ['VllmPrefillWorker', 'prefill', 2, '4', '128Gi'],
          ['VllmDecodeWorker', 'decode', 4, '2', '64Gi'],
        ] as const) {
          const w = worker(dgd, name);
          assert.equal(w.subComponentType, role);
          assert.equal(w.replicas, replicas);
          assert.deepEqual(w.resources, { requests: { gpu: gpus }, limits: { gpu: gpus, memory } });
          assert.deepEqual(w.envs, [
            { name: 'VLLM_NIXL_SIDE_CHANNEL_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
          ]);
          assert.deepEqual(mainContainer(dgd, name).args, [
            '--model',
            'meta-llama/Llama-3.3-70B-Instruct',
            '--enable-prefix-caching',
            '--tensor-parallel-size',
            gpus,
            '--disaggregation-mode',
            role,
            '--kv-transfer-config',
            '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
          ]);
        }
      },
    },
    {
      name: 'disaggregated SGLang: the disaggregation mode, no vLLM KV connector',
      spec: { ...DISAGG, engine: { type: 'sglang' } },
      check: (dgd) => {
        assert.deepEqual(mainContainer(dgd, 'VllmDecodeWorker').args, [
          '--model-path',
          'meta-llama/Llama-3.3-70B-Instruct',
          '--tp-size',
          '2',
          '--disaggregation-mode',
          'decode',
        ]);
        assert.equal(worker(dgd, 'VllmDecodeWorker').envs, undefined);
      },
    },
    {
      name: 'an engine image runs the frontend and the workers',
      spec: { ...VLLM, engine: { type: 'vllm', image: 'registry.local/dynamo:custom' } },
      check: (dgd) => {
        assert.equal(mainContainer(dgd, 'Frontend').image, 'registry.local/dynamo:custom');
        assert.equal(mainContainer(dgd, 'VllmWorker').image, 'registry.local/dynamo:custom');
      },
    },
    {
      name: 'nodeSelector and tolerations go into every component’s extraPodSpec; podTemplate metadata onto its pods',
      spec: {
        ...DISAGG,
        nodeSelector: { pool: 'h100' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        podTemplate: { metadata: { labels: { team: 'a' }, annotations: { 'prometheus.io/scrape': 'true' } } },
      },
      check: (dgd) => {
        for (const [name, c] of Object.entries(dgd.spec.services!)) {
          assert.deepEqual(c.extraPodSpec?.nodeSelector, { pool: 'h100' }, name);
          assert.deepEqual(
            c.extraPodSpec?.tolerations,
            [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
            name,
          );
          assert.deepEqual(c.labels, { team: 'a', 'kubeairunway.ai/model-deployment': 'llm' }, name);
          assert.deepEqual(c.annotations, { 'prometheus.io/scrape': 'true' }, name);
        }
      },
    },
    {
      name: 'replicas 0 sticks',
      spec: { ...VLLM, scaling: { replicas: 0 } },
      check: (dgd) => assert.equal(worker(dgd, 'VllmWorker').replicas, 0),
    },
    {
      name: 'a non-NVIDIA GPU is a custom resource',
      spec: { ...VLLM, resources: { gpu: { count: 2, type: 'amd.com/gpu' } } },
      check: (dgd) =>
        assert.deepEqual(worker(dgd, 'VllmWorker').resources, {
          requests: { custom: { 'amd.com/gpu': '2' } },
          limits: { custom: { 'amd.com/gpu': '2' } },
        }),
    },
    {
      name: 'a custom model: no model flag (the image has it)',
      spec: {
        ...VLLM,
        model: { source: 'custom', servedName: 'ignored' },
        engine: { type: 'vllm', image: 'me/model:1' },
      },
      check: (dgd) => assert.deepEqual(mainContainer(dgd, 'VllmWorker').args, ['--enable-prefix-caching']),
    },
  ];
  transformCases(cases, md, (input) => dynamoProvider.transform(input));

  it('passes the token Secret by name (envFromSecret) and env secrets by reference', () => {
    const dgd = dynamoProvider.transform(
      md({
        ...DISAGG,
        secrets: { huggingFaceToken: 'hf-secret' },
        env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }],
      }),
    );
    assert.equal(worker(dgd, 'Frontend').envFromSecret, undefined, 'the frontend downloads no model');
    assert.deepEqual(pathsOf(dgd, 'hf-secret').sort(), [
      '.spec.services.VllmDecodeWorker.envFromSecret',
      '.spec.services.VllmPrefillWorker.envFromSecret',
    ]);
    assert.deepEqual(worker(dgd, 'VllmPrefillWorker').envs?.at(-1), {
      name: 'K',
      valueFrom: { secretKeyRef: { name: 'other', key: 'k' } },
    });
    assert.doesNotMatch(JSON.stringify(dgd), /"(data|stringData)"/);
  });

  it('refuses llama.cpp, naming the field', () => {
    assert.throws(() => dynamoProvider.transform(md({ ...VLLM, engine: { type: 'llamacpp' } })), {
      message: /^spec\.engine\.type: Dynamo runs vllm, sglang or trtllm workers, got llamacpp$/,
    });
  });
});

describe('dynamo overrides', () => {
  const rows: Array<{ name: string; overrides: unknown; patch: Record<string, unknown> }> = [
    { name: 'none', overrides: undefined, patch: {} },
    {
      name: 'routerMode kv → DYN_ROUTER_MODE on the Frontend',
      overrides: { routerMode: 'kv' },
      patch: { spec: { services: { Frontend: { envs: [{ name: 'DYN_ROUTER_MODE', value: 'kv' }] } } } },
    },
    {
      name: 'routerMode none → the frontend’s default (no env)',
      overrides: { routerMode: 'none' },
      patch: { spec: { services: { Frontend: { envs: [] } } } },
    },
    {
      name: 'frontend replicas and resources size the Frontend',
      overrides: { frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } } },
      patch: {
        spec: { services: { Frontend: { replicas: 2, resources: { requests: { cpu: '4', memory: '8Gi' } } } } },
      },
    },
    {
      name: 'raw spec fields merge over the translation',
      overrides: {
        routerMode: 'kv',
        spec: { services: { VllmWorker: { multinode: { nodeCount: 2 } }, Frontend: { replicas: 3 } } },
      },
      patch: {
        spec: {
          services: {
            Frontend: { envs: [{ name: 'DYN_ROUTER_MODE', value: 'kv' }], replicas: 3 },
            VllmWorker: { multinode: { nodeCount: 2 } },
          },
        },
      },
    },
    { name: 'epp: no Epp component to apply it to', overrides: { epp: { replicas: 2, image: 'x' } }, patch: {} },
  ];
  for (const r of rows) {
    it(r.name, () => {
      assert.deepEqual(translateDynamoOverrides(r.overrides), r.patch);
      assert.deepEqual(
        dynamoProvider.overridePatch(
          md({
            ...VLLM,
            provider: { name: 'dynamo', ...(r.overrides ? { overrides: r.overrides as Record<string, unknown> } : {}) },
          }),
        ),
        r.patch,
      );
    });
  }
  for (const [overrides, message] of [
    [{ routerMode: 3 }, /^spec\.provider\.overrides\.routerMode: /],
    [{ frontend: { replicas: -1 } }, /^spec\.provider\.overrides\.frontend\.replicas: must be an integer >= 0$/],
    [{ frontend: { resources: { cpu: true } } }, /^spec\.provider\.overrides\.frontend\.resources\.cpu: /],
    [{ spec: [] }, /^spec\.provider\.overrides\.spec: must be an object$/],
  ] as const) {
    it(`refuses ${JSON.stringify(overrides)}`, () =>
      assert.throws(() => translateDynamoOverrides(overrides), { message }));
  }
});

describe('dynamo mapStatus', () => {
  const dgd = (status: DynamoGraphDeployment['status'], generation = 1) =>
    withStatus(dynamoProvider.transform(md(DISAGG)), status, generation);
  const rows: Array<{ name: string; dgd: DynamoGraphDeployment; phase: string; message?: string }> = [
    {
      name: 'status mapping (docs/kubeairunway.md): state successful → Running',
      dgd: dgd({ state: 'successful', message: 'All resources are ready' }),
      phase: 'Running',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): state deploying → Deploying',
      dgd: dgd({ state: 'deploying', message: 'Resources not ready: VllmDecodeWorker: 1/4 ready' }),
      phase: 'Deploying',
      message: 'Resources not ready: VllmDecodeWorker: 1/4 ready',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): state failed → Failed with status.message',
      dgd: dgd({ state: 'failed', message: 'VllmWorker: CrashLoopBackOff: back-off restarting failed container' }),
      phase: 'Failed',
      message: 'VllmWorker: CrashLoopBackOff: back-off restarting failed container',
    },
    {
      name: 'state failed without a message → the Ready condition’s',
      dgd: dgd({
        state: 'failed',
        conditions: [{ type: 'Ready', status: 'False', reason: 'x', message: 'graph invalid' }],
      }),
      phase: 'Failed',
      message: 'graph invalid',
    },
    { name: 'state initializing → Deploying', dgd: dgd({ state: 'initializing' }), phase: 'Deploying' },
    {
      name: 'state pending → Pending',
      dgd: dgd({ state: 'pending', message: 'initializing the graph deployment' }),
      phase: 'Pending',
      message: 'initializing the graph deployment',
    },
    {
      name: 'an unknown state → Pending naming it',
      dgd: dgd({ state: 'exploded' }),
      phase: 'Pending',
      message: 'unknown DynamoGraphDeployment state: exploded',
    },
    { name: 'empty status → Pending', dgd: dgd({}), phase: 'Pending' },
    { name: 'no status → Pending', dgd: dgd(undefined), phase: 'Pending' },
    {
      name: 'a status for an older generation → Deploying',
      dgd: dgd({ state: 'successful', observedGeneration: 1 }, 2),
      phase: 'Deploying',
      message: 'waiting for the Dynamo operator to observe generation 2 (it reports 1)',
    },
  ];
  statusRows(rows, (r) => dynamoProvider.mapStatus(r.dgd, md(DISAGG)));

  it('sums the workers’ replicas (not the Frontend’s) and takes the endpoint from the status', () => {
    const s = dynamoProvider.mapStatus(
      dgd({
        state: 'deploying',
        services: {
          Frontend: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
          VllmPrefillWorker: { replicas: 2, readyReplicas: 1, availableReplicas: 1 },
          VllmDecodeWorker: { replicas: 4, availableReplicas: 3 },
        },
        endpoint: { service: 'llm-frontend', port: 8000 },
      }),
      md(DISAGG),
    );
    assert.deepEqual(s.replicas, { desired: 6, ready: 4, available: 4 });
    assert.deepEqual(s.endpoint, { service: 'llm-frontend', port: 8000 });
  });

  it('without service statuses: the spec’s worker replicas, ready once Running; endpoint <name>-frontend:8000', () => {
    assert.deepEqual(dynamoProvider.mapStatus(dgd({ state: 'successful' }), md(DISAGG)), {
      phase: 'Running',
      replicas: { desired: 6, ready: 6, available: 6 },
      endpoint: { service: 'llm-frontend', port: 8000 },
    });
    assert.deepEqual(dynamoProvider.mapStatus(dgd({ state: 'deploying' }), md(DISAGG)).replicas, {
      desired: 6,
      ready: 0,
      available: 0,
    });
  });
});
