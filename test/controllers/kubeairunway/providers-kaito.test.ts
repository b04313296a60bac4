// The KAITO provider, pure: ModelDeployment → Workspace for each engine and placement, and Workspace status
// → unified phase for every row of docs/kubeairunway.md's status-mapping table plus KAITO's status.state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import { kaitoProvider, type Workspace } from '../../../src/controllers/kubeairunway/providers/kaito/index.ts';
import { deploymentsIn, pathsOf, statusRows, transformCases } from './provider-test-kit.ts';

const md = deploymentsIn('team-a', 'llm');

const CPU_LLAMA: ModelDeploymentSpec = {
  model: { id: 'google/gemma-3-1b-it' },
  engine: { type: 'llamacpp' },
  image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
  resources: { cpu: '4', memory: '8Gi' },
};
const GPU_VLLM: ModelDeploymentSpec = {
  model: { id: 'microsoft/Phi-4-mini-instruct' },
  engine: { type: 'vllm' },
  resources: { gpu: { count: 1 } },
};

describe('kaito transform', () => {
  it('builds a Workspace named like the deployment, with resource and inference at the root', () => {
    const ws = kaitoProvider.transform(md(CPU_LLAMA, 'gemma'));
    assert.equal(ws.apiVersion, 'kaito.sh/v1beta1');
    assert.equal(ws.kind, 'Workspace');
    assert.deepEqual([ws.metadata.name, ws.metadata.namespace], ['gemma', 'team-a']);
    assert.equal(ws.spec, undefined, 'no spec: KAITO reads resource and inference at the root');
    assert.deepEqual(ws.metadata.labels, {
      'kubeairunway.ai/model-deployment': 'gemma',
      'kubeairunway.ai/model-source': 'huggingface',
      'kubeairunway.ai/engine-type': 'llamacpp',
      'kubeairunway.ai/model-id': 'google_gemma-3-1b-it',
    });
    assert.equal(ws.metadata.ownerReferences, undefined, 'the skeleton adds the ownerReference');
  });

  const cases: Array<{ name: string; spec: ModelDeploymentSpec; check: (ws: Workspace) => void }> = [
    {
      name: 'CPU llama.cpp: a template running the image on Linux nodes, resource requests, no GPU',
      spec: CPU_LLAMA,
      check: (ws) => {
        assert.deepEqual(ws.resource, { count: 1, labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } });
        assert.equal(ws.inference?.preset, undefined);
        const t = ws.inference!.template!;
        assert.deepEqual(t.metadata, { labels: { 'kubeairunway.ai/model-deployment': 'llm' } });
        assert.deepEqual(t.spec.containers, [
          {
            name: 'model',
            image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
            args: ['huggingface://google/gemma-3-1b-it', '--address=:5000'],
            ports: [{ containerPort: 5000, protocol: 'TCP' }],
            resources: { requests: { cpu: '4', memory: '8Gi' } },
          },
        ]);
        assert.deepEqual(t.spec.nodeSelector, { 'kubernetes.io/os': 'linux' });
      },
    },
    {
      name: 'GPU llama.cpp: GPU nodes forced over the nodeSelector, GPU limit, GGUF url, tolerations, other args',
      spec: {
        ...CPU_LLAMA,
        engine: {
          type: 'llamacpp',
          image: 'ghcr.io/me/llama:1',
          args: { ggufUrl: 'https://hf.co/x.gguf', threads: '8' },
          extraArgs: ['--verbose'],
        },
        image: undefined,
        resources: { gpu: { count: 2 }, memory: '16Gi' },
        nodeSelector: { pool: 'a100', 'nvidia.com/gpu.present': 'false' },
        tolerations: [{ key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
      },
      check: (ws) => {
        assert.deepEqual(ws.resource?.labelSelector?.matchLabels, {
          'kubernetes.io/os': 'linux',
          pool: 'a100',
          'nvidia.com/gpu.present': 'true',
        });
        const t = ws.inference!.template!;
        const c = t.spec.containers[0]!;
        assert.equal(c.image, 'ghcr.io/me/llama:1');
        assert.deepEqual(c.args, ['https://hf.co/x.gguf', '--address=:5000', '--threads', '8', '--verbose']);
        assert.deepEqual(c.resources, {
          requests: { memory: '16Gi', 'nvidia.com/gpu': '2' },
          limits: { 'nvidia.com/gpu': '2' },
        });
        assert.deepEqual(t.spec.tolerations, [{ key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }]);
        assert.deepEqual(t.spec.nodeSelector, ws.resource?.labelSelector?.matchLabels);
      },
    },
    {
      name: 'AMD GPU llama.cpp: the AMD node label and amd.com/gpu',
      spec: { ...CPU_LLAMA, resources: { gpu: { count: 1, type: 'amd.com/gpu' } } },
      check: (ws) => {
        assert.equal(ws.resource?.labelSelector?.matchLabels?.['feature.node.kubernetes.io/amd-gpu'], 'true');
        assert.equal(ws.resource?.labelSelector?.matchLabels?.['nvidia.com/gpu.present'], undefined);
        assert.deepEqual((ws.inference!.template!.spec.containers[0]!.resources as { limits: unknown }).limits, {
          'amd.com/gpu': '1',
        });
      },
    },
    {
      name: 'custom llama.cpp image: no model argument (the model is in the image)',
      spec: { ...CPU_LLAMA, model: { source: 'custom' } },
      check: (ws) => assert.deepEqual(ws.inference!.template!.spec.containers[0]!.args, ['--address=:5000']),
    },
    {
      name: 'podTemplate labels and annotations go on the template pods',
      spec: {
        ...CPU_LLAMA,
        podTemplate: {
          metadata: {
            labels: { team: 'a', 'kubeairunway.ai/model-deployment': 'spoof' },
            annotations: { 'prometheus.io/scrape': 'true' },
          },
        },
      },
      check: (ws) => {
        assert.deepEqual(ws.inference!.template!.metadata, {
          labels: { team: 'a', 'kubeairunway.ai/model-deployment': 'llm' },
          annotations: { 'prometheus.io/scrape': 'true' },
        });
        assert.equal(ws.metadata.labels?.team, undefined, 'template form: pod labels stay on the pods');
        assert.equal(ws.metadata.annotations, undefined);
      },
    },
    {
      name: 'vLLM: a preset named after the model id, on GPU nodes',
      spec: GPU_VLLM,
      check: (ws) => {
        assert.deepEqual(ws.inference, { preset: { name: 'microsoft/Phi-4-mini-instruct' } });
        assert.deepEqual(ws.resource, {
          count: 1,
          labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux', 'nvidia.com/gpu.present': 'true' } },
        });
      },
    },
    {
      name: 'vLLM preset: podTemplate metadata goes on the Workspace (the pods are KAITO’s)',
      spec: { ...GPU_VLLM, podTemplate: { metadata: { labels: { team: 'a' }, annotations: { note: 'x' } } } },
      check: (ws) => {
        assert.equal(ws.metadata.labels?.team, 'a');
        assert.equal(ws.metadata.labels?.['kubeairunway.ai/engine-type'], 'vllm');
        assert.deepEqual(ws.metadata.annotations, { note: 'x' });
      },
    },
    {
      name: 'replicas become the node count',
      spec: { ...GPU_VLLM, scaling: { replicas: 3 } },
      check: (ws) => assert.equal(ws.resource?.count, 3),
    },
    {
      name: 'replicas 0: KAITO cannot scale to zero, one node',
      spec: { ...GPU_VLLM, scaling: { replicas: 0 } },
      check: (ws) => assert.equal(ws.resource?.count, 1),
    },
  ];
  transformCases(cases, md, (input) => kaitoProvider.transform(input));

  it('passes the Hugging Face token and env secrets by reference only', () => {
    const spec: ModelDeploymentSpec = {
      ...CPU_LLAMA,
      secrets: { huggingFaceToken: 'hf-secret' },
      env: [
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'api-secret', key: 'key' } } },
      ],
    };
    const ws = kaitoProvider.transform(md(spec));
    assert.deepEqual(ws.inference!.template!.spec.containers[0]!.env, [
      { name: 'HF_TOKEN', valueFrom: { secretKeyRef: { name: 'hf-secret', key: 'HF_TOKEN' } } },
      { name: 'LOG_LEVEL', value: 'debug' },
      { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'api-secret', key: 'key' } } },
    ]);
    assert.deepEqual(pathsOf(ws, 'hf-secret'), [
      '.inference.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name',
    ]);
    assert.doesNotMatch(JSON.stringify(ws), /"(data|stringData)"/);

    const preset = kaitoProvider.transform(md({ ...GPU_VLLM, secrets: { huggingFaceToken: 'hf-secret' } }));
    assert.deepEqual(preset.inference?.preset?.presetOptions, { modelAccessSecret: 'hf-secret' });
    assert.deepEqual(pathsOf(preset, 'hf-secret'), ['.inference.preset.presetOptions.modelAccessSecret']);
  });

  const errors: Array<{ name: string; spec: ModelDeploymentSpec; message: RegExp }> = [
    {
      name: 'sglang',
      spec: { ...GPU_VLLM, engine: { type: 'sglang' } },
      message: /^spec\.engine\.type: KAITO runs vllm .* got sglang/,
    },
    {
      name: 'the preset cannot carry env',
      spec: { ...GPU_VLLM, env: [{ name: 'A', value: '1' }] },
      message: /^spec\.env: KAITO's vLLM preset/,
    },
    {
      name: 'the preset cannot carry args, context length or an image (all named)',
      spec: { ...GPU_VLLM, engine: { type: 'vllm', args: { x: '1' }, contextLength: 4096 }, image: 'x:1' },
      message: /^spec\.engine\.args, spec\.engine\.contextLength, spec\.image: /,
    },
    {
      name: 'the preset needs a Hugging Face id',
      spec: { ...GPU_VLLM, model: { source: 'custom' } },
      message: /^spec\.model\.id: /,
    },
    {
      name: 'llama.cpp from Hugging Face needs an id or a GGUF url',
      spec: { ...CPU_LLAMA, model: {} },
      message: /^spec\.model\.id: the llama\.cpp template loads/,
    },
    {
      name: 'llama.cpp needs an image',
      spec: { ...CPU_LLAMA, image: undefined },
      message: /^spec\.image: the llamacpp engine on KAITO/,
    },
    {
      name: 'env from a ConfigMap is refused with its path',
      spec: {
        ...CPU_LLAMA,
        env: [
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { configMapKeyRef: { name: 'c', key: 'k' } } },
        ],
      },
      message:
        /^spec\.env\[1\]\.valueFrom \(B\): only value and valueFrom\.secretKeyRef are supported, got configMapKeyRef$/,
    },
    {
      name: 'a secretKeyRef without a key',
      spec: { ...CPU_LLAMA, env: [{ name: 'B', valueFrom: { secretKeyRef: { name: 's' } } }] },
      message: /^spec\.env\[0\]\.valueFrom\.secretKeyRef \(B\): name and key must both be set$/,
    },
  ];
  for (const e of errors)
    it(`refuses: ${e.name}`, () => assert.throws(() => kaitoProvider.transform(md(e.spec)), { message: e.message }));

  it('overridePatch is empty: KAITO has no supported overrides', () => {
    assert.deepEqual(
      kaitoProvider.overridePatch(md({ ...GPU_VLLM, provider: { name: 'kaito', overrides: { anything: 1 } } })),
      {},
    );
  });
});

