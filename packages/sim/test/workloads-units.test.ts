// The workload simulators' pure parts: kube's hash encoding, int-or-percent, rolling-update steps, the
// deployment status, the kubelet's container state machine on a fake clock, pod phases, log store,
// image references and Job index ranges.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeClient, type Transport } from '@modelplane/runtime/client';
import { discardRecorder } from '@modelplane/runtime/events';
import { Logger } from '@modelplane/runtime/log';
import { resolveDelays, type SimDelays } from '../src/workloads/delays.ts';
import { deploymentStatus, fenceposts, rollingStep } from '../src/workloads/deployment-rollout.ts';
import { normalizeImage } from '../src/workloads/failures.ts';
import { formatIndexes } from '../src/workloads/jobs.ts';
import type { Deployment, Node, Pod, ReplicaSet } from '../src/workloads/kinds.ts';
import { PodIpAllocator } from '../src/workloads/kubelet.ts';
import { PodLogStore } from '../src/workloads/pod-logs.ts';
import { advance } from '../src/workloads/pod-run.ts';
import { type LogSink, newPodRun, nextDue, type PodRun } from '../src/workloads/pod-run-state.ts';
import { podPhase, podStatus } from '../src/workloads/pod-status.ts';
import { equalTemplates, templateHash } from '../src/workloads/pod-template.ts';
import { ComponentRecorders } from '../src/workloads/recorders.ts';
import { safeEncodeString, scaledValue } from '../src/workloads/util.ts';

describe('kube encodings', () => {
  it('safeEncodeString maps bytes onto the vowel-free alphabet', () => {
    // "0".."9" are bytes 48..57; 48 % 27 = 21 → '4', 57 % 27 = 3 → 'f'
    assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  });

  it('templateHash is stable, differs per template and per collision count', () => {
    const t = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    const same = { spec: { containers: [{ image: 'x', name: 'c' }] }, metadata: { labels: { app: 'a' } } };
    assert.equal(templateHash(t), templateHash(same));
    assert.match(templateHash(t), /^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/);
    assert.notEqual(templateHash(t), templateHash({ ...t, spec: { containers: [{ name: 'c', image: 'y' }] } }));
    assert.notEqual(templateHash(t), templateHash(t, 1));
    assert.ok(equalTemplates(t, { ...same, metadata: { labels: { app: 'a', 'pod-template-hash': 'abc' } } }));
  });

  const scaled: Array<[string | number | undefined, number, boolean, number]> = [
    ['25%', 4, true, 1],
    ['25%', 3, true, 1],
    ['25%', 3, false, 0],
    ['50%', 5, false, 2],
    [2, 10, false, 2],
    ['3', 10, true, 3],
    [undefined, 10, true, 0],
  ];
  for (const [value, total, up, want] of scaled) {
    it(`scaledValue(${JSON.stringify(value)}, ${total}, ${up ? 'up' : 'down'}) = ${want}`, () =>
      assert.equal(scaledValue(value, total, up, 'f'), want));
  }
  it('scaledValue names the field of a malformed value', () => {
    assert.throws(
      () => scaledValue('lots', 3, true, 'spec.strategy.rollingUpdate.maxSurge'),
      /spec\.strategy\.rollingUpdate\.maxSurge: invalid value "lots"/,
    );
  });

  const images: Array<[string, string]> = [
    ['nginx', 'docker.io/library/nginx:latest'],
    ['nginx:1.27', 'docker.io/library/nginx:1.27'],
    ['vllm/vllm-openai:v0.8.5', 'docker.io/vllm/vllm-openai:v0.8.5'],
    ['ghcr.io/org/img', 'ghcr.io/org/img:latest'],
    ['localhost:5000/img:1', 'localhost:5000/img:1'],
    ['quay.io/x/y@sha256:abc', 'quay.io/x/y@sha256:abc'],
  ];
  for (const [image, want] of images) it(`normalizeImage(${image})`, () => assert.equal(normalizeImage(image), want));

  it('formatIndexes compresses runs', () => {
    assert.equal(formatIndexes([3, 0, 1, 2, 7, 9, 10]), '0-3,7,9-10');
    assert.equal(formatIndexes([]), '');
  });
});

