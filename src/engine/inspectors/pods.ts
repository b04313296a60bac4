// Pod health: from phase, container states, the pods' events and their last log lines to one component
// health with a categorised error, so "the model download failed" becomes AuthError, StorageFull,
// SourceNotFound or PodOOMKilled instead of a bare "pod failed".

import {
  authError,
  type CategorizedError,
  infrastructureError,
  invalidSpecError,
  missingUpstreamError,
  resourceExhaustionError,
} from '../errors.ts';
import type { ComponentState, HealthReport } from '../health.ts';
import { classifyImagePull, classifyLogTail } from './log-patterns.ts';
import { type ContainerStatus, type CoreEvent, findCondition, latestEvent, type Pod } from './types.ts';

export interface PodDiagnostics {
  /** core/v1 events whose involvedObject is one of the pods */
  events?: readonly CoreEvent[];
  /** the last log lines, by pod name */
  logs?: Readonly<Record<string, string>>;
}

/** one pod's verdict: an error (categorised) or a state with a reason */
interface PodFinding {
  pod: string;
  error?: CategorizedError;
  state: ComponentState;
  reason: string;
  message: string;
}

const PENDING_EVENT_REASONS = new Set([
  'FailedScheduling',
  'FailedMount',
  'FailedAttachVolume',
  'FailedCreatePodSandBox',
]);
const PULLING = new Set(['Pulling']);

function allStatuses(pod: Pod): ContainerStatus[] {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
}

function err(pod: string, error: CategorizedError): PodFinding {
  return { pod, error, state: 'Failed', reason: error.reason, message: error.message };
}

function oomKilled(pod: Pod): ContainerStatus | undefined {
  return allStatuses(pod).find(
    (c) => c.state?.terminated?.reason === 'OOMKilled' || c.lastState?.terminated?.reason === 'OOMKilled',
  );
}

/** the last non-empty line of a log tail, trimmed to a condition-sized length */
function lastLogLine(logs: string | undefined): string | undefined {
  const line = logs
    ?.split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  return line ? line.slice(0, 300) : undefined;
}

/** a failed or crash-looping pod: OOM first, then what the logs say, then the termination itself */
function failure(pod: Pod, name: string, logs: string | undefined, fallbackReason: string): PodFinding {
  const oom = oomKilled(pod);
  if (oom)
    return err(
      name,
      resourceExhaustionError(
        'PodOOMKilled',
        `pod ${name}: container ${oom.name} was killed for running out of memory (OOMKilled)`,
      ),
    );
  const fromLogs = classifyLogTail(logs, `pod ${name}`);
  if (fromLogs) return err(name, fromLogs);
  const term = allStatuses(pod).find(
    (c) => (c.state?.terminated?.exitCode ?? 0) !== 0 || (c.lastState?.terminated?.exitCode ?? 0) !== 0,
  );
  const t = term?.state?.terminated ?? term?.lastState?.terminated;
  let detail = t
    ? `container ${term!.name} exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}${t.message ? `: ${t.message.trim()}` : ''}`
    : (pod.status?.message ?? 'failed');
  const last = lastLogLine(logs);
  if (last) detail = `${detail}; last log line: ${last}`;
  if (fallbackReason === 'CrashLoopBackOff') {
    // unrecognised crash loops may heal (a dependency coming up); report, but do not block applies
    return { pod: name, state: 'Degraded', reason: 'CrashLoopBackOff', message: `pod ${name}: ${detail}` };
  }
  return err(name, invalidSpecError(fallbackReason, `pod ${name}: ${detail}`));
}

function waitingFinding(pod: Pod, name: string, c: ContainerStatus, logs: string | undefined): PodFinding | undefined {
  const w = c.state?.waiting;
  if (!w?.reason) return undefined;
  const msg = `pod ${name}: container ${c.name}: ${w.reason}${w.message ? `: ${w.message}` : ''}`;
  switch (w.reason) {
    case 'ErrImagePull':
    case 'ImagePullBackOff': {
      const kind = classifyImagePull(w.message);
      if (kind === 'auth') return err(name, authError('ImagePullAuthFailure', msg));
      if (kind === 'not-found') return err(name, missingUpstreamError('ImageNotFound', msg));
      return {
        pod: name,
        error: infrastructureError('ImagePullBackOff', msg),
        state: 'Degraded',
        reason: 'ImagePullBackOff',
        message: msg,
      };
    }
    case 'InvalidImageName':
      return err(name, invalidSpecError('InvalidImageName', msg));
    case 'CreateContainerConfigError':
      // a referenced ConfigMap/Secret (or key) is missing: the user has to create it
      return err(name, missingUpstreamError('ContainerConfigError', msg));
    case 'CreateContainerError':
    case 'RunContainerError':
      return err(name, invalidSpecError(w.reason, msg));
    case 'CrashLoopBackOff':
      return failure(pod, name, logs, 'CrashLoopBackOff');
    default:
      return undefined;
  }
}

