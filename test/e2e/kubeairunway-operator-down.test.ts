// A provider whose upstream operator stops running is not selected (docs/kubeairunway.md, "Upstream
// operator"): on `modelplane dev`, scaling the simulated KubeRay operator's Deployment to 0 makes the kuberay
// provider not ready within seconds (it watches the operator's Deployment), `kubectl get ipc` says so, a new
// 2-GPU deployment goes to another provider, and scaling it back makes kuberay selectable again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { type DevTestCluster, startDevTestCluster } from '../helpers/dev-cluster.ts';
import { waitFor } from '../helpers/wait.ts';

const NS = 'liveness';

interface Ipc {
  status?: { ready?: boolean; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

const twoGpu = (name: string) =>
  JSON.stringify({
    apiVersion: 'kubeairunway.ai/v1alpha1',
    kind: 'ModelDeployment',
    metadata: { name, namespace: NS },
    spec: { model: { id: 'Qwen/Qwen3-32B' }, engine: { type: 'vllm' }, resources: { gpu: { count: 2 } } },
  });

describe('a provider whose upstream operator is down on modelplane dev', { timeout: 180_000 }, () => {
  let cluster: DevTestCluster;
  const ipc = async () => JSON.parse(await cluster.k(['get', 'ipc', 'kuberay', '-o', 'json'])) as Ipc;
  const provider = (name: string) =>
    waitFor(`${name} to get a provider`, async () => {
      const out = await cluster.kubectl(['get', 'md', name, '-n', NS, '-o', 'jsonpath={.status.provider.name}']);
      return out.code === 0 && out.stdout !== '' && out.stdout;
    });
  const scale = (replicas: number) =>
    cluster.k(['scale', 'deployment', 'kuberay-operator', '-n', 'kuberay-system', `--replicas=${replicas}`]);

  before(async () => {
    cluster = await startDevTestCluster({ log: new Logger({ level: 'error' }), controllers: true, namespaces: [NS] });
    await waitFor('kuberay ready', async () => (await ipc()).status?.ready === true, { timeoutMs: 60_000 });
  });
  after(async () => cluster?.stop());

  it('is not ready while its operator has no available replica, and new deployments skip it', async () => {
    await cluster.k(['apply', '-f', '-'], twoGpu('before'));
    assert.equal(await provider('before'), 'kuberay', 'the shipped rules pick kuberay for 2 GPUs');
    await scale(0);
    const down = await waitFor('kuberay not ready', async () => {
      const i = await ipc();
      return i.status?.ready === false && i;
    });
    const upstream = down.status?.conditions?.find((c) => c.type === 'UpstreamReady');
    assert.equal(upstream?.reason, 'OperatorNotRunning');
    assert.match(
      upstream?.message ?? '',
      /the KubeRay operator is not running: kuberay-system\/kuberay-operator 0\/0 available/,
    );
    const listed = await cluster.k(['get', 'ipc', 'kuberay']);
    assert.match(listed, /^NAME\s+READY\s+VERSION\s+HEARTBEAT\s+AGE\nkuberay\s+false\s/);
    await cluster.k(['apply', '-f', '-'], twoGpu('during'));
    assert.equal(await provider('during'), 'dynamo');
    await scale(1);
    await waitFor('kuberay ready again', async () => (await ipc()).status?.ready === true, { timeoutMs: 30_000 });
    await cluster.k(['apply', '-f', '-'], twoGpu('after'));
    assert.equal(await provider('after'), 'kuberay');
  });
});
