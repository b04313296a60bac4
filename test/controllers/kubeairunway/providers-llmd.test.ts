// The llm-d provider: a plain vLLM Deployment and its Service (no CRD), its InferencePool where served, and
// the Deployment's status mapped to the unified phases.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { ModelDeployment } from '../../../src/apis/kubeairunway/index.ts';
import {
  type OptionalView,
  planOptionalObjects,
} from '../../../src/controllers/kubeairunway/provider/optional-objects.ts';
import {
  llmdProvider,
  vllmDeploymentFor,
  vllmDeploymentStatus,
  vllmInferencePoolFor,
  vllmServiceFor,
} from '../../../src/controllers/kubeairunway/providers/llmd/index.ts';
import {
  checkProviderCompatibility,
  defaultModelDeployment,
} from '../../../src/controllers/kubeairunway/validation/index.ts';
import { PlanResult } from '../../../src/engine/index.ts';

const md = (spec: Partial<ModelDeployment['spec']> = {}): ModelDeployment =>
  defaultModelDeployment({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name: 'chat', namespace: 'team', uid: 'u1' },
    spec: {
      model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 2 } },
      scaling: { replicas: 2 },
      ...spec,
    },
  });

type Container = {
  name: string;
  image: string;
  args: string[];
  ports: Array<{ containerPort: number }>;
  resources: { limits?: Record<string, string> };
};
const containerOf = (d: KubeObject) =>
  (d.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

describe('llm-d transform', () => {
  it('a vLLM Deployment (replicas, GPUs as limits, tensor parallelism, served name) and a Service selecting its pods', () => {
    const d = vllmDeploymentFor(
      md({ podTemplate: { metadata: { labels: { 'kubeairunway.ai/model-deployment': 'spoof', team: 'a' } } } }),
    );
    assert.equal(d.kind, 'Deployment');
    assert.equal((d.spec as { replicas: number }).replicas, 2);
    const c = containerOf(d);
    assert.equal(c.image, 'vllm/vllm-openai:v0.9.1');
    assert.deepEqual(c.resources.limits, { 'nvidia.com/gpu': '2' });
    assert.ok(c.args.includes('--model') && c.args.includes('Qwen/Qwen3-8B'));
    assert.ok(c.args.join(' ').includes('--served-model-name qwen') || c.args.includes('--served-model-name=qwen'));
    assert.ok(
      c.args.some((a) => a.startsWith('--tensor-parallel-size')),
      c.args.join(' '),
    );
    const labels = (d.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    assert.equal(labels['kubeairunway.ai/model-deployment'], 'chat', 'a podTemplate label cannot break the selector');
    assert.equal(labels.team, 'a');
    const svc = vllmServiceFor(md());
    assert.deepEqual((svc.spec as { selector: Record<string, string> }).selector, {
      'kubeairunway.ai/model-deployment': 'chat',
    });
    assert.deepEqual(
      llmdProvider.extraObjects(md()).map((o) => `${o.kind}/${o.metadata.name}`),
      ['Service/chat'],
    );
  });

  it('compatibility: vLLM on GPUs, aggregated only', () => {
    assert.deepEqual(checkProviderCompatibility('llmd', md().spec), []);
    assert.deepEqual(checkProviderCompatibility('llmd', md({ engine: { type: 'sglang' } }).spec), [
      'llm-d does not support sglang engine',
    ]);
    assert.deepEqual(checkProviderCompatibility('llmd', md({ resources: { cpu: '4' } }).spec), ['llm-d requires GPU']);
  });
});

describe('llm-d status mapping', () => {
  const dep = (status: Record<string, unknown> | undefined, generation = 1): KubeObject => ({
    ...vllmDeploymentFor(md()),
    metadata: { name: 'chat', namespace: 'team', generation },
    ...(status ? { status } : {}),
  });
  const cond = (type: string, status: string, reason?: string, message?: string) => ({
    type,
    status,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  });
  const cases: Array<[string, KubeObject, string, RegExp?]> = [
    ['no status yet → Pending', dep(undefined), 'Pending'],
    [
      'Available → Running',
      dep({
        observedGeneration: 1,
        readyReplicas: 2,
        availableReplicas: 2,
        conditions: [cond('Available', 'True'), cond('Progressing', 'True', 'NewReplicaSetAvailable')],
      }),
      'Running',
    ],
    [
      'progress deadline exceeded → Failed with its message',
      dep({
        observedGeneration: 1,
        conditions: [
          cond('Available', 'False'),
          cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "chat-1" has timed out progressing.'),
        ],
      }),
      'Failed',
      /timed out progressing/,
    ],
    [
      'rolling out → Deploying with ready counts',
      dep({
        observedGeneration: 1,
        readyReplicas: 1,
        conditions: [cond('Available', 'False'), cond('Progressing', 'True', 'ReplicaSetUpdated')],
      }),
      'Deploying',
      /1\/2 vLLM pods ready/,
    ],
    [
      'an older generation → Deploying',
      dep({ observedGeneration: 1, conditions: [cond('Available', 'True')] }, 2),
      'Deploying',
      /observe generation 2/,
    ],
  ];
  for (const [name, d, phase, message] of cases) {
    it(name, () => {
      const s = vllmDeploymentStatus(d, md());
      assert.equal(s.phase, phase);
      if (message) assert.match(s.message ?? '', message);
      assert.deepEqual(s.endpoint, { service: 'chat', port: 8000 });
    });
  }
});

describe("llm-d's InferencePool (an optional object: only where the kind is served)", () => {
  const pool = llmdProvider.optionalObjects[0]!;
  const planFor = (m: ModelDeployment, views: OptionalView[]) => {
    const out = new PlanResult();
    planOptionalObjects(llmdProvider, m, views, out);
    return { applies: out.applies.map(({ object: o }) => `${o.kind}/${o.metadata.name}`), deletes: out.deletes };
  };
  const live = {
    apiVersion: 'inference.networking.k8s.io/v1',
    kind: 'InferencePool',
    metadata: {
      name: 'chat-pool',
      namespace: 'team',
      uid: 'p1',
      ownerReferences: [{ apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment', name: 'chat', uid: 'u1' }],
    },
  };

  it('selects the vLLM pods at port 8000, with the endpoint picker <name>-epp failing open', () => {
    const obj = vllmInferencePoolFor(md()) as KubeObject & { spec: Record<string, unknown> };
    assert.equal(pool.name(md()), 'chat-pool');
    assert.equal(obj.metadata.name, 'chat-pool');
    assert.deepEqual(obj.spec, {
      selector: { matchLabels: { 'kubeairunway.ai/model-deployment': 'chat' } },
      targetPorts: [{ number: 8000 }],
      endpointPickerRef: { name: 'chat-epp', port: { number: 9002 }, failureMode: 'FailOpen' },
    });
    // the pool selects exactly the pods the Deployment makes
    const template = (vllmDeploymentFor(md()).spec as { template: { metadata: { labels: Record<string, string> } } })
      .template;
    assert.equal(template.metadata.labels['kubeairunway.ai/model-deployment'], 'chat');
  });

  const cases: Array<[string, ModelDeployment, OptionalView[], string[], number]> = [
    ['served: applied', md(), [{ served: true }], ['InferencePool/chat-pool'], 0],
    ['not served: nothing, and no error', md(), [{ served: false }], [], 0],
    ['gateway turned off: none planned', md({ gateway: { enabled: false } }), [{ served: true }], [], 0],
    [
      'gateway turned off with our pool there: deleted',
      md({ gateway: { enabled: false } }),
      [{ served: true, live }],
      [],
      1,
    ],
    [
      'gateway turned off, a foreign pool of the name: left alone',
      md({ gateway: { enabled: false } }),
      [{ served: true, live: { ...live, metadata: { ...live.metadata, ownerReferences: [] } } }],
      [],
      0,
    ],
  ];
  for (const [name, m, views, applies, deletes] of cases)
    it(name, () => {
      const p = planFor(m, views);
      assert.deepEqual(p.applies, applies);
      assert.equal(p.deletes.length, deletes);
      if (deletes) assert.equal(p.deletes[0]!.metadata.uid, 'p1');
    });

  it('its config says the provider manages its pool, so the gateway routes to it', () => {
    assert.deepEqual(llmdProvider.config.capabilities?.gateway, {
      managesInferencePool: true,
      inferencePoolNamePattern: '{name}-pool',
    });
  });
});
