// The ModelDeployment admission webhooks as users meet them: the `webhooks` set runs as its own process under
// its generated RBAC, creates its certificate Secret, gets its caBundle injected, and kubectl prints every rule
// of docs/kubeairunway.md's validation table with its exact message. The defaulting webhook's values are stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import type { KubeObject } from '@modelplane/runtime/meta';
import { stringify } from 'yaml';
import { WEBHOOK_SERVICE, webhooksSet } from '../../src/controllers/webhooks.ts';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { DEPLOY_NAMESPACE, type OperatorProcess, startOperatorProcess } from '../helpers/operator-process.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'default';
const WEBHOOK = 'vmodeldeployment.kubeairunway.ai';

const md = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'kubeairunway.ai/v1alpha1',
  kind: 'ModelDeployment',
  metadata: { name, namespace: NS },
  spec,
});
const gpu0 = { gpu: { count: 0 } };

// docs/kubeairunway.md's "Schema validation (core webhook)" table, one object per row, with docs/kubeairunway.md's message
const RULES: Array<[string, Record<string, unknown>, string]> = [
  [
    'vllm without GPU',
    { model: { id: 'm' }, engine: { type: 'vllm' }, resources: gpu0 },
    'vLLM engine requires GPU (set resources.gpu.count > 0)',
  ],
  [
    'sglang without GPU',
    { model: { id: 'm' }, engine: { type: 'sglang' }, resources: gpu0 },
    'SGLang engine requires GPU (set resources.gpu.count > 0)',
  ],
  [
    'trtllm without GPU',
    { model: { id: 'm' }, engine: { type: 'trtllm' }, resources: gpu0 },
    'TensorRT-LLM engine requires GPU (set resources.gpu.count > 0)',
  ],
  [
    'disaggregated with resources.gpu',
    {
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      resources: { gpu: { count: 1 } },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { gpu: { count: 1 } } },
    },
    'Cannot specify both resources.gpu and scaling.prefill/decode',
  ],
  [
    'disaggregated without prefill/decode',
    { model: { id: 'm' }, engine: { type: 'vllm' }, serving: { mode: 'disaggregated' } },
    'Disaggregated mode requires scaling.prefill and scaling.decode',
  ],
  [
    'disaggregated without prefill GPUs',
    {
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { replicas: 1 }, decode: { gpu: { count: 1 } } },
    },
    'Disaggregated mode requires scaling.prefill.gpu.count',
  ],
  [
    'disaggregated without decode GPUs',
    {
      model: { id: 'm' },
      engine: { type: 'vllm' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { gpu: { count: 1 } }, decode: { replicas: 1 } },
    },
    'Disaggregated mode requires scaling.decode.gpu.count',
  ],
  ['missing engine.type', { model: { id: 'm' } }, 'engine.type is required'],
  [
    'missing model.id for huggingface',
    { model: { source: 'huggingface' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } },
    'model.id is required when source is huggingface',
  ],
  [
    'a managed volume of 20 bytes (the floor is 1Mi)',
    {
      model: { id: 'm', storage: { volumes: [{ name: 'v', size: '20', mountPath: '/data' }] } },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    },
    'spec.model.storage.volumes[0].size: 20 is below the minimum of 1Mi: set a larger size',
  ],
  [
    'a managed volume of 1Ei (the ceiling is 64Ti)',
    {
      model: { id: 'm', storage: { volumes: [{ name: 'v', size: '1Ei', mountPath: '/data' }] } },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
    },
    'spec.model.storage.volumes[0].size: 1Ei exceeds the maximum of 64Ti: set a smaller size, or create the PVC yourself and name it in claimName',
  ],
  [
    'provider CRD not installed',
    { model: { id: 'm' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, provider: { name: 'llmd' } },
    "Provider 'llmd' CRD not installed in cluster: inference.llm-d.example/v1alpha1 is not served; install the CRD of the provider's operator (the deployment proceeds once it is served)",
  ],
];

