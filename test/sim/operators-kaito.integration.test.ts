// The simulated KAITO workspace controller on the test cluster: the happy path to
// WorkspaceSucceeded, a crashing inference pod (Failed with the pod's reason), pods that cannot be
// scheduled (still deploying, message surfaced), no matching nodes, a template workspace and tuning.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SimDeployments, SimServices, Workspaces } from '@modelplane/sim/operators';
import { gpusPerReplica, presetImage } from '@modelplane/sim/operators/kaito-workload';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const NS = 'kaito';

function workspace(name: string, body: Record<string, unknown>, annotations?: Record<string, string>) {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
    ...body,
  };
}

const gpuResource = {
  instanceType: 'Standard_NC12s_v3',
  labelSelector: { matchLabels: { 'nvidia.com/gpu.present': 'true' } },
};

describe('KAITO workload plan', () => {
  it('names preset images after the preset, including Hugging Face ids', () => {
    assert.equal(presetImage('falcon-7b'), 'mcr.microsoft.com/aks/kaito/kaito-falcon-7b:0.2.0');
    assert.equal(
      presetImage('meta-llama/Llama-3.1-8B-Instruct'),
      'mcr.microsoft.com/aks/kaito/kaito-meta-llama-llama-3.1-8b-instruct:0.2.0',
    );
  });
  it('requests the GPUs of the instance type, one when the type is unknown or unset', () => {
    assert.equal(gpusPerReplica({ instanceType: 'Standard_NC96ads_A100_v4' }), 4);
    assert.equal(gpusPerReplica({ instanceType: 'Standard_ND96isr_H100_v5' }), 8);
    assert.equal(gpusPerReplica({ instanceType: 'custom-sku' }), 1);
    assert.equal(gpusPerReplica({}), 1);
  });
});

