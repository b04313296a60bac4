// The simulated Job controller (kube-controller-manager's job-controller, 1.32 behaviour): pods from the
// template up to parallelism, replacements after failures with back-off, backoffLimit and
// activeDeadlineSeconds, Indexed completion, suspend, ttlSecondsAfterFinished, and the status with the
// SuccessCriteriaMet/Complete and FailureTarget/Failed condition pairs.

import { isNotFound, needsApply } from '../../kube/index.ts';
import type { SimContext } from './context.ts';
import { backoffDelay } from './delays.ts';
import { type Job, Jobs, type Pod, Pods, type WorkloadCondition } from './kinds.ts';
import { podFromTemplate } from './pod-template.ts';
import { ownedPods } from './replicasets.ts';
import { isActive, isPodReady, keepTimes, kubeTime, omitZero, parseTime } from './util.ts';

const FIELD_MANAGER = 'job-controller';
const INDEX = 'batch.kubernetes.io/job-completion-index';

function isTrue(job: Job, type: string): WorkloadCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

function podIndex(p: Pod): number | undefined {
  const v = p.metadata.annotations?.[INDEX];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** `1,3-5,7`: the completedIndexes format */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

function lastFailureAt(failed: readonly Pod[]): number {
  let last = 0;
  for (const p of failed) {
    for (const c of p.status?.containerStatuses ?? []) last = Math.max(last, parseTime(c.state?.terminated?.finishedAt) ?? 0);
  }
  return last;
}

export function registerJobs(sim: SimContext): void {
  sim.mgr
    .controller('sim-job')
    .for(Jobs)
    .owns(Pods)
    .withOptions({ concurrency: 4, fieldManager: FIELD_MANAGER })
    .complete(async (req, ctx) => {
      const job = await ctx.cache.get(Jobs, req.name, req.namespace);
      if (!job || job.metadata.deletionTimestamp) return;
      const recorder = sim.recorders.for(FIELD_MANAGER);
      const now = sim.now();
      const pods = await ownedPods(sim, job);
      const active = pods.filter(isActive);
      const removePods = async (victims: readonly Pod[]) => {
        for (const p of victims) {
          try {
            await ctx.client.delete(Pods, p.metadata.name!, req.namespace, { preconditions: { uid: p.metadata.uid! } });
            recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
          } catch (err) {
            if (!isNotFound(err) && (err as { code?: number }).code !== 409) throw err;
          }
        }
      };

      const finished = isTrue(job, 'Complete') ?? isTrue(job, 'Failed');
      if (finished) {
        const ttl = job.spec.ttlSecondsAfterFinished;
        if (ttl === undefined) return;
        const at = (parseTime(job.status?.completionTime ?? finished.lastTransitionTime) ?? now) + ttl * 1000;
        if (now < at) return { requeueAfter: at - now };
        await ctx.client.delete(Jobs, req.name, req.namespace, { propagationPolicy: 'Background' }).catch((err) => {
          if (!isNotFound(err)) throw err;
        });
        return;
      }

      const spec = job.spec;
      const indexed = spec.completionMode === 'Indexed';
      const succeededPods = pods.filter((p) => p.status?.phase === 'Succeeded');
      const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
      const doneIndexes = new Set(succeededPods.map(podIndex).filter((i): i is number => i !== undefined));
      const succeeded = Math.max(job.status?.succeeded ?? 0, indexed ? doneIndexes.size : succeededPods.length);
      const failed = Math.max(job.status?.failed ?? 0, failedPods.length);
      const parallelism = spec.parallelism ?? 1;
      const completions = spec.completions;
      const backoffLimit = spec.backoffLimit ?? 6;
      const startTime = job.status?.startTime ?? (spec.suspend ? undefined : kubeTime(now));
      const conditions: WorkloadCondition[] = [...(job.status?.conditions ?? [])];
      const setCondition = (type: string, status: 'True' | 'False', reason: string, message: string) => {
        const cond = keepTimes({ type, status, reason, message }, job.status?.conditions, now, { probe: true });
        const i = conditions.findIndex((c) => c.type === type);
        if (i >= 0) conditions[i] = cond;
        else conditions.push(cond);
      };
      let requeueAfter: number | undefined;
      let completionTime: string | undefined;
      let remaining = active;

      const restarts = active.reduce((n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0), 0);
      const onFailure = spec.template.spec.restartPolicy === 'OnFailure';
      const pastBackoff = failed > backoffLimit || (onFailure && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit));
      const deadline = spec.activeDeadlineSeconds !== undefined && startTime ? (parseTime(startTime) ?? now) + spec.activeDeadlineSeconds * 1000 : undefined;
      const complete = indexed ? completions !== undefined && doneIndexes.size >= completions : completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;

      if (spec.suspend) {
        await removePods(active);
        remaining = [];
        setCondition('Suspended', 'True', 'JobSuspended', 'Job suspended');
      } else if (complete) {
        await removePods(active);
        remaining = [];
        setCondition('SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
        setCondition('Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
        completionTime = kubeTime(now);
        recorder.event(job, 'Normal', 'Completed', 'Job completed');
      } else if (pastBackoff || (deadline !== undefined && now >= deadline)) {
        const [reason, message] = pastBackoff ? ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'] : ['DeadlineExceeded', 'Job was active longer than specified deadline'];
        await removePods(active);
        remaining = [];
        setCondition('FailureTarget', 'True', reason, message);
        setCondition('Failed', 'True', reason, message);
        recorder.event(job, 'Warning', reason, message);
      } else {
        if (isTrue(job, 'Suspended')) setCondition('Suspended', 'False', 'JobResumed', 'Job resumed');
        if (deadline !== undefined) requeueAfter = Math.max(1, deadline - now);
        const wantActive = completions === undefined ? (succeeded > 0 ? active.length : parallelism) : Math.min(parallelism, completions - succeeded);
        const missing = wantActive - active.length;
        const retryAt = failed > 0 ? lastFailureAt(failedPods) + backoffDelay(sim.delays, failed - 1) : 0;
        if (missing > 0 && now < retryAt) requeueAfter = Math.min(requeueAfter ?? Number.POSITIVE_INFINITY, retryAt - now);
        else if (missing > 0) {
          const busy = new Set(active.map(podIndex));
          const free = indexed ? Array.from({ length: completions ?? 0 }, (_, i) => i).filter((i) => !doneIndexes.has(i) && !busy.has(i)) : [];
          const created: Pod[] = [];
          for (let i = 0; i < missing && (!indexed || i < free.length); i++) {
            const index = indexed ? free[i] : undefined;
            const labels: Record<string, string> = {
              'batch.kubernetes.io/controller-uid': job.metadata.uid!,
              'batch.kubernetes.io/job-name': req.name,
              'controller-uid': job.metadata.uid!,
              'job-name': req.name,
              ...(index !== undefined ? { [INDEX]: String(index) } : {}),
            };
            const pod = podFromTemplate(job, spec.template, {
              labels,
              ...(index !== undefined ? { annotations: { [INDEX]: String(index) }, generateName: `${req.name}-${index}-`, hostname: `${req.name}-${index}` } : {}),
            });
            const p = await ctx.client.create(pod);
            created.push(p);
            recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata.name}`);
          }
          remaining = [...active, ...created];
        }
      }

      const status: NonNullable<Job['status']> = {
        ...(startTime ? { startTime } : {}),
        ...(completionTime ? { completionTime } : {}),
        ...omitZero({ active: remaining.length, succeeded, failed }),
        ready: remaining.filter(isPodReady).length,
        terminating: 0,
        ...(indexed && doneIndexes.size > 0 ? { completedIndexes: formatIndexes(doneIndexes) } : {}),
        ...(conditions.length > 0 ? { conditions } : {}),
        uncountedTerminatedPods: {},
      };
      const desired = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: req.name, namespace: req.namespace }, status };
      if (needsApply(desired, job, FIELD_MANAGER, 'status')) {
        try {
          await ctx.client.applyStatus(desired);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      return requeueAfter !== undefined && Number.isFinite(requeueAfter) ? { requeueAfter } : undefined;
    });
}
