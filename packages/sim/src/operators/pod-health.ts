// Reads the health of a workload the way the real operators do: readiness from the Deployment's status,
// and the reason it is not ready from its Pods (container waiting/terminated states, scheduling
// failures, failed pods), so an operator can surface "ImagePullBackOff: …" instead of "not ready".

import type { ContainerStatus, Deployment, Pod } from './kinds.ts';

export interface PodProblem {
  /** kubelet/scheduler vocabulary: ImagePullBackOff, CrashLoopBackOff, OOMKilled, Unschedulable, … */
  reason: string;
  message: string;
  /** a failure that will not heal by waiting (as opposed to pending scheduling or image pulling) */
  fatal: boolean;
  pod: string;
  container?: string;
  exitCode?: number;
}

export interface WorkloadHealth {
  desired: number;
  ready: number;
  available: number;
  updated: number;
  /** the controller has seen the latest spec and every desired replica is ready */
  allReady: boolean;
  /** the first problem found, fatal ones first */
  problem?: PodProblem;
}

const FATAL_WAITING = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);

function containerProblem(pod: string, cs: ContainerStatus): PodProblem | undefined {
  const waiting = cs.state?.waiting;
  if (waiting?.reason && FATAL_WAITING.has(waiting.reason)) {
    const last = cs.lastState?.terminated;
    const base = waiting.message ?? '';
    if (waiting.reason === 'CrashLoopBackOff' && last) {
      const exit = last.exitCode !== undefined ? ` (exit code ${last.exitCode})` : '';
      const detail = `container ${cs.name} last terminated with ${last.reason ?? 'Error'}${exit}${last.message ? `: ${last.message.trim()}` : ''}`;
      return {
        reason: waiting.reason,
        message: base ? `${base}; ${detail}` : detail,
        fatal: true,
        pod,
        container: cs.name,
        ...(last.exitCode !== undefined ? { exitCode: last.exitCode } : {}),
      };
    }
    return {
      reason: waiting.reason,
      message: base || `container ${cs.name} is waiting: ${waiting.reason}`,
      fatal: true,
      pod,
      container: cs.name,
    };
  }
  const term = cs.state?.terminated;
  if (term && (term.exitCode ?? 0) !== 0) {
    const reason = term.reason ?? 'Error';
    const message = `container ${cs.name} terminated with ${reason} (exit code ${term.exitCode})${term.message ? `: ${term.message.trim()}` : ''}`;
    return {
      reason,
      message,
      fatal: true,
      pod,
      container: cs.name,
      ...(term.exitCode !== undefined ? { exitCode: term.exitCode } : {}),
    };
  }
  return undefined;
}

/** the most telling problem of one pod, if it has one */
export function podProblem(pod: Pod): PodProblem | undefined {
  const name = pod.metadata.name ?? '';
  const st = pod.status ?? {};
  if (st.phase === 'Failed') {
    return { reason: st.reason ?? 'PodFailed', message: st.message ?? `pod ${name} failed`, fatal: true, pod: name };
  }
  for (const cs of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]) {
    const p = containerProblem(name, cs);
    if (p) return p;
  }
  const scheduled = st.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return {
      reason: scheduled.reason ?? 'Unschedulable',
      message: scheduled.message ?? `pod ${name} cannot be scheduled`,
      fatal: false,
      pod: name,
    };
  }
  return undefined;
}

/** the first problem among `pods` (in name order), fatal problems before pending ones */
export function firstProblem(pods: Pod[]): PodProblem | undefined {
  const live = pods
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  let pending: PodProblem | undefined;
  for (const pod of live) {
    const p = podProblem(pod);
    if (p?.fatal) return p;
    pending ??= p;
  }
  return pending;
}

/** health of a Deployment and the pods it selects (`deployment` undefined: not created yet) */
export function deploymentHealth(
  deployment: Deployment | undefined,
  pods: Pod[],
  desiredReplicas?: number,
): WorkloadHealth {
  const desired = desiredReplicas ?? deployment?.spec?.replicas ?? 1;
  const st = deployment?.status ?? {};
  const ready = st.readyReplicas ?? 0;
  const available = st.availableReplicas ?? 0;
  const updated = st.updatedReplicas ?? 0;
  const observed = deployment !== undefined && (st.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 0);
  const allReady = observed && ready >= desired && available >= desired && updated >= desired;
  let problem = allReady ? undefined : firstProblem(pods);
  const progressing = st.conditions?.find((c) => c.type === 'Progressing');
  if (
    !allReady &&
    !problem?.fatal &&
    progressing?.status === 'False' &&
    progressing.reason === 'ProgressDeadlineExceeded'
  ) {
    problem = {
      reason: 'ProgressDeadlineExceeded',
      message: progressing.message ?? 'the Deployment exceeded its progress deadline',
      fatal: true,
      pod: '',
    };
  }
  return { desired, ready, available, updated, allReady, ...(problem ? { problem } : {}) };
}

/** "2/3 replicas ready" style progress text for status messages */
export function progressText(h: WorkloadHealth, what: string): string {
  return `${h.ready}/${h.desired} ${what} replicas ready`;
}

/** "reason: message" for a problem, as the operators put it in their status messages */
export function problemText(p: PodProblem): string {
  return p.message.startsWith(p.reason) ? p.message : `${p.reason}: ${p.message}`;
}