describe('KAITO simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['kaito'] });
    await ensureNamespace(c.client, NS);
  });
  after(async () => c?.close());

  const waitFor = (name: string, what: string, pred: (ws: Awaited<ReturnType<typeof getObj>>) => boolean) =>
    eventually(what, async () => {
      const ws = await getObj(c.client, Workspaces, name, NS);
      return ws && pred(ws) ? ws : undefined;
    });

  it('a preset workspace gets its nodes, an inference Deployment and Service, then succeeds', async () => {
    await c.client.create(workspace('falcon', { resource: gpuResource, inference: { preset: { name: 'falcon-7b' } } }));
    const ws = await waitFor(
      'falcon',
      'WorkspaceSucceeded',
      (w) => condition(w, 'WorkspaceSucceeded')?.status === 'True',
    );
    assert.equal(condition(ws, 'ResourceReady')?.status, 'True');
    assert.equal(condition(ws, 'InferenceReady')?.status, 'True');
    const st = ws!.status as { state: string; workerNodes: string[] };
    assert.equal(st.state, 'Ready');
    assert.deepEqual(st.workerNodes, ['nvidia-node-1']);

    const deploy = await c.client.get(SimDeployments, 'falcon', NS);
    const container = deploy.spec?.template?.spec?.containers[0];
    assert.equal(container?.resources?.requests?.['nvidia.com/gpu'], '2', 'Standard_NC12s_v3 has 2 GPUs');
    assert.equal(deploy.spec?.template?.metadata?.labels?.['kaito.sh/workspace'], 'falcon');
    assert.deepEqual(deploy.spec?.template?.spec?.nodeSelector, { 'nvidia.com/gpu.present': 'true' });
    const svc = await c.client.get(SimServices, 'falcon', NS);
    assert.deepEqual(
      ((svc.spec?.ports ?? []) as Array<{ port: number; targetPort: number }>).map((p) => [p.port, p.targetPort]),
      [[80, 5000]],
    );
  });

  it('a crashing inference pod fails the workspace with the pod reason in the condition message', async () => {
    await c.client.create(
      workspace(
        'crashy',
        { resource: gpuResource, inference: { preset: { name: 'phi-3-mini-4k-instruct' } } },
        { 'sim.modelplane.io/fail': 'OOMKilled' },
      ),
    );
    const ws = await waitFor(
      'crashy',
      'WorkspaceSucceeded=False',
      (w) => condition(w, 'WorkspaceSucceeded')?.status === 'False',
    );
    // first the container's OOMKilled termination, then CrashLoopBackOff naming the last termination
    assert.match(condition(ws, 'WorkspaceSucceeded')?.message ?? '', /OOMKilled \(exit code 137\)/);
    assert.equal(condition(ws, 'InferenceReady')?.status, 'False');
    assert.equal((ws!.status as { state: string }).state, 'Failed');
  });

  it('pods that cannot be scheduled leave it deploying: InferenceReady=False carries the message, WorkspaceSucceeded stays Unknown', async () => {
    await c.client.create(
      workspace(
        'pending',
        { resource: gpuResource, inference: { preset: { name: 'falcon-7b' } } },
        { 'sim.modelplane.io/fail': 'Unschedulable' },
      ),
    );
    const ws = await waitFor('pending', 'InferenceReady=False', (w) =>
      /Insufficient/.test(condition(w, 'InferenceReady')?.message ?? ''),
    );
    assert.equal(condition(ws, 'InferenceReady')?.status, 'False');
    assert.equal(condition(ws, 'WorkspaceSucceeded')?.status, 'Unknown');
    assert.equal((ws!.status as { state: string }).state, 'NotReady');
  });

  it('no node matching the labelSelector fails ResourceReady', async () => {
    await c.client.create(
      workspace('nowhere', {
        resource: { labelSelector: { matchLabels: { pool: 'tpu' } } },
        inference: { preset: { name: 'falcon-7b' } },
      }),
    );
    const ws = await waitFor(
      'nowhere',
      'ResourceReady=False',
      (w) => condition(w, 'ResourceReady')?.status === 'False',
    );
    assert.equal(condition(ws, 'ResourceReady')?.reason, 'workspaceResourceStatusFailed');
    assert.match(condition(ws, 'WorkspaceSucceeded')?.message ?? '', /pool=tpu/);
    assert.equal(await getObj(c.client, SimDeployments, 'nowhere', NS), undefined);
  });

  it('a template workspace (llama.cpp on CPU) runs the given pod template', async () => {
    const template = {
      metadata: { labels: { 'kubeairunway.ai/model-deployment': 'gemma' } },
      spec: {
        containers: [
          {
            name: 'model',
            image: 'ghcr.io/sozercan/llama-cpp-runner:latest',
            args: ['--address=:5000'],
            ports: [{ containerPort: 5000 }],
            resources: { requests: { cpu: '4' } },
          },
        ],
      },
    };
    await c.client.create(
      workspace('gemma', {
        resource: { count: 1, labelSelector: { matchLabels: { 'kubernetes.io/os': 'linux' } } },
        inference: { template },
      }),
    );
    await waitFor('gemma', 'WorkspaceSucceeded', (w) => condition(w, 'WorkspaceSucceeded')?.status === 'True');
    const deploy = await c.client.get(SimDeployments, 'gemma', NS);
    assert.equal(deploy.spec?.template?.spec?.containers[0]?.image, 'ghcr.io/sozercan/llama-cpp-runner:latest');
    assert.equal(deploy.spec?.template?.metadata?.labels?.['kubeairunway.ai/model-deployment'], 'gemma');
    assert.equal(deploy.spec?.template?.spec?.containers[0]?.resources?.requests?.['nvidia.com/gpu'], undefined);
  });

  it('a tuning workspace runs a Job and succeeds when it completes', async () => {
    await c.client.create(
      workspace('tune', {
        resource: gpuResource,
        tuning: {
          preset: { name: 'phi-3-mini-4k-instruct' },
          method: 'qlora',
          input: { urls: ['https://x/data.parquet'] },
        },
      }),
    );
    const ws = await waitFor('tune', 'tuning succeeded', (w) => condition(w, 'WorkspaceSucceeded')?.status === 'True');
    assert.equal(condition(ws, 'JobStarted')?.status, 'True');
    assert.equal((ws!.status as { state: string }).state, 'Succeeded');
  });
});
