// What discovery should do next for a template, decided from data (docs/aim.md, "Templates"): nothing
// (inline model sources, or the profile for the current spec is known), parse a finished Job's output,
// start a Job (under the cluster-wide limit of 10, after the backoff of earlier failures), or wait. Pure.
import type { AIMServiceTemplateStatus } from '../../../apis/aim/index.ts';
import { findCondition, type Job } from '../../../engine/inspectors/types.ts';
import {
  type DiscoveryResult,
  discoveryBackoffMs,
  discoveryJobName,
  MAX_CONCURRENT_DISCOVERY_JOBS,
} from '../catalog/discovery.ts';

export type DiscoveryStep =
  | { kind: 'inline' }
  | { kind: 'known' }
  | { kind: 'parsed'; result: DiscoveryResult; jobName: string }
  | { kind: 'unparseable'; jobName: string; message: string }
  | { kind: 'running'; jobName: string }
  | { kind: 'failed'; jobName: string; message: string; retryInMs: number; attempts: number }
  | { kind: 'start'; jobName: string; attempt: number }
  | { kind: 'throttled'; active: number }
  | { kind: 'blocked'; message: string };

export interface DiscoveryInput {
  templateName: string;
  inlineSources: boolean;
  specHash: string;
  status: AIMServiceTemplateStatus | undefined;
  /** the Job of the current attempt, if it exists */
  job: Job | undefined;
  /** its pod's output, when the Job completed */
  log: string | undefined;
  parse: (log: string) => DiscoveryResult | undefined;
  /** discovery Jobs running anywhere in the cluster right now */
  activeJobs: number;
  now: number;
  /** why discovery cannot start yet (the model is missing or not Ready), if it cannot */
  blockedBy?: string | undefined;
  backoffBaseMs?: number;
}

const finished = (job: Job, type: 'Complete' | 'Failed') =>
  findCondition(job.status?.conditions, type)?.status === 'True';

export function discoveryStep(input: DiscoveryInput): DiscoveryStep {
  if (input.inlineSources) return { kind: 'inline' };
  const d = input.status?.discovery;
  const sameSpec = d?.specHash === input.specHash;
  if (sameSpec && input.status?.profile) return { kind: 'known' };
  // a changed spec starts over: attempt 1, no backoff
  const attempts = sameSpec ? (d?.attempts ?? 0) : 0;
  const attempt = Math.max(1, attempts);
  const jobName = discoveryJobName(input.templateName, input.specHash, attempt);
  const job = input.job?.metadata.name === jobName ? input.job : undefined;
  if (job && finished(job, 'Complete')) {
    const result = input.log ? input.parse(input.log) : undefined;
    return result
      ? { kind: 'parsed', result, jobName }
      : { kind: 'unparseable', jobName, message: `discovery Job ${jobName} completed but printed no profile JSON` };
  }
  if (job && finished(job, 'Failed')) {
    const failedAt = Date.parse(d?.lastAttemptTime ?? '') || input.now;
    const wait = failedAt + discoveryBackoffMs(attempt, input.backoffBaseMs) - input.now;
    const message = `discovery Job ${jobName} failed${d?.lastFailureReason ? `: ${d.lastFailureReason}` : ''}`;
    if (wait > 0) return { kind: 'failed', jobName, message, retryInMs: wait, attempts: attempt };
    const next = attempt + 1;
    return input.activeJobs >= MAX_CONCURRENT_DISCOVERY_JOBS
      ? { kind: 'throttled', active: input.activeJobs }
      : { kind: 'start', jobName: discoveryJobName(input.templateName, input.specHash, next), attempt: next };
  }
  if (job) return { kind: 'running', jobName };
  if (input.blockedBy) return { kind: 'blocked', message: input.blockedBy };
  if (input.activeJobs >= MAX_CONCURRENT_DISCOVERY_JOBS) return { kind: 'throttled', active: input.activeJobs };
  return { kind: 'start', jobName, attempt };
}

/** the Job name of the attempt the status is on (attempt 1 of a spec not seen before) */
export function currentJobName(
  templateName: string,
  status: AIMServiceTemplateStatus | undefined,
  specHash: string,
): string {
  const d = status?.discovery;
  return discoveryJobName(templateName, specHash, d?.specHash === specHash ? Math.max(1, d.attempts ?? 0) : 1);
}
