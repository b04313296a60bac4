// The simulated Job controller (kube-controller-manager's job-controller, 1.32 behaviour): pods from the
// template up to parallelism, replacements after failures with back-off, backoffLimit and
// activeDeadlineSeconds, Indexed completion, suspend, ttlSecondsAfterFinished, and the status with the
// SuccessCriteriaMet/Complete and FailureTarget/Failed condition pairs.

import { isNotFound, needsApply } from '@modelplane/runtime/client';
import type { ReconcileContext, Request, Result } from '@modelplane/runtime/controller';
import type { EventRecorder } from '@modelplane/runtime/events';
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
    for (const c of p.status?.containerStatuses ?? [])
      last = Math.max(last, parseTime(c.state?.terminated?.finishedAt) ?? 0);
  }
  return last;
}

export function registerJobs(sim: SimContext): void {
  sim.mgr
    .controller('sim-job')
    .for(Jobs)
    .owns(Pods)
    .withOptions({ concurrency: 4, fieldManager: FIELD_MANAGER })
    .complete((req, ctx) => reconcileJob(sim, req, ctx));
}

/** What the Job's pods add up to, and the limits they are judged by. */
interface JobTally {
  indexed: boolean;
  active: Pod[];
  failedPods: Pod[];
  doneIndexes: Set<number>;
  succeeded: number;
  failed: number;
  startTime: string | undefined;
  pastBackoff: boolean;
  /** when activeDeadlineSeconds runs out (ms), if set and started */
  deadline: number | undefined;
  complete: boolean;
}

function tallyJob(job: Job, pods: Pod[], now: number): JobTally {
  const spec = job.spec;
  const indexed = spec.completionMode === 'Indexed';
  const active = pods.filter(isActive);
  const succeededPods = pods.filter((p) => p.status?.phase === 'Succeeded');
  const failedPods = pods.filter((p) => p.status?.phase === 'Failed');
  const doneIndexes = new Set(succeededPods.map(podIndex).filter((i): i is number => i !== undefined));
  const succeeded = Math.max(job.status?.succeeded ?? 0, indexed ? doneIndexes.size : succeededPods.length);
  const failed = Math.max(job.status?.failed ?? 0, failedPods.length);
  const completions = spec.completions;
  const backoffLimit = spec.backoffLimit ?? 6;
  const startTime = job.status?.startTime ?? (spec.suspend ? undefined : kubeTime(now));
  const restarts = active.reduce(
    (n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0),
    0,
  );
  const onFailure = spec.template.spec.restartPolicy === 'OnFailure';
  return {
    indexed,
    active,
    failedPods,
    doneIndexes,
    succeeded,
    failed,
    startTime,
    pastBackoff: failed > backoffLimit || (onFailure && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit)),
    deadline:
      spec.activeDeadlineSeconds !== undefined && startTime
        ? (parseTime(startTime) ?? now) + spec.activeDeadlineSeconds * 1000
        : undefined,
    complete: indexed
      ? completions !== undefined && doneIndexes.size >= completions
      : completions !== undefined
        ? succeeded >= completions
        : succeeded > 0 && active.length === 0,
  };
}