/** one pod's health */
export function inspectPod(pod: Pod, diag: PodDiagnostics = {}): PodFinding {
  const name = pod.metadata.name ?? '';
  const logs = diag.logs?.[name];
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return { pod: name, state: 'Ready', reason: 'PodSucceeded', message: '' };
  if (phase === 'Failed') {
    const reason = pod.status?.reason;
    if (reason === 'Evicted')
      return {
        pod: name,
        error: infrastructureError('PodEvicted', `pod ${name} was evicted: ${pod.status?.message ?? ''}`.trim()),
        state: 'Degraded',
        reason: 'PodEvicted',
        message: `pod ${name} was evicted`,
      };
    if (reason === 'DeadlineExceeded')
      return err(name, invalidSpecError('PodDeadlineExceeded', `pod ${name} exceeded its active deadline`));
    return failure(pod, name, logs, 'PodFailed');
  }
  for (const c of allStatuses(pod)) {
    const f = waitingFinding(pod, name, c, logs);
    if (f) return f;
  }
  const events = diag.events ?? [];
  if (phase === 'Pending' || phase === undefined) {
    const ev = latestEvent(events, name, PENDING_EVENT_REASONS);
    if (ev)
      return { pod: name, state: 'Pending', reason: ev.reason!, message: `pod ${name}: ${ev.message ?? ev.reason}` };
    const scheduled = findCondition(pod.status?.conditions, 'PodScheduled');
    if (scheduled?.status === 'False')
      return {
        pod: name,
        state: 'Pending',
        reason: 'FailedScheduling',
        message: `pod ${name}: ${scheduled.message ?? 'unschedulable'}`,
      };
    if (latestEvent(events, name, PULLING))
      return { pod: name, state: 'Progressing', reason: 'Pulling', message: `pod ${name}: pulling image` };
    return { pod: name, state: 'Pending', reason: 'PodsPending', message: `pod ${name} is pending` };
  }
  if (findCondition(pod.status?.conditions, 'Ready')?.status === 'True')
    return { pod: name, state: 'Ready', reason: 'PodsReady', message: '' };
  // running again between two OOM kills: still the OOM until it becomes ready (else the state flaps between
  // Failed and Starting with every restart of the crash loop)
  const oom = oomKilled(pod);
  if (oom && (oom.restartCount ?? 0) > 0) return failure(pod, name, logs, 'CrashLoopBackOff');
  return { pod: name, state: 'Starting', reason: 'PodsStarting', message: `pod ${name} is starting` };
}

// when several pods have problems, the one a user must act on is reported first
const ERROR_RANK: Record<string, number> = {
  Auth: 0,
  MissingUpstreamDependency: 1,
  ResourceExhaustion: 2,
  InvalidSpec: 3,
  Infrastructure: 4,
};
const STATE_RANK: Partial<Record<ComponentState, number>> = { Degraded: 0, Pending: 1, Progressing: 2, Starting: 3 };

/** the health of a set of pods (a workload's or a job's): the most important problem, or Ready */
export function podsHealth(pods: readonly Pod[], diag: PodDiagnostics = {}): HealthReport {
  const live = pods.filter((p) => !p.metadata.deletionTimestamp);
  if (live.length === 0) return { state: 'Progressing', reason: 'NoPods', message: 'No pods found' };
  const findings = live.map((p) => inspectPod(p, diag));
  const withError = findings
    .filter((f) => f.error)
    .sort((a, b) => ERROR_RANK[a.error!.category]! - ERROR_RANK[b.error!.category]!);
  if (withError.length > 0) return { errors: [withError[0]!.error!] };
  const notReady = findings
    .filter((f) => f.state !== 'Ready')
    .sort((a, b) => (STATE_RANK[a.state] ?? 9) - (STATE_RANK[b.state] ?? 9));
  if (notReady.length === 0)
    return { state: 'Ready', reason: 'PodsReady', message: `${live.length}/${live.length} pods ready` };
  const first = notReady[0]!;
  return {
    state: first.state,
    reason: first.reason,
    message: `${live.length - notReady.length}/${live.length} pods ready; ${first.message}`,
  };
}
