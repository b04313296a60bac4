// The simulated scheduler: the pure decision (filters, scoring, kube's FailedScheduling message) table by
// table, then against the embedded API server with GPU nodes, taints, an over-sized pod and the
// Unschedulable failure annotation.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Node, type Pod, Pods } from '@modelplane/sim/workloads/kinds';
import { decide, type NodeInfo } from '@modelplane/sim/workloads/scheduling';
import { pod, type SimCluster, startSimCluster, waitFor } from './workloads-fixture.ts';

function node(
  name: string,
  allocatable: Record<string, string>,
  extra: {
    labels?: Record<string, string>;
    taints?: Array<{ key: string; value?: string; effect: string }>;
    unschedulable?: boolean;
  } = {},
): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: extra.labels ?? {} },
    spec: {
      ...(extra.taints ? { taints: extra.taints } : {}),
      ...(extra.unschedulable ? { unschedulable: true } : {}),
    },
    status: { allocatable },
  };
}

function gpuPod(gpus: string, extra: Partial<Pod['spec']> = {}, resource = 'nvidia.com/gpu'): Pod {
  return pod('p', 'ns', {
    containers: [
      {
        name: 'c',
        image: 'vllm',
        resources: { limits: { [resource]: gpus }, requests: { cpu: '4', memory: '16Gi', [resource]: gpus } },
      },
    ],
    ...extra,
  });
}

const cpuNode = (n: string) => node(n, { cpu: '8', memory: '32Gi', pods: '110' });
const nvidia = (n: string) =>
  node(
    n,
    { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '8', pods: '110' },
    { labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' } },
  );
const amd = (n: string) =>
  node(
    n,
    { cpu: '64', memory: '512Gi', 'amd.com/gpu': '8', pods: '110' },
    { labels: { 'amd.com/gpu.device-id': '74a1' } },
  );
const sixNodes: NodeInfo[] = [
  cpuNode('cpu-1'),
  cpuNode('cpu-2'),
  nvidia('nv-1'),
  nvidia('nv-2'),
  amd('amd-1'),
  amd('amd-2'),
].map((n) => ({ node: n, pods: [] }));

describe('scheduling decision (pure)', () => {
  const cases: Array<{ name: string; pod: Pod; nodes?: NodeInfo[]; force?: boolean; want: string | RegExp }> = [
    { name: 'a GPU pod lands on a node with GPUs', pod: gpuPod('4'), want: /^nv-\d$/ },
    { name: 'an AMD GPU pod lands on an AMD node', pod: gpuPod('8', {}, 'amd.com/gpu'), want: /^amd-\d$/ },
    {
      name: 'more GPUs than any node has: every node is short, nothing to preempt',
      pod: gpuPod('16'),
      want: '0/6 nodes are available: 6 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.',
    },
    {
      name: 'a nodeSelector and a resource shortage, counted per node and sorted like kube',
      pod: gpuPod('16', { nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' } }),
      want: "0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.",
    },
    {
      name: 'several short resources on one node are all listed',
      pod: pod('p', 'ns', {
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100', memory: '1Ti' } } }],
      }),
      nodes: [{ node: cpuNode('a'), pods: [] }],
      want: '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    },
    {
      name: 'untolerated taints and unschedulable nodes',
      pod: gpuPod('1'),
      nodes: [
        {
          node: node(
            't',
            { 'nvidia.com/gpu': '8' },
            { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
          ),
          pods: [],
        },
        { node: node('u', { 'nvidia.com/gpu': '8' }, { unschedulable: true }), pods: [] },
      ],
      want: '0/2 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
    },
    {
      name: 'a toleration lets the pod onto the tainted node',
      pod: gpuPod('1', { tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }] }),
      nodes: [
        {
          node: node(
            't',
            { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '8' },
            { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
          ),
          pods: [],
        },
      ],
      want: 't',
    },
    {
      name: 'GPUs already requested by pods on the node count',
      pod: gpuPod('4'),
      nodes: [{ node: nvidia('full'), pods: [gpuPod('6')] }],
      want: '0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    },
    {
      name: 'required node affinity (In) is honoured',
      pod: gpuPod(
        '1',
        {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'amd.com/gpu.device-id', operator: 'In', values: ['74a1'] }] },
                ],
              },
            },
          },
        },
        'amd.com/gpu',
      ),
      want: /^amd-\d$/,
    },
    { name: 'no nodes at all', pod: gpuPod('1'), nodes: [], want: 'no nodes available to schedule pods' },
    {
      name: 'the least allocated node wins',
      pod: pod('p', 'ns', {
        containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1', memory: '1Gi' } } }],
      }),
      nodes: [
        {
          node: cpuNode('busy'),
          pods: [
            pod('q', 'ns', {
              containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '6', memory: '20Gi' } } }],
            }),
          ],
        },
        { node: cpuNode('idle'), pods: [] },
      ],
      want: 'idle',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const d = decide(tc.pod, tc.nodes ?? sixNodes, { forceUnschedulable: tc.force ?? false });
      const got = 'node' in d ? d.node : d.unschedulable;
      if (typeof tc.want === 'string') assert.equal(got, tc.want);
      else assert.match(got, tc.want);
    });
  }

  it('the Unschedulable failure reports nodes that would fit as short of the scarcest requested resource', () => {
    const d = decide(gpuPod('1'), sixNodes, { forceUnschedulable: true });
    assert.ok('unschedulable' in d);
    // 4 nodes have no nvidia.com/gpu at all, 2 are forced: one reason string, counted 6 times
    assert.equal(
      d.unschedulable,
      '0/6 nodes are available: 6 Insufficient nvidia.com/gpu. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod.',
    );
  });
});

