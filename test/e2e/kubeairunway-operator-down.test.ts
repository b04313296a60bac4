// A provider whose upstream operator stops running is not selected (docs/kubeairunway.md, "Upstream
// operator"): on `modelplane dev`, scaling the simulated KubeRay operator's Deployment to 0 makes the kuberay
// provider not ready within seconds (it watches the operator's Deployment), `kubectl get ipc` says so, a new
// 2-GPU deployment goes to another provider, and scaling it back makes kuberay selectable again. Deleting the
// RayService CRD (RayCluster stays served) is seen as fast (the provider watches its CRD): the webhook refuses
// provider.name: kuberay naming the missing kind, and reinstalling the CRD brings kuberay back.
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

  it('is not ready within seconds of its CRD being deleted, and the webhook names the missing kind', async () => {
    const crd = JSON.parse(await cluster.k(['get', 'crd', 'rayservices.ray.io', '-o', 'json']));
    await cluster.k(['delete', 'crd', 'rayservices.ray.io']);
    // the heartbeat is a minute apart: within 10 s it is the CRD watch that tells (measured: 62 ms)
    const down = await waitFor(
      'kuberay not ready after its CRD went',
      async () => {
        const i = await ipc();
        return i.status?.ready === false && i;
      },
      { timeoutMs: 10_000 },
    );
    // 'after' ran on kuberay: its RayService went with the CRD, so it is selected again, and the event says
    // why in the CRD's words (never as a raw 404 of an apply)
    const notes = await waitFor('after selected again, naming the missing CRD', async () => {
      const list = JSON.parse(
        await cluster.k(['get', 'events', '-n', NS, '--field-selector', 'involvedObject.name=after', '-o', 'json']),
      ) as { items: Array<{ reason?: string; message?: string }> };
      return list.items.some((e) => e.reason === 'ProviderSelected') && list.items;
    });
    assert.match(
      notes.find((e) => e.reason === 'ProviderSelected')?.message ?? '',
      /provider kuberay is unavailable: not ready \(status\.ready is false\): KubeRay's RayService CRD \(rayservices\.ray\.io, ray\.io\/v1\) is not installed in the cluster.*selected again \(was kuberay\)$/,
    );
    assert.deepEqual(
      notes.filter((e) => /could not find the requested resource/.test(e.message ?? '')),
      [],
    );
    const crdCondition = down.status?.conditions?.find((c) => c.type === 'UpstreamCRDInstalled');
    assert.equal(crdCondition?.status, 'False');
    assert.match(
      crdCondition?.message ?? '',
      /^KubeRay's RayService CRD \(rayservices\.ray\.io, ray\.io\/v1\) is not installed/,
    );
    // the webhook's own CRD cache follows the deletion too (a dry run: nothing is created while it catches up)
    const named = await waitFor('the webhook to refuse provider.name: kuberay', async () => {
      const r = await cluster.kubectl(
        ['apply', '--dry-run=server', '-f', '-'],
        JSON.stringify({
          ...JSON.parse(twoGpu('named')),
          spec: { ...JSON.parse(twoGpu('named')).spec, provider: { name: 'kuberay' } },
        }),
      );
      return r.code !== 0 && r;
    });
    assert.match(
      named.stderr,
      /denied the request: Provider 'kuberay' CRD not installed in cluster: kind RayService of ray\.io\/v1 is not served; install the CRD of the provider's operator \(the deployment proceeds once it is served\)/,
    );
    delete crd.metadata.resourceVersion;
    delete crd.metadata.uid;
    delete crd.metadata.creationTimestamp;
    delete crd.metadata.managedFields;
    delete crd.status;
    await cluster.k(['apply', '-f', '-'], JSON.stringify(crd));
    await waitFor('kuberay ready again', async () => (await ipc()).status?.ready === true, { timeoutMs: 20_000 });
    await cluster.k(['apply', '-f', '-'], twoGpu('crd-back'));
    assert.equal(await provider('crd-back'), 'kuberay');
  });
});