function dep(
  replicas: number,
  surge: string | number = '25%',
  unavailable: string | number = '25%',
  status: Deployment['status'] = {},
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns', generation: 2 },
    spec: {
      replicas,
      selector: { matchLabels: { a: 'b' } },
      template: { spec: { containers: [] } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } },
    },
    status,
  };
}

function rs(name: string, replicas: number, available: number, created: string): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, creationTimestamp: created },
    spec: { replicas, selector: {}, template: { spec: { containers: [] } } },
    status: { replicas, availableReplicas: available, readyReplicas: available },
  };
}

describe('rolling updates (kube arithmetic)', () => {
  it('fenceposts: percentages round surge up and unavailable down; 0/0 becomes 0/1', () => {
    assert.deepEqual(fenceposts(dep(10)), { maxSurge: 3, maxUnavailable: 2 });
    assert.deepEqual(fenceposts(dep(3, 0, 0)), { maxSurge: 0, maxUnavailable: 1 });
  });

  const steps: Array<{
    name: string;
    d: Deployment;
    newRS: ReplicaSet;
    olds: ReplicaSet[];
    want: Record<string, number>;
  }> = [
    {
      name: 'first step: surge the new ReplicaSet',
      d: dep(4, 1, 0),
      newRS: rs('new', 0, 0, '2'),
      olds: [rs('old', 4, 4, '1')],
      want: { new: 1 },
    },
    {
      name: 'new pod available: scale the old one down by one',
      d: dep(4, 1, 0),
      newRS: rs('new', 1, 1, '2'),
      olds: [rs('old', 4, 4, '1')],
      want: { old: 3 },
    },
    {
      name: 'maxUnavailable lets old pods go before new ones are up',
      d: dep(4, 0, 2),
      newRS: rs('new', 0, 0, '2'),
      olds: [rs('old', 4, 4, '1')],
      want: { old: 2 },
    },
    {
      name: 'unhealthy old pods are cleaned up first',
      d: dep(4, 1, 1),
      newRS: rs('new', 1, 0, '3'),
      olds: [rs('older', 2, 0, '1'), rs('old', 2, 2, '2')],
      want: { older: 1 },
    },
    { name: 'done: nothing to do', d: dep(4), newRS: rs('new', 4, 4, '2'), olds: [rs('old', 0, 0, '1')], want: {} },
    {
      name: 'scale down during a rollout trims the new ReplicaSet',
      d: dep(2, 1, 0),
      newRS: rs('new', 4, 4, '2'),
      olds: [rs('old', 0, 0, '1')],
      want: { new: 2 },
    },
  ];
  for (const tc of steps)
    it(tc.name, () => assert.deepEqual(Object.fromEntries(rollingStep(tc.d, tc.newRS, tc.olds)), tc.want));

  it('status: Available and Progressing reasons through a rollout', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const d = dep(2, 1, 0);
    const fresh = deploymentStatus({
      d,
      newRS: rs('d-abc', 2, 0, '1'),
      all: [rs('d-abc', 2, 0, '1')],
      created: true,
      now,
    });
    assert.deepEqual(
      fresh.status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetCreated', 'Created new replica set "d-abc"'],
      ],
    );
    assert.equal(fresh.status.unavailableReplicas, 2);
    assert.equal(fresh.status.observedGeneration, 2);
    assert.equal(fresh.recheckAfter, 600_000);

    const done = deploymentStatus({
      d: { ...d, status: fresh.status },
      newRS: rs('d-abc', 2, 2, '1'),
      all: [rs('d-abc', 2, 2, '1')],
      created: false,
      now: now + 5_000,
    });
    const progressing = done.status.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'NewReplicaSetAvailable');
    assert.equal(progressing?.message, 'ReplicaSet "d-abc" has successfully progressed.');
    assert.equal(progressing?.lastTransitionTime, '2026-01-01T00:00:00Z', 'status stayed True: transition time kept');
    assert.equal(done.status.unavailableReplicas, undefined);
    assert.equal(done.recheckAfter, undefined);

    // scaled up after it completed: the rollout is under way again even before any progress (kube's
    // ReplicaSetUpdated), and the progress deadline counts from now
    const scaledUp = deploymentStatus({
      d: { ...dep(3, 1, 0), status: done.status },
      newRS: rs('d-abc', 2, 2, '1'),
      all: [rs('d-abc', 2, 2, '1')],
      created: false,
      now: now + 10_000,
    });
    const updating = scaledUp.status.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual(
      [updating?.status, updating?.reason, updating?.message],
      ['True', 'ReplicaSetUpdated', 'ReplicaSet "d-abc" is progressing.'],
    );
    assert.equal(scaledUp.recheckAfter, 600_000);

    const quota = {
      ...rs('d-abc', 2, 0, '1'),
      status: {
        replicas: 0,
        conditions: [
          {
            type: 'ReplicaFailure',
            status: 'True' as const,
            reason: 'FailedCreate',
            message: 'pods "d-abc-x" is forbidden: exceeded quota',
          },
        ],
      },
    };
    const failing = deploymentStatus({ d, newRS: quota, all: [quota], created: false, now });
    assert.deepEqual(
      failing.status.conditions?.filter((c) => c.type === 'ReplicaFailure').map((c) => [c.status, c.reason, c.message]),
      [['True', 'FailedCreate', 'pods "d-abc-x" is forbidden: exceeded quota']],
    );

    const stuck = deploymentStatus({
      d: { ...d, status: fresh.status },
      newRS: rs('d-abc', 2, 0, '1'),
      all: [rs('d-abc', 2, 0, '1')],
      created: false,
      now: now + 601_000,
    });
    const timedOut = stuck.status.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual(
      [timedOut?.status, timedOut?.reason, timedOut?.message],
      ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "d-abc" has timed out progressing.'],
    );
  });
});

