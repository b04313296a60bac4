// What a ModelDeployment's status says when the core and its provider judge an edit differently, on
// modelplane dev with the webhook down (docs/kubeairunway.md, "Replicas" and "Upstream operator"):
// - `replicas: 0` stored on a KAITO deployment: the core refuses it (Validated=False, it knows KAITO's
//   capabilities) and the provider refuses it as incompatible (phase Failed). The phase is the provider's
//   once it has written the deployment's status, so the two never take it from each other: the status
//   settles, instead of being rewritten in a loop (hundreds of writes a second, the phase flipping between
//   Pending and Failed).
// - the CRD of a provider's resource deleted under a Running deployment: the provider says so
//   (ResourceCreated=False CRDNotInstalled, not Ready) instead of keeping "RayService created, pods are
//   ready" beside a raw "no matches for kind" error, and builds it again once the CRD is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';
import { startWebhooksDownCluster } from './helpers/webhooks-down-cluster.ts';

const NS = 'edits';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Md {
  metadata: { resourceVersion?: string };
  status?: { phase?: string; message?: string; conditions?: Condition[] };
}

const deployment = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: NS },
    spec: { ...spec, gateway: { enabled: false } },
  });
const cpuDeployment = (name: string) =>
  deployment(name, {
    model: { id: 'google/gemma-3-1b-it-qat-q4_0-gguf' },
    engine: { type: 'llamacpp' },
    image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
    resources: { cpu: '4', memory: '8Gi' },
  });
const rayDeployment = (name: string) =>
  deployment(name, {
    model: { id: 'Qwen/Qwen3-8B' },
    engine: { type: 'vllm' },
    provider: { name: 'kuberay' },
    resources: { gpu: { count: 2 } },
  });

describe('KubeAIRunway status on modelplane dev when core and provider disagree (webhook down)', {
  timeout: 240_000,
}, () => {
  let cluster: DevTestCluster;
  const md = async (name: string) => JSON.parse(await cluster.k(['get', 'md', name, '-n', NS, '-o', 'json'])) as Md;
  const cond = (m: Md, type: string) => m.status?.conditions?.find((c) => c.type === type);
  const statusWrites = (name: string) =>
    cluster
      .auditEntries()
      .filter(
        (e) => e.resource === 'modeldeployments/status' && e.namespace === NS && e.name === name && e.verb !== 'get',
      );
  const running = (name: string) =>
    waitFor(`${name} Running`, async () => (await md(name)).status?.phase === 'Running', {
      timeoutMs: 90_000,
      detail: () => md(name),
    });

  before(async () => {
    cluster = await startWebhooksDownCluster(NS);
  });
  after(async () => cluster?.stop());

  it("replicas: 0 on KAITO settles at the provider's Failed with Validated=False, never a write loop", async () => {
    await cluster.k(['apply', '-f', '-'], cpuDeployment('cpu-zero'));
    await running('cpu-zero');
    await cluster.k(['patch', 'md', 'cpu-zero', '-n', NS, '--type=merge', '-p', '{"spec":{"scaling":{"replicas":0}}}']);
    const refused = await waitFor(
      'cpu-zero refused by the core and the provider',
      async () => {
        const m = await md('cpu-zero');
        return cond(m, 'Validated')?.status === 'False' && cond(m, 'ProviderCompatible')?.status === 'False'
          ? m
          : undefined;
      },
      { timeoutMs: 60_000, detail: () => md('cpu-zero') },
    );
    const since = statusWrites('cpu-zero').length;
    // a fence: a second deployment goes from nothing to Running, each controller reconciling many times
    // meanwhile; a status that settled is not written in that time
    await cluster.k(['apply', '-f', '-'], cpuDeployment('cpu-fence'));
    await running('cpu-fence');
    const settled = await md('cpu-zero');
    const writes = statusWrites('cpu-zero').slice(since);
    assert.ok(
      writes.length <= 2,
      `cpu-zero's status was written ${writes.length} times after it settled (managers: ${[
        ...new Set(writes.map((e) => e.requestURI?.match(/fieldManager=([^&]+)/)?.[1])),
      ].join(', ')}), resourceVersion ${refused.metadata.resourceVersion} → ${settled.metadata.resourceVersion}`,
    );
    assert.equal(settled.status?.phase, 'Failed');
    assert.equal(
      settled.status?.message,
      'KAITO cannot run 0 replicas (it always runs at least one serving pod): set spec.scaling.replicas to 1 or more, or use a provider that runs 0 replicas',
    );
    assert.equal(
      cond(settled, 'Validated')?.message,
      "spec.scaling.replicas: 0 is not supported by provider 'kaito' (it always runs at least one serving pod): set replicas to 1 or more, or use a provider that runs 0 replicas (dynamo, llmd)",
    );
    assert.equal(cond(settled, 'ResourceCreated')?.status, 'True', 'the Workspace built before still serves');
    // a valid edit takes it back to Running
    await cluster.k(['patch', 'md', 'cpu-zero', '-n', NS, '--type=merge', '-p', '{"spec":{"scaling":{"replicas":1}}}']);
    await running('cpu-zero');
    assert.equal(cond(await md('cpu-zero'), 'Validated')?.status, 'True');
  });

  it('the RayService CRD deleted under a Running deployment: CRDNotInstalled, not a frozen Ready; back when it returns', async () => {
    await cluster.k(['apply', '-f', '-'], rayDeployment('ray-crd'));
    await running('ray-crd');
    const crd = JSON.parse(await cluster.k(['get', 'crd', 'rayservices.ray.io', '-o', 'json']));
    // not waiting for the CRD's instances to go (kubectl would): the wait below is on what the user sees
    await cluster.k(['delete', 'crd', 'rayservices.ray.io', '--wait=false']);
    const missing = await waitFor(
      'ray-crd ResourceCreated=False CRDNotInstalled',
      async () => {
        const m = await md('ray-crd');
        return cond(m, 'ResourceCreated')?.reason === 'CRDNotInstalled' ? m : undefined;
      },
      {
        timeoutMs: 60_000,
        detail: async () => ({
          md: await md('ray-crd'),
          crd: (await cluster.kubectl(['get', 'crd', 'rayservices.ray.io', '-o', 'json'])).stdout,
          rayservice: (await cluster.kubectl(['get', 'rayservice', 'ray-crd', '-n', NS, '-o', 'json'])).stdout,
        }),
      },
    );
    assert.equal(cond(missing, 'ResourceCreated')?.status, 'False');
    assert.notEqual(cond(missing, 'Ready')?.status, 'True', JSON.stringify(cond(missing, 'Ready')));
    assert.equal(
      cond(missing, 'ResourceCreated')?.message,
      "KubeRay's RayService CRD (rayservices.ray.io, ray.io/v1) is not installed in the cluster; waiting for it",
    );
    for (const c of missing.status?.conditions ?? [])
      assert.doesNotMatch(c.message ?? '', /no matches for kind/, `${c.type} quotes the client's raw error`);
    // the CRD comes back: the provider builds the RayService again
    const { metadata, status: _status, ...rest } = crd;
    await cluster.k(['create', '-f', '-'], JSON.stringify({ ...rest, metadata: { name: metadata.name } }));
    await waitFor(
      'ray-crd Running with its RayService again',
      async () => {
        const m = await md('ray-crd');
        return m.status?.phase === 'Running' && cond(m, 'ResourceCreated')?.status === 'True' ? m : undefined;
      },
      { timeoutMs: 90_000, detail: () => md('ray-crd') },
    );
    await cluster.k(['get', 'rayservice', 'ray-crd', '-n', NS]);
  });
});
