// The pods an AIM object waits for, as a component: a pod held until its PersistentVolumeClaim is bound is a
// wait (the claim's own component reports a provisioning failure), while a pod no node can run needs the
// user and is said as a Warning. Pure.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podProblem } from '../../../src/controllers/aim/shared/pod-health.ts';
import type { ComponentHealth } from '../../../src/engine/health.ts';

const fix = { pullSecrets: 'spec.imagePullSecrets of AIMArtifact q/a', resources: 'spec.resources of AIMService q/s' };

describe('podProblem', () => {
  it('a pod the scheduler holds for an unbound claim: Progressing, no action asked, the advice kept', () => {
    const h = podProblem(
      'DownloadJobPods',
      {
        state: 'Pending',
        reason: 'FailedScheduling',
        message: 'pod a-dl-1-x: 0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
      },
      fix,
    ) as ComponentHealth;
    assert.equal(h.state, 'Progressing');
    assert.equal(h.reason, 'FailedScheduling');
    assert.equal(h.needsAction, undefined);
    assert.match(
      h.message ?? '',
      /unbound immediate PersistentVolumeClaims.*; its PersistentVolumeClaim is not bound: check/,
    );
  });

  it('a pod no node can run asks for action (a Warning), naming the field to change', () => {
    const h = podProblem(
      'DownloadJobPods',
      {
        state: 'Pending',
        reason: 'FailedScheduling',
        message: 'pod a-dl-1-x: 0/6 nodes are available: 6 Insufficient amd.com/gpu.',
      },
      fix,
    ) as ComponentHealth;
    assert.equal(h.needsAction, true);
    assert.match(h.message ?? '', /lower the request \(spec.resources of AIMService q\/s\)/);
  });

  it('pods on their way are no problem', () => {
    assert.equal(podProblem('P', { state: 'Progressing', reason: 'PodsStarting', message: '' }, fix), undefined);
    assert.equal(podProblem('P', undefined, fix), undefined);
  });
});