describe('workload simulators: scheduler on the API server', () => {
  let c: SimCluster;
  before(async () => {
    c = await startSimCluster();
    await c.node('cpu-1', { cpu: '8', memory: '32Gi', pods: '110' });
    await c.node(
      'gpu-1',
      { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '8', pods: '110' },
      { labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' } },
    );
    await c.node(
      'gpu-2',
      { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '8', pods: '110' },
      {
        labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
        taints: [{ key: 'dedicated', value: 'training', effect: 'NoSchedule' }],
      },
    );
  });
  after(async () => c?.close());

  it('binds GPU pods to the GPU node until its GPUs run out; the next one stays Pending', async () => {
    const ns = await c.namespace('sched-gpu');
    for (const name of ['a', 'b']) await c.admin.create({ ...gpuPod('4'), metadata: { name, namespace: ns } });
    for (const name of ['a', 'b']) {
      const p = await waitFor(async () => {
        const x = await c.admin.get(Pods, name, ns);
        return x.status?.phase === 'Running' ? x : undefined;
      }, `pod ${name} running`);
      assert.equal(p.spec.nodeName, 'gpu-1');
    }
    await c.admin.create({ ...gpuPod('1'), metadata: { name: 'c', namespace: ns } });
    const pending = await waitFor(async () => {
      const x = await c.admin.get(Pods, 'c', ns);
      return x.status?.conditions?.find((k) => k.type === 'PodScheduled' && k.status === 'False') ? x : undefined;
    }, 'pod c unschedulable');
    const cond = pending.status!.conditions!.find((k) => k.type === 'PodScheduled')!;
    assert.equal(pending.status?.phase, 'Pending');
    assert.equal(pending.spec.nodeName, undefined);
    assert.equal(cond.reason, 'Unschedulable');
    assert.equal(
      cond.message,
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: training}, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
    const ev = (await c.events(ns, 'Pod', 'c')).find((e) => e.reason === 'FailedScheduling');
    assert.equal(ev?.type, 'Warning');
    assert.equal(ev?.message, cond.message);
    assert.equal(ev?.reportingComponent, 'default-scheduler');

    // freeing GPUs lets the waiting pod in, without waiting for the periodic retry
    await c.admin.delete(Pods, 'a', ns);
    const bound = await waitFor(async () => {
      const x = await c.admin.get(Pods, 'c', ns);
      return x.spec.nodeName ? x : undefined;
    }, 'pod c bound after a GPU pod left');
    assert.equal(bound.spec.nodeName, 'gpu-1');
  });

  it('an over-sized pod stays Pending with FailedScheduling, repeated as one event series', async () => {
    const ns = await c.namespace('sched-huge');
    await c.admin.create({ ...gpuPod('16'), metadata: { name: 'huge', namespace: ns } });
    const ev = await waitFor(
      async () => (await c.events(ns, 'Pod', 'huge')).find((e) => e.reason === 'FailedScheduling'),
      'FailedScheduling',
    );
    assert.match(
      ev.message,
      /^0\/3 nodes are available: .*Insufficient nvidia\.com\/gpu.* preemption: 0\/3 nodes are available: /,
    );
    await new Promise((r) => setTimeout(r, 250));
    const events = (await c.events(ns, 'Pod', 'huge')).filter((e) => e.reason === 'FailedScheduling');
    assert.equal(events.length, 1, 'retries join the existing event instead of creating new ones');
    assert.ok(((events[0] as { series?: { count?: number } }).series?.count ?? 0) >= 2, 'the scheduler retried');
    const p = await c.admin.get(Pods, 'huge', ns);
    assert.equal(p.status?.phase, 'Pending');
    assert.equal(p.spec.nodeName, undefined);
  });

  it('honours nodeSelector and tolerations', async () => {
    const ns = await c.namespace('sched-taints');
    await c.admin.create({
      ...gpuPod('2', {
        nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'training', effect: 'NoSchedule' }],
      }),
      metadata: { name: 'trainer', namespace: ns },
    });
    await c.admin.create({ ...pod('web', ns), metadata: { name: 'web', namespace: ns } });
    const trainer = await waitFor(async () => (await c.admin.get(Pods, 'trainer', ns)).spec.nodeName, 'trainer bound');
    assert.ok(trainer === 'gpu-1' || trainer === 'gpu-2');
    const web = await waitFor(async () => (await c.admin.get(Pods, 'web', ns)).spec.nodeName, 'web bound');
    assert.notEqual(web, 'gpu-2', 'a pod without the toleration never lands on the tainted node');
  });

  it('the Unschedulable annotation keeps a pod that would fit Pending', async () => {
    const ns = await c.namespace('sched-forced');
    await c.admin.create(pod('stuck', ns, {}, { 'sim.modelplane.io/fail': 'Unschedulable' }));
    const ev = await waitFor(
      async () => (await c.events(ns, 'Pod', 'stuck')).find((e) => e.reason === 'FailedScheduling'),
      'FailedScheduling',
    );
    assert.match(ev.message, /^0\/3 nodes are available: .*Insufficient cpu/);
    const p = await c.admin.get(Pods, 'stuck', ns);
    assert.equal(p.spec.nodeName, undefined);
    assert.equal(p.status?.conditions?.find((k) => k.type === 'PodScheduled')?.reason, 'Unschedulable');
  });

  it('leaves pods for another scheduler alone', async () => {
    const ns = await c.namespace('sched-other');
    await c.admin.create(pod('volcano', ns, { schedulerName: 'volcano' }));
    await c.admin.create(pod('mine', ns));
    await waitFor(async () => (await c.admin.get(Pods, 'mine', ns)).spec.nodeName, 'default-scheduler pod bound');
    assert.equal((await c.admin.get(Pods, 'volcano', ns)).spec.nodeName, undefined);
  });

  it('a pod bound to a node that registers later runs once it does', async () => {
    const ns = await c.namespace('sched-late-node');
    await c.admin.create(pod('early', ns, { nodeName: 'late-node' }));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await c.admin.get(Pods, 'early', ns)).status?.phase, 'Pending');
    await c.node('late-node', { cpu: '4', memory: '8Gi', pods: '110' });
    await waitFor(
      async () => (await c.admin.get(Pods, 'early', ns)).status?.phase === 'Running',
      'pod running on the late node',
    );
  });
});
