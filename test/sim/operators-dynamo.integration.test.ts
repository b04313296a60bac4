// The simulated Dynamo operator on the test cluster: a graph deploys to "successful" with one
// Deployment per service (GPU resources translated, frontend Service), a failing worker turns it
// "failed" with status.message naming the service and the pod failure, and removed services are pruned.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoGraphDeployments, SimDeployments, SimServices } from '@modelplane/sim/operators';
import {
  condition,
  ensureNamespace,
  eventually,
  getObj,
  type OperatorsCluster,
  startOperatorsCluster,
} from './operators-fixture.ts';

const NS = 'dynamo';

// the shape KubeAIRunway's Dynamo provider produces for an aggregated vLLM deployment
function graph(name: string, workerAnnotations?: Record<string, string>) {
  return {
    apiVersion: 'nvidia.com/v1alpha1',
    kind: 'DynamoGraphDeployment',
    metadata: { name, namespace: NS },
    spec: {
      backendFramework: 'vllm',
      services: {
        Frontend: {
          componentType: 'frontend',
          replicas: 1,
          envs: [{ name: 'DYN_ROUTER_MODE', value: 'round-robin' }],
          resources: { requests: { cpu: '2', memory: '4Gi' } },
        },
        VllmWorker: {
          componentType: 'worker',
          replicas: 2,
          ...(workerAnnotations ? { annotations: workerAnnotations } : {}),
          resources: { requests: { gpu: '1' }, limits: { gpu: '1', memory: '32Gi' } },
          extraPodSpec: {
            mainContainer: {
              image: 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1',
              command: ['python3', '-m', 'dynamo.vllm'],
              args: ['--model', 'Qwen/Qwen3-0.6B'],
            },
          },
        },
      },
    },
  };
}

describe('Dynamo simulator on the test cluster', () => {
  let c: OperatorsCluster;
  before(async () => {
    c = await startOperatorsCluster({ only: ['dynamo'] });
    await ensureNamespace(c.client, NS);
  });
  after(async () => c?.close());

  it('a graph deploys every service and reaches state successful', async () => {
    await c.client.create(graph('qwen'));
    const dgd = await eventually('state successful', async () => {
      const o = await getObj(c.client, DynamoGraphDeployments, 'qwen', NS);
      return (o?.status as { state?: string } | undefined)?.state === 'successful' ? o : undefined;
    });
    assert.equal(condition(dgd, 'Ready')?.status, 'True');
    const st = dgd.status as {
      services: Record<string, { componentName: string; readyReplicas: number; replicas: number }>;
      endpoint: { service: string; port: number };
    };
    assert.deepEqual(st.services.VllmWorker, {
      componentKind: 'Deployment',
      componentName: 'qwen-vllmworker',
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
    });
    assert.deepEqual(st.endpoint, { service: 'qwen-frontend', port: 8000 });

    const worker = await c.client.get(SimDeployments, 'qwen-vllmworker', NS);
    const main = worker.spec?.template?.spec?.containers[0];
    assert.deepEqual(main?.resources, {
      requests: { 'nvidia.com/gpu': '1' },
      limits: { 'nvidia.com/gpu': '1', memory: '32Gi' },
    });
    assert.deepEqual(main?.args, ['--model', 'Qwen/Qwen3-0.6B']);
    assert.equal(worker.spec?.template?.metadata?.labels?.['nvidia.com/dynamo-graph-deployment-name'], 'qwen');
    const frontend = await c.client.get(SimDeployments, 'qwen-frontend', NS);
    assert.equal(frontend.spec?.template?.spec?.containers[0]?.image, 'nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.4.1');
    assert.ok(frontend.spec?.template?.spec?.containers[0]?.env?.some((e) => e.name === 'DYN_ROUTER_MODE'));
    const svc = await c.client.get(SimServices, 'qwen-frontend', NS);
    assert.deepEqual(
      ((svc.spec?.ports ?? []) as Array<{ port: number }>).map((p) => p.port),
      [8000],
    );
  });

  it('a worker that cannot pull its image turns the graph failed with the reason in status.message', async () => {
    await c.client.create(graph('broken', { 'sim.modelplane.io/fail': 'ImagePullBackOff' }));
    const dgd = await eventually('state failed', async () => {
      const o = await getObj(c.client, DynamoGraphDeployments, 'broken', NS);
      return (o?.status as { state?: string } | undefined)?.state === 'failed' ? o : undefined;
    });
    const msg = (dgd.status as { message: string }).message;
    // the kubelet reports ErrImagePull on the first attempt and ImagePullBackOff after it
    assert.match(
      msg,
      /^VllmWorker: (ErrImagePull|ImagePullBackOff): .*nvcr\.io\/nvidia\/ai-dynamo\/vllm-runtime:0\.4\.1/,
    );
    assert.equal(condition(dgd, 'Ready')?.status, 'False');
  });

  it('a service removed from the graph loses its Deployment', async () => {
    const g = graph('shrink');
    await c.client.create(g);
    await eventually('worker deployment', () => getObj(c.client, SimDeployments, 'shrink-vllmworker', NS));
    await c.client.patch(
      DynamoGraphDeployments,
      'shrink',
      NS,
      [{ op: 'remove', path: '/spec/services/VllmWorker' }],
      'json',
    );
    await eventually(
      'worker deployment deleted',
      async () => (await getObj(c.client, SimDeployments, 'shrink-vllmworker', NS)) === undefined,
    );
    assert.ok(await getObj(c.client, SimDeployments, 'shrink-frontend', NS));
  });
});