describe('ModelDeployment admission webhooks (webhooks set as a process)', { timeout: 180_000 }, () => {
  let cluster: DevTestCluster;
  let admin: KubeClient;
  let proc: OperatorProcess;
  const apply = (obj: object) => cluster.kubectl(['apply', '-f', '-'], stringify(obj));

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }) });
    admin = cluster.admin;
    // a provider that builds an API this cluster does not serve (llmd.ai itself is served now: the autoscaler's VariantAutoscaling)
    const ipc = {
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'InferenceProviderConfig',
      metadata: { name: 'llmd' },
      spec: { capabilities: { engines: [{ name: 'vllm', gpuSupport: true }] } },
    };
    await admin.apply(ipc as KubeObject);
    await admin.applyStatus({
      ...ipc,
      status: {
        ready: true,
        lastHeartbeat: new Date().toISOString(),
        upstreamCRDVersion: 'inference.llm-d.example/v1alpha1',
      },
    } as KubeObject);
    proc = await startOperatorProcess(cluster, admin, webhooksSet(), { extraArgs: cluster.webhookListenArgs() });
    const url = /"msg":"webhook server listening".*?"url":"(https:\/\/[^"]+)"/.exec(proc.output())?.[1];
    assert.ok(url, proc.output());
    await cluster.exposeWebhook(DEPLOY_NAMESPACE, WEBHOOK_SERVICE, url);
    // ready once a known-bad object is refused (the caBundle is injected and the provider cache synced)
    await waitFor(
      'the webhook to refuse a known-bad object',
      async () => {
        const r = await apply(md('probe', RULES.at(-1)![1]));
        if (r.code === 0)
          await admin
            .delete({ apiVersion: 'kubeairunway.ai/v1alpha1', kind: 'ModelDeployment' }, 'probe', NS)
            .catch(() => undefined);
        return r.code !== 0 && r.stderr.includes(WEBHOOK);
      },
      { timeoutMs: 60_000, detail: () => proc.output().slice(-3000) },
    );
  });

  after(async () => {
    await proc?.stop();
    await cluster?.stop();
  });

  for (const [what, spec, message] of RULES) {
    it(`refuses ${what}: "${message}"`, async () => {
      const r = await apply(md('bad', spec));
      assert.notEqual(r.code, 0, r.stdout);
      assert.equal(
        r.stderr.trim(),
        `Error from server (Forbidden): error when creating "STDIN": admission webhook "${WEBHOOK}" denied the request: ${message}`,
      );
    });
  }

  it('refuses privileged overrides, naming the path', async () => {
    const r = await apply(
      md('bad', {
        model: { id: 'm' },
        engine: { type: 'vllm' },
        resources: { gpu: { count: 1 } },
        provider: {
          name: 'dynamo',
          overrides: { spec: { services: { Frontend: { extraPodSpec: { securityContext: { privileged: true } } } } } },
        },
      }),
    );
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      /spec\.provider\.overrides\.spec\.services\.Frontend\.extraPodSpec\.securityContext: overriding "securityContext" is not allowed for security reasons/,
    );
  });

  it('stores the defaulting webhook values, and an explicit zero sticks', async () => {
    const r = await apply(
      md('good', {
        model: { id: 'Qwen/Qwen3-8B' },
        engine: { type: 'vllm', enablePrefixCaching: false },
        scaling: { replicas: 0 },
      }),
    );
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(await cluster.k(['get', 'md', 'good', '-n', NS, '-o', 'json']));
    assert.equal(out.spec.serving.mode, 'aggregated');
    assert.equal(out.spec.model.source, 'huggingface');
    assert.deepEqual(out.spec.resources.gpu, { count: 1, type: 'nvidia.com/gpu' });
    assert.equal(out.spec.scaling.replicas, 0);
    assert.equal(out.spec.engine.enablePrefixCaching, false);
  });

  it('warns at admission about a model name another deployment already serves on a Gateway', async () => {
    // "good" holds its model name on the Gateway, as the gateway controller records it
    await admin.withFieldManager('kubeairunway-gateway').applyStatus({
      apiVersion: 'kubeairunway.ai/v1alpha1',
      kind: 'ModelDeployment',
      metadata: { name: 'good', namespace: NS },
      status: {
        gateway: { modelName: 'Qwen/Qwen3-8B', gatewayNamespace: 'gateways', gatewayName: 'inference-gateway' },
        conditions: [
          {
            type: 'GatewayReady',
            status: 'True',
            reason: 'HTTPRouteAccepted',
            message: 'routed',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    } as KubeObject);
    const twin = md('twin', { model: { id: 'Qwen/Qwen3-8B' }, engine: { type: 'vllm' } });
    // until the webhook's cache has the holder's status (before, it warns of a claimant not routed yet)
    const r = await waitFor('the warning', async () => {
      const res = await apply(twin);
      return res.stderr.includes('is already served') && res;
    });
    assert.equal(r.code, 0, 'a warning, not a refusal');
    assert.match(
      r.stderr,
      new RegExp(
        `Warning: spec\\.gateway: model name "Qwen/Qwen3-8B" is already served through Gateway gateways/inference-gateway by ModelDeployment ${NS}/good; .*ModelNameConflict.*spec\\.gateway\\.weight on both`,
      ),
    );
    // a different name, or both asking to share by weight: no warning
    const other = await apply(
      md('other-name', {
        model: { id: 'Qwen/Qwen3-8B', servedName: 'qwen-b' },
        engine: { type: 'vllm' },
        gateway: { modelName: 'qwen-b' },
      }),
    );
    assert.equal(other.code, 0, other.stderr);
    assert.doesNotMatch(other.stderr, /Warning/);
  });

  it('its identity only ever touched its own certificate Secret, in its own namespace', () => {
    const mine = cluster.auditEntries().filter((e) => e.user === proc.user);
    assert.deepEqual(
      mine.filter((e) => e.code === 403).map((e) => `${e.verb} ${e.group}/${e.resource}`),
      [],
    );
    const secrets = mine.filter((e) => e.resource.startsWith('secrets'));
    assert.ok(secrets.length > 0);
    assert.ok(
      secrets.every(
        (e) => e.namespace === DEPLOY_NAMESPACE && (e.name === 'modelplane-webhook-server-cert' || e.verb === 'create'),
      ),
      JSON.stringify(secrets),
    );
  });
});