const FAKE: SimDelays = resolveDelays({
  schedule: 0,
  pull: 100,
  ready: 1000,
  run: 500,
  crash: 200,
  backoff: 1000,
  backoffMax: 4000,
  provision: 0,
});

function testPod(annotations: Record<string, string> = {}, spec: Partial<Pod['spec']> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns', uid: 'u1', annotations },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'vllm/vllm-openai:v1', readinessProbe: {} }], ...spec },
  };
}

class Recorder implements LogSink {
  readonly store = new PodLogStore();
  append(container: string, lines: readonly string[]): void {
    this.store.append('ns', 'p', 'u1', container, lines);
  }
  restart(container: string): void {
    this.store.restart('ns', 'p', 'u1', container);
  }
}

/** advances the run to each due time until `until`, collecting `type/reason` of every event (and when) */
function play(
  pod: Pod,
  run: PodRun,
  logs: LogSink,
  from: number,
  until: number,
  at: Array<[number, string]> = [],
): string[] {
  const out: string[] = [];
  let now = from;
  for (let i = 0; i < 200 && now <= until; i++) {
    for (const e of advance(run, { pod, now, delays: FAKE, logs })) {
      out.push(`${e.type}/${e.reason}`);
      at.push([now, e.reason]);
    }
    const due = nextDue(run);
    if (!Number.isFinite(due)) break;
    now = due;
  }
  return out;
}

