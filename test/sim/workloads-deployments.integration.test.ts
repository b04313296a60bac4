// Deployments → ReplicaSets → Pods on the embedded API server, driven by the simulated controllers,
// scheduler and kubelet: first rollout to Ready, a rolling update, scaling, Recreate, and the pod and
// status fields kubectl shows.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { PodLogStore, registerWorkloadSimulators } from '@modelplane/sim/workloads';
import {
  type Deployment,
  Deployments,
  type Pod,
  Pods,
  type ReplicaSet,
  ReplicaSets,
} from '@modelplane/sim/workloads/kinds';
import { FAST, type SimCluster, startSimCluster, waitFor } from './workloads-fixture.ts';

function deployment(
  name: string,
  namespace: string,
  replicas: number,
  image = 'nginx:1.27',
  extra: Partial<Deployment['spec']> = {},
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, annotations: { team: 'serving' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image, ports: [{ containerPort: 80 }] }] },
      },
      ...extra,
    },
  };
}

const condition = (d: Deployment | undefined, type: string) => d?.status?.conditions?.find((c) => c.type === type);

describe('workload simulators: Deployments', () => {
  let c: SimCluster;
  before(async () => {
    c = await startSimCluster();
    await c.node('cpu-1', { cpu: '8', memory: '32Gi', pods: '110' });
    await c.node('cpu-2', { cpu: '8', memory: '32Gi', pods: '110' });
  });
  after(async () => c?.close());

  async function ready(ns: string, name: string, replicas: number, generation?: number): Promise<Deployment> {
    return waitFor(async () => {
      const d = await c.admin.get(Deployments, name, ns);
      const s = d.status;
      const done =
        s?.availableReplicas === (replicas || undefined) &&
        s?.updatedReplicas === (replicas || undefined) &&
        s?.replicas === (replicas || undefined) &&
        (generation === undefined || s?.observedGeneration === generation) &&
        condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
      return done ? d : undefined;
    }, `deployment ${ns}/${name} to have ${replicas} available replicas`);
  }

  async function replicaSets(ns: string): Promise<ReplicaSet[]> {
    return (await c.admin.list(ReplicaSets, { namespace: ns })).items;
  }

  async function pods(ns: string): Promise<Pod[]> {
    return (await c.admin.list(Pods, { namespace: ns })).items;
  }

  it('rolls a new Deployment out to Ready: ReplicaSet, pods, status and conditions as kube writes them', async () => {
    const ns = await c.namespace('deploy-ready');
    await c.admin.create(deployment('web', ns, 3));
    const d = await ready(ns, 'web', 3, 1);

    assert.deepEqual(
      { ...d.status, conditions: undefined },
      {
        observedGeneration: 1,
        replicas: 3,
        updatedReplicas: 3,
        readyReplicas: 3,
        availableReplicas: 3,
        conditions: undefined,
      },
    );
    const available = condition(d, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.reason, 'MinimumReplicasAvailable');
    assert.equal(available?.message, 'Deployment has minimum availability.');
    const [rs] = await replicaSets(ns);
    assert.ok(rs, 'a ReplicaSet');
    const hash = rs.metadata.labels?.['pod-template-hash'];
    assert.match(hash ?? '', /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.equal(condition(d, 'Progressing')?.message, `ReplicaSet "web-${hash}" has successfully progressed.`);
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.deepEqual(rs.metadata.ownerReferences, [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'web',
        uid: d.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '3');
    assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '4');
    assert.equal(rs.metadata.annotations?.team, 'serving', 'the Deployment annotations are copied');
    assert.deepEqual(rs.spec.selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
    assert.deepEqual(rs.status, {
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });

    const ps = await pods(ns);
    assert.equal(ps.length, 3);
    for (const p of ps) {
      assert.match(p.metadata.name!, new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
      assert.equal(p.metadata.ownerReferences?.[0]?.uid, rs.metadata.uid);
      assert.equal(p.status?.phase, 'Running');
      assert.deepEqual(
        p.status?.conditions?.map((x) => `${x.type}=${x.status}`),
        [
          'PodReadyToStartContainers=True',
          'Initialized=True',
          'Ready=True',
          'ContainersReady=True',
          'PodScheduled=True',
        ],
      );
      const cs = p.status?.containerStatuses?.[0];
      assert.equal(cs?.name, 'web');
      assert.equal(cs?.ready, true);
      assert.equal(cs?.started, true);
      assert.equal(cs?.restartCount, 0);
      assert.equal(cs?.image, 'docker.io/library/nginx:1.27');
      assert.match(cs?.imageID ?? '', /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
      assert.match(cs?.containerID ?? '', /^containerd:\/\/[0-9a-f]{64}$/);
      assert.ok(cs?.state?.running?.startedAt);
      assert.match(p.status?.podIP ?? '', /^10\.244\.\d+\.\d+$/);
      assert.match(p.status?.hostIP ?? '', /^192\.168\.0\.\d+$/);
      assert.ok(p.status?.startTime);
      assert.ok(['cpu-1', 'cpu-2'].includes(p.spec.nodeName ?? ''));
    }
    assert.equal(new Set(ps.map((p) => p.status?.podIP)).size, 3, 'pod IPs are unique');

    const events = await c.events(ns, 'Deployment', 'web');
    assert.ok(
      events.some(
        (e) => e.reason === 'ScalingReplicaSet' && e.message === `Scaled up replica set web-${hash} from 0 to 3`,
      ),
    );
    const podEvents = await c.events(ns, 'Pod', ps[0]!.metadata.name!);
    const reasons = podEvents.map((e) => e.reason);
    for (const r of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'])
      assert.ok(reasons.includes(r), `pod event ${r} in ${reasons.join(',')}`);
    assert.equal(
      podEvents.find((e) => e.reason === 'Scheduled')?.message,
      `Successfully assigned ${ns}/${ps[0]!.metadata.name} to ${ps[0]!.spec.nodeName}`,
    );
    assert.equal(podEvents.find((e) => e.reason === 'Scheduled')?.reportingComponent, 'default-scheduler');
    assert.equal(podEvents.find((e) => e.reason === 'Started')?.reportingComponent, 'kubelet');
  });

  it('rolling update: a new ReplicaSet with revision 2 replaces the old one, which is scaled to 0 and kept', async () => {
    const ns = await c.namespace('deploy-rolling');
    await c.admin.create(deployment('api', ns, 4));
    const v1 = await ready(ns, 'api', 4, 1);
    const [oldRS] = await replicaSets(ns);
    await c.admin.patch(
      Deployments,
      'api',
      ns,
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
      'strategic',
    );
    const v2 = await ready(ns, 'api', 4, 2);
    assert.equal(v2.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    const all = await replicaSets(ns);
    assert.equal(all.length, 2);
    const newRS = all.find((r) => r.metadata.uid !== oldRS!.metadata.uid)!;
    const old = all.find((r) => r.metadata.uid === oldRS!.metadata.uid)!;
    assert.equal(newRS.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.equal(newRS.spec.replicas, 4);
    assert.equal(old.spec.replicas, 0);
    assert.notEqual(newRS.metadata.labels?.['pod-template-hash'], old.metadata.labels?.['pod-template-hash']);
    const ps = (await pods(ns)).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(ps.length, 4);
    for (const p of ps) assert.equal(p.spec.containers[0]!.image, 'nginx:1.28');
    const messages = (await c.events(ns, 'Deployment', 'api')).map((e) => e.message);
    assert.ok(
      messages.some((m) => m.startsWith(`Scaled up replica set ${newRS.metadata.name} from 0 to `)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((m) => m.startsWith(`Scaled down replica set ${old.metadata.name} from `) && m.endsWith(' to 0')),
      messages.join('\n'),
    );
    assert.notEqual(condition(v2, 'Available')?.lastTransitionTime, undefined);
    assert.equal(v1.metadata.uid, v2.metadata.uid);
  });

  it('a rolling update never has fewer than replicas - maxUnavailable available pods', async () => {
    const ns = await c.namespace('deploy-surge');
    await c.admin.create(
      deployment('svc', ns, 4, 'nginx:1.27', {
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      }),
    );
    await ready(ns, 'svc', 4, 1);
    let minAvailable = Number.POSITIVE_INFINITY;
    let maxPods = 0;
    const watch = setInterval(async () => {
      const rss = await replicaSets(ns).catch(() => []);
      minAvailable = Math.min(
        minAvailable,
        rss.reduce((n, r) => n + (r.status?.availableReplicas ?? 0), 0),
      );
      maxPods = Math.max(
        maxPods,
        rss.reduce((n, r) => n + (r.spec.replicas ?? 0), 0),
      );
    }, 5);
    // cleared however the rollout ends: a timed-out wait left the interval running and the file never exited
    try {
      await c.admin.patch(
        Deployments,
        'svc',
        ns,
        { spec: { template: { metadata: { labels: { app: 'svc', v: '2' } } } } },
        'merge',
      );
      await ready(ns, 'svc', 4, 2);
    } finally {
      clearInterval(watch);
    }
    assert.ok(minAvailable >= 4, `available dropped to ${minAvailable}`);
    assert.ok(maxPods <= 5, `more than replicas + maxSurge pods: ${maxPods}`);
  });

  it('scales up and down through spec.replicas, deleting pods and updating the status', async () => {
    const ns = await c.namespace('deploy-scale');
    await c.admin.create(deployment('s', ns, 2));
    await ready(ns, 's', 2, 1);
    await c.admin.patch(Deployments, 's', ns, { spec: { replicas: 5 } }, 'merge');
    await ready(ns, 's', 5, 2);
    assert.equal((await pods(ns)).length, 5);
    await c.admin.patch(Deployments, 's', ns, { spec: { replicas: 1 } }, 'merge');
    await ready(ns, 's', 1, 3);
    await waitFor(async () => (await pods(ns)).length === 1, 'pods scaled down to 1');
    const [rs] = await replicaSets(ns);
    assert.equal(rs?.spec.replicas, 1);
    assert.equal(rs?.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '1');
    const rsEvents = await c.events(ns, 'ReplicaSet', rs!.metadata.name!);
    assert.equal(rsEvents.filter((e) => e.reason === 'SuccessfulDelete').length, 4);
    assert.ok(rsEvents.every((e) => e.reportingComponent === 'replicaset-controller'));
  });

  it('scales to zero: the Deployment stays Available with no replicas', async () => {
    const ns = await c.namespace('deploy-zero');
    await c.admin.create(deployment('z', ns, 1));
    await ready(ns, 'z', 1, 1);
    await c.admin.patch(Deployments, 'z', ns, { spec: { replicas: 0 } }, 'merge');
    const d = await ready(ns, 'z', 0, 2);
    assert.equal(condition(d, 'Available')?.status, 'True');
    await waitFor(async () => (await pods(ns)).length === 0, 'no pods');
  });

  it('Recreate: old pods are gone before the new ReplicaSet scales up', async () => {
    const ns = await c.namespace('deploy-recreate');
    await c.admin.create(deployment('r', ns, 2, 'nginx:1.27', { strategy: { type: 'Recreate' } }));
    await ready(ns, 'r', 2, 1);
    let overlap = false;
    const watch = setInterval(async () => {
      const ps = await pods(ns).catch(() => []);
      if (new Set(ps.map((p) => p.spec.containers[0]!.image)).size > 1) overlap = true;
    }, 5);
    try {
      await c.admin.patch(
        Deployments,
        'r',
        ns,
        { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } } },
        'strategic',
      );
      await ready(ns, 'r', 2, 2);
    } finally {
      clearInterval(watch);
    }
    assert.equal(overlap, false, 'old and new pods ran at the same time');
  });

  it('a pod that never becomes ready keeps the Deployment unavailable with MinimumReplicasUnavailable', async () => {
    const ns = await c.namespace('deploy-unavailable');
    const d = deployment('bad', ns, 1, 'nginx:1.27');
    d.spec.template.metadata!.annotations = { 'sim.modelplane.io/fail': 'CrashLoopBackOff' };
    await c.admin.create(d);
    const live = await waitFor(async () => {
      const x = await c.admin.get(Deployments, 'bad', ns);
      return condition(x, 'Available')?.reason === 'MinimumReplicasUnavailable' && x.status?.replicas === 1
        ? x
        : undefined;
    }, 'an unavailable deployment');
    assert.equal(condition(live, 'Available')?.status, 'False');
    assert.equal(condition(live, 'Available')?.message, 'Deployment does not have minimum availability.');
    assert.equal(live.status?.unavailableReplicas, 1);
    assert.equal(condition(live, 'Progressing')?.status, 'True');
  });

  // runs last: it replaces the cluster's simulators with a fresh set
  it('simulators restarted on the same cluster adopt running pods without rewriting them, and serve their logs again', async () => {
    const ns = await c.namespace('deploy-restart');
    await c.admin.create(deployment('keep', ns, 2, 'vllm/vllm-openai:v0.8.5'));
    await ready(ns, 'keep', 2, 1);
    await new Promise((r) => setTimeout(r, 100));
    const before = new Map((await pods(ns)).map((p) => [p.metadata.name!, p.metadata.resourceVersion]));
    await c.sims.drain();
    await c.mgr.stop();

    const logs = new PodLogStore();
    c.useLogs(logs);
    const mgr = await Manager.create({ kubeconfig: c.server.kubeconfigYaml(), logger: new Logger({}, 'silent') });
    const sims = registerWorkloadSimulators(mgr, { logs, delays: FAST });
    await mgr.start();
    try {
      const name = [...before.keys()][0]!;
      const log = await waitFor(async () => (await c.podLog(ns, name)) || undefined, 'logs served again');
      assert.match(log, /Application startup complete/);
      await new Promise((r) => setTimeout(r, 200));
      const after = new Map((await pods(ns)).map((p) => [p.metadata.name!, p.metadata.resourceVersion]));
      assert.deepEqual(after, before, 'no pod was rewritten or replaced');
      const d = await c.admin.get(Deployments, 'keep', ns);
      assert.equal(d.status?.availableReplicas, 2);
    } finally {
      await sims.drain();
      await mgr.stop();
    }
  });
});