/** One pass over a Job: finished ones wait for their TTL; others are suspended, completed, failed or advanced. */
async function reconcileJob(sim: SimContext, req: Request, ctx: ReconcileContext): Promise<Result | undefined> {
  const job = await ctx.cache.get(Jobs, req.name, req.namespace);
  if (!job || job.metadata.deletionTimestamp) return undefined;
  const now = sim.now();
  const finished = isTrue(job, 'Complete') ?? isTrue(job, 'Failed');
  if (finished) return deleteAfterTtl(job, finished, now, ctx);
  const tally = tallyJob(job, await ownedPods(sim, job), now);
  const recorder = sim.recorders.for(FIELD_MANAGER);
  const conditions = new JobConditions(job, now);
  const removeActive = async () => {
    for (const p of tally.active) await deletePod(job, p, ctx, recorder);
  };
  let remaining = tally.active;
  let completionTime: string | undefined;
  let requeueAfter: number | undefined;
  if (job.spec.suspend) {
    await removeActive();
    remaining = [];
    conditions.set('Suspended', 'True', 'JobSuspended', 'Job suspended');
  } else if (tally.complete) {
    await removeActive();
    remaining = [];
    conditions.set('SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
    conditions.set('Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
    completionTime = kubeTime(now);
    recorder.event(job, 'Normal', 'Completed', 'Job completed');
  } else if (tally.pastBackoff || (tally.deadline !== undefined && now >= tally.deadline)) {
    const [reason, message] = tally.pastBackoff
      ? ['BackoffLimitExceeded', 'Job has reached the specified backoff limit']
      : ['DeadlineExceeded', 'Job was active longer than specified deadline'];
    await removeActive();
    remaining = [];
    conditions.set('FailureTarget', 'True', reason, message);
    conditions.set('Failed', 'True', reason, message);
    recorder.event(job, 'Warning', reason, message);
  } else {
    if (isTrue(job, 'Suspended')) conditions.set('Suspended', 'False', 'JobResumed', 'Job resumed');
    const run = await runPods(sim, job, tally, now, ctx, recorder);
    remaining = run.active;
    requeueAfter = run.requeueAfter;
  }
  await writeJobStatus(job, tally, { remaining, completionTime, conditions: conditions.list }, ctx);
  return requeueAfter !== undefined && Number.isFinite(requeueAfter) ? { requeueAfter } : undefined;
}

/** ttlSecondsAfterFinished: the finished Job is deleted (with its pods) once its TTL has passed */
async function deleteAfterTtl(
  job: Job,
  finished: WorkloadCondition,
  now: number,
  ctx: ReconcileContext,
): Promise<Result | undefined> {
  const ttl = job.spec.ttlSecondsAfterFinished;
  if (ttl === undefined) return undefined;
  const at = (parseTime(job.status?.completionTime ?? finished.lastTransitionTime) ?? now) + ttl * 1000;
  if (now < at) return { requeueAfter: at - now };
  await ctx.client
    .delete(Jobs, job.metadata.name!, job.metadata.namespace, { propagationPolicy: 'Background' })
    .catch((err) => {
      if (!isNotFound(err)) throw err;
    });
  return undefined;
}

async function deletePod(job: Job, p: Pod, ctx: ReconcileContext, recorder: EventRecorder): Promise<void> {
  try {
    await ctx.client.delete(Pods, p.metadata.name!, p.metadata.namespace, { preconditions: { uid: p.metadata.uid! } });
    recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
  } catch (err) {
    if (!isNotFound(err) && (err as { code?: number }).code !== 409) throw err;
  }
}

/** A running Job: pods up to parallelism (free indexes first when Indexed), replacements after the failure back-off. */
async function runPods(
  sim: SimContext,
  job: Job,
  t: JobTally,
  now: number,
  ctx: ReconcileContext,
  recorder: EventRecorder,
): Promise<{ active: Pod[]; requeueAfter?: number }> {
  const { parallelism = 1, completions } = job.spec;
  const requeueAfter = t.deadline !== undefined ? Math.max(1, t.deadline - now) : undefined;
  const wantActive =
    completions === undefined
      ? t.succeeded > 0
        ? t.active.length
        : parallelism
      : Math.min(parallelism, completions - t.succeeded);
  const missing = wantActive - t.active.length;
  if (missing <= 0) return { active: t.active, ...(requeueAfter !== undefined ? { requeueAfter } : {}) };
  const retryAt = t.failed > 0 ? lastFailureAt(t.failedPods) + backoffDelay(sim.delays, t.failed - 1) : 0;
  if (now < retryAt)
    return { active: t.active, requeueAfter: Math.min(requeueAfter ?? Number.POSITIVE_INFINITY, retryAt - now) };
  const busy = new Set(t.active.map(podIndex));
  const free = t.indexed
    ? Array.from({ length: completions ?? 0 }, (_, i) => i).filter((i) => !t.doneIndexes.has(i) && !busy.has(i))
    : [];
  const created: Pod[] = [];
  for (let i = 0; i < missing && (!t.indexed || i < free.length); i++) {
    const p = await ctx.client.create(jobPod(job, t.indexed ? free[i] : undefined));
    created.push(p);
    recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${p.metadata.name}`);
  }
  return { active: [...t.active, ...created], ...(requeueAfter !== undefined ? { requeueAfter } : {}) };
}

/** a pod from the Job's template, with the Job's labels (and its completion index when Indexed) */
function jobPod(job: Job, index: number | undefined): Pod {
  const name = job.metadata.name!;
  const labels: Record<string, string> = {
    'batch.kubernetes.io/controller-uid': job.metadata.uid!,
    'batch.kubernetes.io/job-name': name,
    'controller-uid': job.metadata.uid!,
    'job-name': name,
    ...(index !== undefined ? { [INDEX]: String(index) } : {}),
  };
  return podFromTemplate(job, job.spec.template, {
    labels,
    ...(index !== undefined
      ? { annotations: { [INDEX]: String(index) }, generateName: `${name}-${index}-`, hostname: `${name}-${index}` }
      : {}),
  });
}

/** the Job's conditions being updated, keeping each one's times unless its status changes */
class JobConditions {
  readonly list: WorkloadCondition[];

  constructor(
    private readonly job: Job,
    private readonly now: number,
  ) {
    this.list = [...(job.status?.conditions ?? [])];
  }

  set(type: string, status: 'True' | 'False', reason: string, message: string): void {
    const cond = keepTimes({ type, status, reason, message }, this.job.status?.conditions, this.now, { probe: true });
    const i = this.list.findIndex((c) => c.type === type);
    if (i >= 0) this.list[i] = cond;
    else this.list.push(cond);
  }
}

async function writeJobStatus(
  job: Job,
  t: JobTally,
  next: { remaining: Pod[]; completionTime: string | undefined; conditions: WorkloadCondition[] },
  ctx: ReconcileContext,
): Promise<void> {
  const status: NonNullable<Job['status']> = {
    ...(t.startTime ? { startTime: t.startTime } : {}),
    ...(next.completionTime ? { completionTime: next.completionTime } : {}),
    ...omitZero({ active: next.remaining.length, succeeded: t.succeeded, failed: t.failed }),
    ready: next.remaining.filter(isPodReady).length,
    terminating: 0,
    ...(t.indexed && t.doneIndexes.size > 0 ? { completedIndexes: formatIndexes(t.doneIndexes) } : {}),
    ...(next.conditions.length > 0 ? { conditions: next.conditions } : {}),
    uncountedTerminatedPods: {},
  };
  const desired = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: job.metadata.name, namespace: job.metadata.namespace },
    status,
  };
  if (!needsApply(desired, job, FIELD_MANAGER, 'status')) return;
  try {
    await ctx.client.applyStatus(desired);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
