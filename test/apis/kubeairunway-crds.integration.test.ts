// The kubeairunway.ai CRDs on the test cluster (embedded or real API server): installed and Established,
// docs/kubeairunway.md's and the reference's example shapes accepted unchanged, explicit zero values kept,
// status split between field managers with server-side apply, and the printer columns kubectl shows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { raw, startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import {
  INFERENCE_PROVIDER_CONFIG_KIND,
  KAR_API_VERSION,
  kubeairunwayCrds,
  MODEL_DEPLOYMENT_KIND,
  modelDeploymentSpecSchema,
  RECONCILE_PAUSED_ANNOTATION,
} from '../../src/apis/kubeairunway/index.ts';
import { createCrdAndWait } from './crd-helpers.ts';

const mds = (ns: string) => `/apis/${KAR_API_VERSION}/namespaces/${ns}/modeldeployments`;
const ipcs = `/apis/${KAR_API_VERSION}/inferenceproviderconfigs`;

function md(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return { apiVersion: KAR_API_VERSION, kind: MODEL_DEPLOYMENT_KIND, metadata: { name, ...metadata }, spec };
}

// Example specs: docs/kubeairunway.md's override fragments and the upstream samples (docs/kubeairunway.md).
const EXAMPLES: Array<[string, Record<string, unknown>]> = [
  [
    'llama-8b-vllm',
    {
      model: { id: 'meta-llama/Llama-3.1-8B-Instruct', source: 'huggingface' },
      engine: { type: 'vllm', contextLength: 8192 },
      resources: { gpu: { count: 1 }, memory: '32Gi' },
      secrets: { huggingFaceToken: 'hf-token' },
    },
  ],
  [
    'gemma-cpu',
    {
      model: { id: 'google/gemma-3-1b-it-qat-q8_0-gguf' },
      engine: { type: 'llamacpp' },
      resources: { cpu: '8', memory: '16Gi' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
    },
  ],
  [
    'llama-70b-disagg',
    {
      model: { id: 'meta-llama/Llama-3.3-70B-Instruct' },
      engine: { type: 'vllm' },
      provider: {
        name: 'dynamo',
        overrides: { routerMode: 'kv', frontend: { replicas: 2, resources: { cpu: '4', memory: '8Gi' } } },
      },
      serving: { mode: 'disaggregated' },
      scaling: {
        prefill: { replicas: 2, gpu: { count: 4 }, memory: '128Gi' },
        decode: { replicas: 4, gpu: { count: 2 }, memory: '64Gi' },
      },
    },
  ],
  [
    'kuberay-overrides',
    {
      model: { id: 'Qwen/Qwen2.5-7B-Instruct' },
      engine: { type: 'vllm', args: { 'max-num-seqs': '64', 'disable-log-requests': '' } },
      provider: {
        name: 'kuberay',
        overrides: {
          head: {
            resources: { cpu: '4', memory: '8Gi' },
            rayStartParams: { 'dashboard-host': '0.0.0.0', 'num-cpus': '0' },
          },
        },
      },
      resources: { gpu: { count: 2, type: 'nvidia.com/gpu' } },
      env: [{ name: 'VLLM_LOGGING_LEVEL', value: 'DEBUG' }],
      podTemplate: { metadata: { labels: { team: 'ml' }, annotations: { 'example.com/owner': 'ml' } } },
      nodeSelector: { 'node.kubernetes.io/instance-type': 'gpu-large' },
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
    },
  ],
  [
    'custom-image',
    {
      model: { source: 'custom' },
      engine: { type: 'llamacpp' },
      resources: { cpu: '4' },
      image: 'ghcr.io/kaito-project/aikit/llama3.2:1b',
    },
  ],
];

describe('kubeairunway.ai CRDs', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
    for (const crd of kubeairunwayCrds()) await createCrdAndWait(cluster, crd);
    await cluster.k(['create', 'namespace', 'ml']);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('installs both kinds Established, with the short names kubectl resolves', async () => {
    assert.deepEqual(
      kubeairunwayCrds().map((c) => [c.spec.names.kind, c.spec.scope]),
      [
        [INFERENCE_PROVIDER_CONFIG_KIND, 'Cluster'],
        [MODEL_DEPLOYMENT_KIND, 'Namespaced'],
      ],
    );
    for (const short of ['md', 'ipc', 'modeldeployment', 'inferenceproviderconfigs']) {
      const r = await cluster.kubectl(['get', short, '-A']);
      assert.equal(r.code, 0, `${short}: ${r.stderr}`);
    }
  });

  describe('example specs apply unchanged and round-trip', () => {
    for (const [name, spec] of EXAMPLES) {
      it(name, async () => {
        assert.ok(modelDeploymentSpecSchema.safeParse(spec).success, 'the zod schema accepts it too');
        const r = await raw(
          cluster,
          'POST',
          mds('ml'),
          md(name, spec, { annotations: { [RECONCILE_PAUSED_ANNOTATION]: 'true' } }),
        );
        assert.equal(r.status, 201, r.text);
        assertContains(r.json().spec, spec, 'spec');
      });
    }
  });

  it('keeps explicit zero values: replicas 0, gpu.count 0, enablePrefixCaching false (no default overwrites them)', async () => {
    const spec = {
      model: { id: 'm' },
      engine: { type: 'vllm', enablePrefixCaching: false, enforceEager: false, trustRemoteCode: false },
      scaling: { replicas: 0, prefill: { replicas: 0, gpu: { count: 0 } } },
      resources: { gpu: { count: 0 } },
    };
    const created = await raw(cluster, 'POST', mds('ml'), md('zeros', spec));
    assert.equal(created.status, 201, created.text);
    const live = (await raw(cluster, 'GET', `${mds('ml')}/zeros`)).json();
    assert.equal(live.spec.scaling.replicas, 0);
    assert.equal(live.spec.scaling.prefill.replicas, 0);
    assert.equal(live.spec.scaling.prefill.gpu.count, 0);
    assert.equal(live.spec.resources.gpu.count, 0);
    assert.equal(live.spec.engine.enablePrefixCaching, false);
    assert.equal(live.spec.engine.enforceEager, false);
    // a merge patch that touches another field leaves them alone too
    const patched = await raw(
      cluster,
      'PATCH',
      `${mds('ml')}/zeros`,
      { spec: { image: 'x' } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json().spec.scaling.replicas, 0);
    assert.equal(patched.json().spec.engine.enablePrefixCaching, false);
  });

  it('fills the schema defaults only into absent fields', async () => {
    const r = await raw(
      cluster,
      'POST',
      mds('ml'),
      md('defaults', {
        model: { id: 'm' },
        engine: { type: 'vllm' },
        serving: {},
        scaling: {},
        resources: { gpu: { count: 1 } },
      }),
    );
    assert.equal(r.status, 201, r.text);
    const spec = r.json().spec;
    assert.equal(spec.model.source, 'huggingface');
    assert.equal(spec.engine.enablePrefixCaching, true);
    assert.equal(spec.serving.mode, 'aggregated');
    assert.equal(spec.scaling.replicas, 1);
    assert.deepEqual(spec.resources.gpu, { count: 1, type: 'nvidia.com/gpu' });
  });

  it('rejects values of the wrong type naming the field', async () => {
    const r = await raw(
      cluster,
      'POST',
      mds('ml'),
      md('bad', {
        model: { id: 'm' },
        engine: { type: 'tgi' },
        scaling: { replicas: -1 },
        provider: { overrides: 'x' },
      }),
    );
    assert.equal(r.status, 422, r.text);
    for (const field of ['spec.engine.type', 'spec.scaling.replicas', 'spec.provider.overrides'])
      assert.match(r.text, new RegExp(field.replace(/\./g, '\\.')));
  });

  it('lets the core and a provider server-side apply disjoint parts of status without conflicts', async () => {
    assert.equal(
      (await raw(cluster, 'POST', mds('ml'), md('owned', { model: { id: 'm' }, engine: { type: 'vllm' } }))).status,
      201,
    );
    const apply = (manager: string, status: Record<string, unknown>) =>
      raw(
        cluster,
        'PATCH',
        `${mds('ml')}/owned/status?fieldManager=${manager}`,
        { apiVersion: KAR_API_VERSION, kind: MODEL_DEPLOYMENT_KIND, metadata: { name: 'owned' }, status },
        {
          contentType: 'application/apply-patch+yaml',
        },
      );
    const cond = (type: string, status: string) => ({
      type,
      status,
      reason: type,
      message: '',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const core = await apply('kubeairunway-core', {
      provider: { name: 'dynamo', selectedReason: 'matched capabilities' },
      conditions: [cond('Validated', 'True'), cond('ProviderSelected', 'True')],
    });
    assert.equal(core.status, 200, core.text);
    const provider = await apply('dynamo-provider', {
      phase: 'Running',
      provider: { resourceName: 'owned', resourceKind: 'DynamoGraphDeployment' },
      replicas: { desired: 1, ready: 1, available: 1 },
      endpoint: { service: 'owned-frontend', port: 8000 },
      conditions: [cond('ProviderCompatible', 'True'), cond('ResourceCreated', 'True'), cond('Ready', 'True')],
    });
    assert.equal(provider.status, 200, provider.text);
    // the core re-applies its part: nothing of the provider's is lost
    assert.equal(
      (
        await apply('kubeairunway-core', {
          provider: { name: 'dynamo', selectedReason: 'sticky' },
          conditions: [cond('Validated', 'True'), cond('ProviderSelected', 'True')],
        })
      ).status,
      200,
    );
    const live = (await raw(cluster, 'GET', `${mds('ml')}/owned`)).json();
    assert.deepEqual(live.status.provider, {
      name: 'dynamo',
      selectedReason: 'sticky',
      resourceName: 'owned',
      resourceKind: 'DynamoGraphDeployment',
    });
    assert.deepEqual(live.status.conditions.map((c: { type: string }) => c.type).sort(), [
      'ProviderCompatible',
      'ProviderSelected',
      'Ready',
      'ResourceCreated',
      'Validated',
    ]);
    const managers = (live.metadata.managedFields as Array<{ manager: string; subresource?: string }>)
      .filter((f) => f.subresource === 'status')
      .map((f) => f.manager)
      .sort();
    assert.deepEqual(managers, ['dynamo-provider', 'kubeairunway-core']);

    const out = await cluster.k(['get', 'md', '-n', 'ml', 'owned']);
    assert.match(out, /^NAME\s+PHASE\s+PROVIDER\s+ENGINE\s+READY\s+AGE\nowned\s+Running\s+dynamo\s+vllm\s+True\s/);
  });

  it('stores InferenceProviderConfigs with rules, capabilities and a heartbeat status', async () => {
    const spec = {
      capabilities: {
        engines: [{ name: 'vllm', servingModes: ['aggregated', 'disaggregated'], gpuSupport: true }],
        requiresCRD: true,
      },
      selectionRules: [{ condition: "spec.engine.type == 'vllm'", priority: 50 }, { condition: 'true' }],
    };
    const r = await raw(cluster, 'POST', ipcs, {
      apiVersion: KAR_API_VERSION,
      kind: INFERENCE_PROVIDER_CONFIG_KIND,
      metadata: { name: 'dynamo' },
      spec,
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json().spec.selectionRules[1].priority, 0, 'priority defaults to 0');
    const s = await raw(
      cluster,
      'PATCH',
      `${ipcs}/dynamo/status`,
      { status: { ready: true, version: 'dynamo-provider:0.1.0', lastHeartbeat: '2026-01-01T00:00:00Z' } },
      { contentType: 'application/merge-patch+json' },
    );
    assert.equal(s.status, 200, s.text);
    const out = await cluster.k(['get', 'ipc']);
    // HEARTBEAT is the age of the last beat: a READY true beside an old heartbeat is a dead provider
    assert.match(
      out,
      /^NAME\s+READY\s+VERSION\s+HEARTBEAT\s+AGE\ndynamo\s+true\s+dynamo-provider:0\.1\.0\s+\d+[dy]\S*\s+\d+s\n/,
    );
  });
});

/** every field of `expected` is in `actual` with the same value (the server may add defaults around them) */
function assertContains(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(
      actual !== null && typeof actual === 'object',
      `${path}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [k, v] of Object.entries(expected))
      assertContains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    return;
  }
  assert.deepEqual(actual, expected, path);
}