describe('kubelet state machine (fake clock)', () => {
  it('a healthy pod: pull, start, ready after the readiness delay', () => {
    const pod = testPod();
    const run = newPodRun(pod, 0, '10.0.0.1', '10.244.0.2');
    const logs = new Recorder();
    assert.deepEqual(
      advance(run, { pod, now: 0, delays: FAKE, logs }).map((e) => e.reason),
      ['Pulling'],
    );
    assert.equal(podStatus(pod, run, 0).containerStatuses?.[0]?.state?.waiting?.reason, 'ContainerCreating');
    assert.deepEqual(
      advance(run, { pod, now: 100, delays: FAKE, logs }).map((e) => e.reason),
      ['Pulled', 'Created', 'Started'],
    );
    let s = podStatus(pod, run, 100);
    assert.equal(s.phase, 'Running');
    assert.equal(s.containerStatuses?.[0]?.ready, false);
    assert.equal(s.conditions?.find((c) => c.type === 'Ready')?.message, 'containers with unready status: [c]');
    assert.equal(nextDue(run), 1100);
    advance(run, { pod, now: 1100, delays: FAKE, logs });
    s = podStatus(pod, run, 1100);
    assert.equal(s.containerStatuses?.[0]?.ready, true);
    assert.equal(nextDue(run), Number.POSITIVE_INFINITY);
    assert.match(
      logs.store.get('ns', 'p', 'c') ?? '',
      /vLLM API server version.*\n(.*\n)*INFO: {5}Application startup complete\.\n$/,
    );
  });

  it('CrashLoopBackOff: immediate first restart, then doubling back-offs capped at backoffMax', () => {
    const pod = testPod({ 'sim.modelplane.io/fail': 'CrashLoopBackOff' });
    const run = newPodRun(pod, 0, '10.0.0.1', '10.244.0.2');
    const logs = new Recorder();
    const at: Array<[number, string]> = [];
    play(pod, run, logs, 0, 12_700, at);
    // pulled at 100, each run lasts 200 and is seen exited 100 later; the first restart is immediate,
    // then back-offs of 1000, 2000, 4000, 4000 (capped)
    assert.deepEqual(
      at.filter(([, r]) => r === 'Started').map(([t]) => t),
      [100, 400, 1700, 4000, 8300, 12600],
    );
    assert.deepEqual(
      at.filter(([, r]) => r === 'BackOff').map(([t]) => t),
      [700, 2000, 4300, 8600],
    );
    assert.equal(run.containers[0]!.restartCount, 5);
    assert.match(logs.store.get('ns', 'p', 'c', { previous: true }) ?? '', /RuntimeError/, 'the previous run is kept');
  });

  it('ImagePullBackOff never starts the container and backs off between pulls', () => {
    const pod = testPod({ 'sim.modelplane.io/fail': 'ImagePullBackOff' });
    const run = newPodRun(pod, 0, '10.0.0.1', '10.244.0.2');
    const logs = new Recorder();
    const events = play(pod, run, logs, 0, 3_000);
    assert.deepEqual(events.slice(0, 6), [
      'Normal/Pulling',
      'Warning/Failed',
      'Warning/Failed',
      'Normal/BackOff',
      'Warning/Failed',
      'Normal/Pulling',
    ]);
    assert.equal(run.containers[0]!.started, false);
    assert.equal(podPhase(run, 'Always'), 'Pending');
    assert.equal(logs.store.get('ns', 'p', 'c'), undefined);
  });

  it('QoS class: Guaranteed, Burstable or BestEffort from cpu and memory, unless the API server set one', () => {
    const res = (requests: Record<string, string>, limits: Record<string, string>) =>
      testPod({}, { containers: [{ name: 'c', image: 'x', resources: { requests, limits } }] });
    const qos = (p: Pod) => podStatus(p, newPodRun(p, 0, 'h', 'i'), 0).qosClass;
    assert.equal(qos(res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })), 'Guaranteed');
    assert.equal(qos(res({ cpu: '1' }, { cpu: '2', memory: '1Gi' })), 'Burstable');
    assert.equal(qos(res({}, { 'nvidia.com/gpu': '1' })), 'BestEffort');
    const set = { ...res({ cpu: '1' }, {}), status: { qosClass: 'BestEffort' } };
    assert.equal(qos(set), undefined);
  });

  it('init containers run one after another before the app container', () => {
    const pod = testPod(
      {},
      {
        initContainers: [
          { name: 'i1', image: 'busybox' },
          { name: 'i2', image: 'busybox' },
        ],
      },
    );
    const run = newPodRun(pod, 0, '10.0.0.1', '10.244.0.2');
    const logs = new Recorder();
    advance(run, { pod, now: 0, delays: FAKE, logs });
    assert.deepEqual(
      run.containers.map((c) => c.step),
      ['pulling', 'waiting-turn', 'waiting-turn'],
    );
    assert.equal(podStatus(pod, run, 0).containerStatuses?.[0]?.state?.waiting?.reason, 'PodInitializing');
    play(pod, run, logs, 0, 5_000);
    const s = podStatus(pod, run, 5_000);
    assert.deepEqual(
      s.initContainerStatuses?.map((c) => c.state?.terminated?.reason),
      ['Completed', 'Completed'],
    );
    assert.equal(s.phase, 'Running');
    assert.equal(s.conditions?.find((c) => c.type === 'Initialized')?.status, 'True');
  });

  it('a Job pod (restartPolicy Never) succeeds; with OOMKilled it fails without restarting', () => {
    const ok = testPod({}, { restartPolicy: 'Never' });
    const okRun = newPodRun(ok, 0, 'h', 'p');
    play(ok, okRun, new Recorder(), 0, 5_000);
    assert.equal(podPhase(okRun, 'Never'), 'Succeeded');
    const oom = testPod({ 'sim.modelplane.io/fail': 'OOMKilled' }, { restartPolicy: 'Never' });
    const oomRun = newPodRun(oom, 0, 'h', 'p');
    play(oom, oomRun, new Recorder(), 0, 5_000);
    assert.equal(podPhase(oomRun, 'Never'), 'Failed');
    assert.deepEqual(
      oomRun.containers[0]!.state.terminated && [
        oomRun.containers[0]!.state.terminated.reason,
        oomRun.containers[0]!.state.terminated.exitCode,
      ],
      ['OOMKilled', 137],
    );
    assert.equal(oomRun.containers[0]!.restartCount, 0);
  });
});

