// The simulators' shared pieces, pure: reading a failure out of pod statuses, Deployment health,
// condition bookkeeping, the stage clock and the reverse reference index.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildConditions } from '../src/operators/conditions.ts';
import { StageClock } from '../src/operators/delays.ts';
import type { Deployment, Pod } from '../src/operators/kinds.ts';
import { deploymentHealth, firstProblem, podProblem } from '../src/operators/pod-health.ts';

/** the fields the API server always sets on a container status */
const STATUS_BASE = { image: 'img', imageID: '', ready: false, restartCount: 0 };

const pod = (name: string, status: Pod['status']): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  status,
});

describe('pod problems', () => {
  const cases: Array<{
    name: string;
    status: Pod['status'];
    want?: { reason: string; fatal: boolean; message: RegExp; exitCode?: number };
  }> = [
    {
      name: 'a running ready pod',
      status: {
        phase: 'Running',
        containerStatuses: [{ ...STATUS_BASE, name: 'c', ready: true, state: { running: {} } }],
      },
    },
    {
      name: 'a container still being created',
      status: {
        phase: 'Pending',
        containerStatuses: [{ ...STATUS_BASE, name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }],
      },
    },
    {
      name: 'an image pull back-off',
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            ...STATUS_BASE,
            name: 'c',
            state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' } },
          },
        ],
      },
      want: { reason: 'ImagePullBackOff', fatal: true, message: /Back-off pulling image "x"/ },
    },
    {
      name: 'a crash loop names the last termination',
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            ...STATUS_BASE,
            name: 'c',
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s' } },
            lastState: { terminated: { reason: 'OOMKilled', exitCode: 137 } },
          },
        ],
      },
      want: {
        reason: 'CrashLoopBackOff',
        fatal: true,
        message: /back-off 10s; container c last terminated with OOMKilled \(exit code 137\)/,
        exitCode: 137,
      },
    },
    {
      name: 'a container that exited non-zero',
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            ...STATUS_BASE,
            name: 'c',
            state: { terminated: { reason: 'Error', exitCode: 1, message: 'No space left on device' } },
          },
        ],
      },
      want: { reason: 'Error', fatal: true, message: /exit code 1\): No space left on device/, exitCode: 1 },
    },
    {
      name: 'a failing init container',
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { ...STATUS_BASE, name: 'storage-initializer', state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
        containerStatuses: [{ ...STATUS_BASE, name: 'c', state: { waiting: { reason: 'PodInitializing' } } }],
      },
      want: { reason: 'CrashLoopBackOff', fatal: true, message: /storage-initializer/ },
    },
    {
      name: 'an unschedulable pod is pending, not failed',
      status: {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/6 nodes are available' },
        ],
      },
      want: { reason: 'Unschedulable', fatal: false, message: /0\/6 nodes/ },
    },
    {
      name: 'an evicted pod',
      status: { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: ephemeral-storage.' },
      want: { reason: 'Evicted', fatal: true, message: /ephemeral-storage/ },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = podProblem(pod('p', c.status));
      if (!c.want) return assert.equal(p, undefined);
      assert.ok(p);
      assert.equal(p.reason, c.want.reason);
      assert.equal(p.fatal, c.want.fatal);
      assert.match(p.message, c.want.message);
      assert.equal(p.exitCode, c.want.exitCode);
    });
  }

  it('a fatal problem wins over a pending one, and terminating pods are ignored', () => {
    const pending = pod('a', { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] });
    const crashing = pod('b', {
      containerStatuses: [{ ...STATUS_BASE, name: 'c', state: { waiting: { reason: 'ErrImagePull' } } }],
    });
    const leaving: Pod = {
      ...pod('c', { phase: 'Failed' }),
      metadata: { name: 'c', deletionTimestamp: '2025-01-01T00:00:00Z' },
    };
    assert.equal(firstProblem([pending, crashing, leaving])?.reason, 'ErrImagePull');
    assert.equal(firstProblem([pending, leaving])?.reason, 'Unschedulable');
  });
});

describe('deployment health', () => {
  const deploy = (generation: number, status: Deployment['status'], replicas = 2): Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', generation },
    spec: { replicas, selector: {}, template: {} },
    status,
  });
  it('is ready only when the latest generation is observed and every replica is ready and available', () => {
    assert.equal(
      deploymentHealth(
        deploy(2, { observedGeneration: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 }),
        [],
      ).allReady,
      true,
    );
    assert.equal(
      deploymentHealth(
        deploy(3, { observedGeneration: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 }),
        [],
      ).allReady,
      false,
    );
    assert.equal(
      deploymentHealth(
        deploy(2, { observedGeneration: 2, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 2 }),
        [],
      ).allReady,
      false,
    );
    assert.equal(deploymentHealth(undefined, []).allReady, false);
  });
  it('reports a progress deadline as a fatal problem', () => {
    const h = deploymentHealth(
      deploy(1, {
        observedGeneration: 1,
        conditions: [
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: 'ReplicaSet "d-1" has timed out progressing.',
          },
        ],
      }),
      [],
    );
    assert.equal(h.problem?.reason, 'ProgressDeadlineExceeded');
    assert.equal(h.problem?.fatal, true);
  });
});

describe('condition bookkeeping', () => {
  it('keeps lastTransitionTime while the status holds and moves it when the status changes', () => {
    const first = buildConditions(
      undefined,
      [{ type: 'Ready', status: false, reason: 'Pending', message: 'waiting' }],
      { now: 'T1', observedGeneration: 1 },
    );
    assert.deepEqual(first, [
      {
        type: 'Ready',
        status: 'False',
        reason: 'Pending',
        message: 'waiting',
        lastTransitionTime: 'T1',
        observedGeneration: 1,
      },
    ]);
    const same = buildConditions(
      first,
      [{ type: 'Ready', status: false, reason: 'StillPending', message: 'still waiting' }],
      { now: 'T2' },
    );
    assert.equal(same[0]?.lastTransitionTime, 'T1');
    const flipped = buildConditions(same, [{ type: 'Ready', status: true, reason: 'Ready' }], { now: 'T3' });
    assert.equal(flipped[0]?.lastTransitionTime, 'T3');
  });
  it('writes Knative-style True conditions without reason or message', () => {
    assert.deepEqual(
      buildConditions(undefined, [{ type: 'Ready', status: true, reason: 'Ready' }], {
        now: 'T',
        knative: true,
        observedGeneration: 4,
      }),
      [{ type: 'Ready', status: 'True', lastTransitionTime: 'T' }],
    );
  });
});

describe('stage clock', () => {
  it('counts from the first call per object and stage, and starts over for a recreated object', () => {
    let now = 1000;
    const clock = new StageClock(() => now);
    const obj = { metadata: { namespace: 'ns', name: 'a', uid: 'u1' } };
    assert.equal(clock.remaining(obj, 'ingress', 500), 500);
    now = 1300;
    assert.equal(clock.remaining(obj, 'ingress', 500), 200);
    assert.equal(clock.remaining(obj, 'other', 500), 500);
    now = 1600;
    assert.equal(clock.remaining(obj, 'ingress', 500), 0);
    assert.equal(clock.remaining({ metadata: { ...obj.metadata, uid: 'u2' } }, 'ingress', 500), 500);
    clock.forget('ns', 'a');
    assert.equal(clock.remaining(obj, 'ingress', 500), 500);
    assert.equal(clock.remaining(obj, 'instant', 0), 0);
  });
});
