// Each built-in provider's transform, created as is on the embedded API server with the simulated operators
// running (KAITO, Dynamo, KubeRay; for AIM the AIMService controller over the simulated KServe), is accepted
// by the upstream CRD's schema and reaches the state its mapStatus reads as Running. Polls; never sleeps
// for a fixed time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeClient } from '@modelplane/runtime/client';
import type { ModelDeployment, ModelDeploymentSpec } from '../../../src/apis/kubeairunway/index.ts';
import type { MappedStatus } from '../../../src/controllers/kubeairunway/provider/definition.ts';
import { mergeOverrides } from '../../../src/controllers/kubeairunway/provider/merge.ts';
import {
  BUILTIN_PROVIDER_DEFINITIONS,
  type BuiltinProviderDefinition,
} from '../../../src/controllers/kubeairunway/providers/index.ts';
import { startAimCluster } from '../../e2e/helpers/aim-cluster.ts';
import type { OperatorTestCluster } from '../../helpers/dev-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

const NS = 'providers-sim';

function md(name: string, spec: ModelDeploymentSpec): ModelDeployment {
  return {
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: NS, uid: `uid-${name}` },
    spec,
  };
}

interface Case {
  provider: BuiltinProviderDefinition;
  md: ModelDeployment;
}

const CASES: Case[] = [
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.kaito,
    md: md('kaito-cpu', {
      model: { id: 'google/gemma-3-1b-it' },
      engine: { type: 'llamacpp' },
      image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
      resources: { cpu: '4', memory: '8Gi' },
      secrets: { huggingFaceToken: 'hf-token' },
    }),
  },
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.kaito,
    md: md('kaito-gpu', {
      model: { id: 'microsoft/Phi-4-mini-instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 } },
      podTemplate: { metadata: { labels: { team: 'a' } } },
    }),
  },
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.dynamo,
    md: md('dynamo-agg', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1 }, memory: '32Gi' },
      secrets: { huggingFaceToken: 'hf-token' },
      nodeSelector: { 'nvidia.com/gpu.present': 'true' },
    }),
  },
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.dynamo,
    md: md('dynamo-disagg', {
      model: { id: 'Qwen/Qwen3-8B' },
      engine: { type: 'sglang' },
      serving: { mode: 'disaggregated' },
      scaling: { prefill: { replicas: 1, gpu: { count: 2 } }, decode: { replicas: 1, gpu: { count: 1 } } },
    }),
  },
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.kuberay,
    md: md('kuberay-2gpu', {
      model: { id: 'meta-llama/Llama-3.1-8B-Instruct' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 2 }, memory: '64Gi' },
      secrets: { huggingFaceToken: 'hf-token' },
      provider: {
        name: 'kuberay',
        overrides: { head: { resources: { cpu: '2' }, rayStartParams: { 'num-cpus': '0' } } },
      },
    }),
  },
  {
    provider: BUILTIN_PROVIDER_DEFINITIONS.aim,
    md: md('aim-mi300', {
      model: { id: 'Qwen/Qwen3-32B' },
      engine: { type: 'vllm' },
      resources: { gpu: { count: 1, type: 'amd.com/gpu' } },
      provider: { name: 'aim', overrides: { imagePullSecrets: [{ name: 'registry' }] } },
    }),
  },
];

/** transform(md) with overridePatch(md) merged in by the skeleton's own merge */
function desired(c: Case) {
  return mergeOverrides(c.provider.transform(c.md) as Record<string, unknown>, c.provider.overridePatch(c.md));
}

describe('built-in providers on the simulated operators', { timeout: 90_000 }, () => {
  let cluster: OperatorTestCluster<unknown>;
  let client: KubeClient;

  before(async () => {
    // the whole AIM chain: a Hugging Face model becomes a custom AIMModel with its own templates
    cluster = await startAimCluster('providers-sim-aim', { namespaces: [NS] });
    client = cluster.admin.withFieldManager('providers-test');
  });

  after(() => cluster?.stop());

  it('every transformed object is accepted and reaches Running', async () => {
    const outcomes = await Promise.all(
      CASES.map(async (c) => {
        await client.apply(desired(c) as never);
        const name = c.md.metadata.name!;
        const seen: MappedStatus['phase'][] = [];
        let last: MappedStatus | undefined;
        await waitFor(
          `${name} to reach Running or Failed`,
          async () => {
            last = c.provider.mapStatus(await client.get(c.provider.upstream, name, NS), c.md);
            if (seen.at(-1) !== last.phase) seen.push(last.phase);
            return last.phase === 'Running' || last.phase === 'Failed';
          },
          {
            timeoutMs: 60_000,
            intervalMs: 200,
            detail: () => `phases ${seen.join(' → ')}, last ${JSON.stringify(last)}`,
          },
        );
        return { name, seen, last };
      }),
    );
    for (const o of outcomes) {
      assert.equal(o.last?.phase, 'Running', `${o.name}: phases ${o.seen.join(' → ')}, last ${JSON.stringify(o.last)}`);
      assert.ok(!o.seen.includes('Failed'), `${o.name} never Failed: ${o.seen.join(' → ')}`);
      assert.ok(
        (o.last?.replicas?.ready ?? 0) >= 1,
        `${o.name}: ready replicas reported: ${JSON.stringify(o.last?.replicas)}`,
      );
    }
  });

  it('the KubeRay head override reached the Ray head pod', async () => {
    const pods = await client.list<{
      apiVersion: string;
      kind: string;
      metadata: { labels?: Record<string, string> };
      spec?: { containers?: Array<{ resources?: { limits?: Record<string, string> } }> };
    }>(
      { apiVersion: 'v1', kind: 'Pod' },
      { namespace: NS, labelSelector: 'ray.io/originated-from-cr-name=kuberay-2gpu,ray.io/node-type=head' },
    );
    assert.equal(pods.items.length, 1);
    assert.equal(pods.items[0]!.spec?.containers?.[0]?.resources?.limits?.cpu, '2');
  });

  it('the endpoint each mapStatus reports is a Service the operator created', async () => {
    for (const c of CASES) {
      const live = await client.get(c.provider.upstream, c.md.metadata.name!, NS);
      const { endpoint } = c.provider.mapStatus(live, c.md);
      assert.ok(endpoint, `${c.md.metadata.name}: an endpoint`);
      const svc = await client.get<{
        apiVersion: string;
        kind: string;
        metadata: { name?: string };
        spec?: { ports?: Array<{ port: number }> };
      }>({ apiVersion: 'v1', kind: 'Service' }, endpoint.service, NS);
      assert.ok(
        svc.spec?.ports?.some((p) => p.port === endpoint.port),
        `${c.md.metadata.name}: Service ${endpoint.service} serves port ${endpoint.port}: ${JSON.stringify(svc.spec?.ports)}`,
      );
    }
  });

  it('pod template labels reach the pods where the upstream kind has a pod template', async () => {
    const pods = await client.list<{
      apiVersion: string;
      kind: string;
      metadata: { name?: string; labels?: Record<string, string> };
    }>({ apiVersion: 'v1', kind: 'Pod' }, { namespace: NS, labelSelector: 'kubeairunway.ai/model-deployment' });
    const owners = new Set(pods.items.map((p) => p.metadata.labels?.['kubeairunway.ai/model-deployment']));
    for (const name of ['kaito-cpu', 'dynamo-agg', 'dynamo-disagg', 'kuberay-2gpu'])
      assert.ok(owners.has(name), `pods of ${name} carry the model-deployment label (have ${[...owners].join(', ')})`);
  });
});