describe('PodLogStore', () => {
  it('keeps logs per pod instance, with the previous run after a restart', () => {
    const s = new PodLogStore({ maxLines: 3 });
    s.append('ns', 'p', 'u1', 'c', ['a', 'b']);
    assert.equal(s.get('ns', 'p', 'c'), 'a\nb\n');
    assert.equal(s.get('ns', 'p', undefined), 'a\nb\n', 'no container name: the only one');
    assert.equal(s.get('ns', 'p', 'other'), undefined);
    s.append('ns', 'p', 'u1', 'c', ['c', 'd']);
    assert.equal(s.get('ns', 'p', 'c'), 'b\nc\nd\n', 'only the last maxLines are kept');
    s.restart('ns', 'p', 'u1', 'c');
    assert.equal(s.get('ns', 'p', 'c'), '');
    assert.equal(s.get('ns', 'p', 'c', { previous: true }), 'b\nc\nd\n');
    s.append('ns', 'p', 'u2', 'c', ['new pod']);
    assert.equal(s.get('ns', 'p', 'c'), 'new pod\n', 'a pod recreated under the same name starts empty');
    s.delete('ns', 'p', 'u1');
    assert.equal(s.get('ns', 'p', 'c'), 'new pod\n', 'deleting an old instance leaves the new one');
    s.delete('ns', 'p');
    assert.equal(s.get('ns', 'p', 'c'), undefined);
  });
});

describe('PodIpAllocator', () => {
  const node = (name: string, podCIDR?: string): Node => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: podCIDR ? { podCIDR } : {},
  });

  it("uses the node's podCIDR and hands out each address once", () => {
    const a = new PodIpAllocator();
    const n = node('n1', '10.100.3.0/24');
    assert.deepEqual([a.allocate(n), a.allocate(n)], ['10.100.3.2', '10.100.3.3']);
    a.release('n1', '10.100.3.2');
    assert.equal(a.allocate(n), '10.100.3.2');
    const twin = a.allocate(node('n2', '10.100.3.0/24'));
    assert.doesNotMatch(twin, /^10\.100\.3\./, 'a podCIDR another node has is not shared');
  });

  it('gives nodes without a podCIDR distinct ranges, and keeps ranges adopted pods already use', () => {
    const a = new PodIpAllocator();
    a.reserve('old', '10.244.9.7');
    const ranges = new Set(['old', 'x', 'y', 'z'].map((n) => a.allocate(node(n)).replace(/\.\d+$/, '')));
    assert.equal(ranges.size, 4);
    assert.ok(ranges.has('10.244.9'));
    assert.equal(a.allocate(node('old')), '10.244.9.3', 'addresses next to adopted ones');
  });
});

describe('ComponentRecorders', () => {
  it('reports as the component (one recorder per component and instance), or drops events when disabled', () => {
    const client = new KubeClient({} as Transport);
    const quiet = new Logger({}, 'silent');
    const on = new ComponentRecorders(client, quiet);
    assert.equal(on.for('kubelet', 'node-1'), on.for('kubelet', 'node-1'));
    assert.notEqual(on.for('kubelet', 'node-1'), on.for('kubelet', 'node-2'));
    assert.notEqual(on.for('kubelet', 'node-1'), discardRecorder);
    assert.equal(new ComponentRecorders(client, quiet, false).for('kubelet', 'node-1'), discardRecorder);
  });
});