describe('kaito mapStatus', () => {
  const cond = (type: string, status: string, reason: string, message?: string, observedGeneration?: number) => ({
    type,
    status,
    reason,
    ...(message ? { message } : {}),
    ...(observedGeneration ? { observedGeneration } : {}),
  });
  const ws = (status: Workspace['status'], extra: Partial<Workspace> = {}): Workspace => ({
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'llm', namespace: 'team-a', generation: 1 },
    resource: { count: 2 },
    ...(status ? { status } : {}),
    ...extra,
  });
  const rows: Array<{ name: string; ws: Workspace; phase: string; message?: string }> = [
    {
      name: 'status mapping (docs/kubeairunway.md): WorkspaceSucceeded True → Running',
      ws: ws({ conditions: [cond('WorkspaceSucceeded', 'True', 'workspaceSucceeded', 'workspace succeeds')] }),
      phase: 'Running',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): InferenceReady False → Deploying with its message',
      ws: ws({
        conditions: [
          cond('ResourceReady', 'True', 'ok'),
          cond(
            'InferenceReady',
            'False',
            'workspaceInferenceStatusNotReady',
            'inference deployment llm is not ready: 0/2 pods ready',
          ),
        ],
      }),
      phase: 'Deploying',
      message: 'inference deployment llm is not ready: 0/2 pods ready',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): error condition (WorkspaceSucceeded False) → Failed with its message',
      ws: ws({
        conditions: [
          cond('InferenceReady', 'False', 'workspaceInferenceStatusNotReady', 'waiting'),
          cond('WorkspaceSucceeded', 'False', 'workspaceFailed', 'pod llm-0: ImagePullBackOff'),
        ],
      }),
      phase: 'Failed',
      message: 'pod llm-0: ImagePullBackOff',
    },
    {
      name: 'status mapping (docs/kubeairunway.md): error condition (a stage condition KAITO marks failed) → Failed with its message',
      ws: ws({
        conditions: [
          cond('ResourceReady', 'False', 'workspaceResourceStatusFailed', 'no node matches resource.labelSelector'),
        ],
      }),
      phase: 'Failed',
      message: 'no node matches resource.labelSelector',
    },
    { name: 'state Ready → Running', ws: ws({ state: 'Ready' }), phase: 'Running' },
    { name: 'state Succeeded → Running', ws: ws({ state: 'Succeeded' }), phase: 'Running' },
    {
      name: 'state NotReady → Deploying with the InferenceReady message',
      ws: ws({
        state: 'NotReady',
        conditions: [cond('InferenceReady', 'False', 'workspaceInferenceStatusNotReady', '1/2 pods ready')],
      }),
      phase: 'Deploying',
      message: '1/2 pods ready',
    },
    {
      name: 'state Running (fine-tuning) → Deploying',
      ws: ws({ state: 'Running' }),
      phase: 'Deploying',
      message: 'fine-tuning in progress',
    },
    {
      name: 'state Failed → Failed',
      ws: ws({ state: 'Failed' }),
      phase: 'Failed',
      message: 'KAITO reports the workspace Failed',
    },
    {
      name: 'state Pending → Pending with the ResourceReady message',
      ws: ws({
        state: 'Pending',
        conditions: [
          cond('ResourceReady', 'False', 'workspaceResourceStatusPending', 'provisioning 2 node(s)'),
          cond('WorkspaceSucceeded', 'Unknown', 'workspacePending'),
        ],
      }),
      phase: 'Pending',
      message: 'provisioning 2 node(s)',
    },
    {
      name: 'an unknown state → Pending naming it',
      ws: ws({ state: 'Weird' }),
      phase: 'Pending',
      message: 'unknown workspace state: Weird',
    },
    {
      name: 'resources ready, no inference verdict yet → Deploying',
      ws: ws({ conditions: [cond('ResourceReady', 'True', 'ok')] }),
      phase: 'Deploying',
    },
    { name: 'empty status → Pending', ws: ws({}), phase: 'Pending' },
    { name: 'no status at all → Pending', ws: ws(undefined), phase: 'Pending' },
    {
      name: 'a verdict for an older generation → Deploying',
      ws: ws(
        { conditions: [cond('WorkspaceSucceeded', 'True', 'workspaceSucceeded', 'ok', 1)] },
        { metadata: { name: 'llm', namespace: 'team-a', generation: 2 } },
      ),
      phase: 'Deploying',
      message: 'waiting for the KAITO operator to observe generation 2 (it reports 1)',
    },
  ];
  statusRows(
    rows,
    (r) => kaitoProvider.mapStatus(r.ws, md(GPU_VLLM)),
    (s, r) => {
      assert.deepEqual(s.endpoint, { service: 'llm', port: 80 });
      const ready = r.phase === 'Running' ? 2 : 0;
      assert.deepEqual(s.replicas, { desired: 2, ready, available: ready });
    },
  );
});
