// Jobs on the embedded API server: pods run to completion, parallelism and completions, Indexed mode,
// backoffLimit (restartPolicy Never and OnFailure), activeDeadlineSeconds and ttlSecondsAfterFinished,
// with the status and conditions kube 1.32 writes.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Job, Jobs, type Pod, Pods } from '@modelplane/sim/workloads/kinds';
import { type CategorizedError, jobHealth } from '../../src/engine/index.ts';
import { type SimCluster, startSimCluster, waitFor } from './workloads-fixture.ts';

function job(
  name: string,
  namespace: string,
  spec: Partial<Job['spec']> = {},
  annotations?: Record<string, string>,
): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace },
    spec: {
      template: {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'download', image: 'ghcr.io/acme/model-downloader:1.0', args: ['--model', 'Qwen/Qwen2.5-0.5B'] },
          ],
        },
      },
      ...spec,
    },
  };
}

const cond = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type);

describe('workload simulators: Jobs', () => {
  let c: SimCluster;
  before(async () => {
    c = await startSimCluster();
    await c.node('node-1', { cpu: '16', memory: '64Gi', pods: '110' });
  });
  after(async () => c?.close());

  async function finished(ns: string, name: string, type: 'Complete' | 'Failed', timeoutMs?: number): Promise<Job> {
    return waitFor(
      async () => {
        const j = await c.admin.get(Jobs, name, ns);
        return cond(j, type)?.status === 'True' ? j : undefined;
      },
      `job ${ns}/${name} ${type}`,
      timeoutMs,
    );
  }

  async function jobPods(ns: string): Promise<Pod[]> {
    return (await c.admin.list(Pods, { namespace: ns })).items;
  }

  it('runs a pod to completion: Succeeded pod, Complete job with the 1.32 status', async () => {
    const ns = await c.namespace('job-simple');
    await c.admin.create(job('fetch', ns));
    const j = await finished(ns, 'fetch', 'Complete');
    assert.deepEqual(
      j.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
        ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ],
    );
    for (const x of j.status!.conditions!) {
      assert.ok(x.lastTransitionTime);
      assert.ok(x.lastProbeTime);
    }
    assert.equal(j.status?.succeeded, 1);
    assert.equal(j.status?.active, undefined);
    assert.equal(j.status?.failed, undefined);
    assert.equal(j.status?.ready, 0);
    assert.equal(j.status?.terminating, 0);
    assert.deepEqual(j.status?.uncountedTerminatedPods, {});
    assert.ok(j.status?.startTime && j.status?.completionTime);
    assert.ok(Date.parse(j.status.completionTime) >= Date.parse(j.status.startTime));

    const [p] = await jobPods(ns);
    assert.ok(p);
    assert.match(p.metadata.name!, /^fetch-[a-z0-9]{5}$/);
    assert.equal(p.metadata.labels?.['batch.kubernetes.io/job-name'], 'fetch');
    assert.equal(p.metadata.labels?.['job-name'], 'fetch');
    assert.equal(p.metadata.labels?.['batch.kubernetes.io/controller-uid'], j.metadata.uid);
    assert.equal(p.metadata.ownerReferences?.[0]?.kind, 'Job');
    assert.equal(p.status?.phase, 'Succeeded');
    const term = p.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(term?.reason, 'Completed');
    assert.equal(term?.exitCode, 0);
    assert.equal(p.status?.conditions?.find((x) => x.type === 'Ready')?.reason, 'PodCompleted');
    const log = await c.podLog(ns, p.metadata.name!);
    assert.match(log, /Downloading Qwen\/Qwen2\.5-0\.5B/);
    assert.match(log, /Download complete\n$/);
    const reasons = (await c.events(ns, 'Job', 'fetch')).map((e) => `${e.reason}: ${e.message}`);
    assert.ok(reasons.includes(`SuccessfulCreate: Created pod: ${p.metadata.name}`), reasons.join('\n'));
    assert.ok(reasons.includes('Completed: Job completed'), reasons.join('\n'));
    assert.equal(jobHealth(j as never).state, 'Ready');
  });

  it('completions 3 with parallelism 2: three successes, never more than two pods at a time', async () => {
    const ns = await c.namespace('job-parallel');
    let maxActive = 0;
    const watch = setInterval(async () => {
      const ps = await jobPods(ns).catch(() => []);
      maxActive = Math.max(
        maxActive,
        ps.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length,
      );
    }, 3);
    // cleared however the Job ends: a timed-out wait would leave the interval running and the file never exiting
    let j: Awaited<ReturnType<typeof finished>>;
    try {
      await c.admin.create(job('batch', ns, { completions: 3, parallelism: 2 }));
      j = await finished(ns, 'batch', 'Complete');
    } finally {
      clearInterval(watch);
    }
    assert.equal(j.status?.succeeded, 3);
    assert.equal((await jobPods(ns)).filter((p) => p.status?.phase === 'Succeeded').length, 3);
    assert.ok(maxActive <= 2, `${maxActive} pods active at once`);
  });

  it('Indexed: one pod per index with its index annotation and hostname, completedIndexes 0-2', async () => {
    const ns = await c.namespace('job-indexed');
    await c.admin.create(job('shard', ns, { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    const j = await finished(ns, 'shard', 'Complete');
    assert.equal(j.status?.completedIndexes, '0-2');
    const pods = await jobPods(ns);
    assert.deepEqual(pods.map((p) => p.metadata.annotations?.['batch.kubernetes.io/job-completion-index']).sort(), [
      '0',
      '1',
      '2',
    ]);
    for (const p of pods) {
      const i = p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'];
      assert.equal(p.spec.hostname, `shard-${i}`);
      assert.match(p.metadata.name!, new RegExp(`^shard-${i}-[a-z0-9]{5}$`));
    }
  });

  it('backoffLimit with restartPolicy Never: failed pods are replaced until the limit, then the Job fails', async () => {
    const ns = await c.namespace('job-backoff');
    await c.admin.create(job('flaky', ns, { backoffLimit: 1 }, { 'sim.modelplane.io/fail': 'CrashLoopBackOff' }));
    const j = await finished(ns, 'flaky', 'Failed');
    assert.deepEqual(
      j.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
        ['Failed', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ],
    );
    assert.equal(j.status?.failed, 2);
    assert.equal(j.status?.succeeded, undefined);
    const pods = await jobPods(ns);
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.status?.phase, 'Failed');
      assert.equal(p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 1);
    }
    const ev = (await c.events(ns, 'Job', 'flaky')).find((e) => e.reason === 'BackoffLimitExceeded');
    assert.equal(ev?.type, 'Warning');
    const health = jobHealth(j as never);
    assert.equal((health.errors?.[0] as CategorizedError | undefined)?.reason, 'JobBackoffLimitExceeded');
  });

  it('backoffLimit with restartPolicy OnFailure: container restarts count, the running pod is removed', async () => {
    const ns = await c.namespace('job-onfailure');
    const j0 = job('oom', ns, { backoffLimit: 2 }, { 'sim.modelplane.io/fail': 'OOMKilled' });
    j0.spec.template.spec.restartPolicy = 'OnFailure';
    await c.admin.create(j0);
    const j = await finished(ns, 'oom', 'Failed');
    assert.equal(cond(j, 'Failed')?.reason, 'BackoffLimitExceeded');
    await waitFor(async () => (await jobPods(ns)).length === 0, 'the restarting pod deleted');
  });

  it('activeDeadlineSeconds: a Job running too long fails with DeadlineExceeded', async () => {
    const ns = await c.namespace('job-deadline');
    const slow = await startSimCluster({ delays: { run: 60_000 } });
    try {
      await slow.node('n', { cpu: '4', memory: '8Gi' });
      await slow.namespace(ns);
      await slow.admin.create(job('slow', ns, { activeDeadlineSeconds: 1 }));
      const j = await waitFor(
        async () => {
          const x = await slow.admin.get(Jobs, 'slow', ns);
          return cond(x, 'Failed') ? x : undefined;
        },
        'job deadline',
        5_000,
      );
      assert.equal(cond(j, 'Failed')?.reason, 'DeadlineExceeded');
      assert.equal(cond(j, 'Failed')?.message, 'Job was active longer than specified deadline');
      assert.equal(cond(j, 'FailureTarget')?.reason, 'DeadlineExceeded');
    } finally {
      await slow.close();
    }
  });

  it('ttlSecondsAfterFinished: 0 deletes the Job once it completes', async () => {
    const ns = await c.namespace('job-ttl');
    await c.admin.create(job('once', ns, { ttlSecondsAfterFinished: 0 }));
    await waitFor(
      async () => (await c.admin.getOrUndefined(Jobs, 'once', ns)) === undefined,
      'job deleted after completion',
    );
  });

  it('suspend: no pods while suspended, Suspended condition, resumes to completion', async () => {
    const ns = await c.namespace('job-suspend');
    await c.admin.create(job('later', ns, { suspend: true }));
    const suspended = await waitFor(async () => {
      const x = await c.admin.get(Jobs, 'later', ns);
      return cond(x, 'Suspended')?.status === 'True' ? x : undefined;
    }, 'Suspended condition');
    assert.equal(suspended.status?.startTime, undefined);
    assert.equal((await jobPods(ns)).length, 0);
    await c.admin.patch(Jobs, 'later', ns, { spec: { suspend: false } }, 'merge');
    const j = await finished(ns, 'later', 'Complete');
    assert.equal(cond(j, 'Suspended')?.status, 'False');
    assert.equal(cond(j, 'Suspended')?.reason, 'JobResumed');
  });
});
