// The pod status the kubelet reports for a run: phase by kubelet's getPhase rules, the five pod conditions
// in the order kubelet writes them, container statuses, IPs, start time and QoS class.

import type { Container, Pod, PodCondition, PodStatus } from './kinds.ts';
import { type ContainerRun, containerStatus, type PodRun } from './pod-run-state.ts';
import { keepTimes, kubeTime } from './util.ts';

/** kubelet's getPhase: pending until every app container has run at least once */
export function podPhase(run: PodRun, restartPolicy: string): NonNullable<PodStatus['phase']> {
  const init = run.containers.filter((c) => c.init);
  const app = run.containers.filter((c) => !c.init);
  if (init.some((c) => c.step !== 'done' || (c.state.terminated?.exitCode ?? 0) !== 0)) {
    // an init container that failed for good fails the pod
    const failed = init.some((c) => c.step === 'done' && (c.state.terminated?.exitCode ?? 0) !== 0);
    return failed && restartPolicy === 'Never' ? 'Failed' : 'Pending';
  }
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of app) {
    if (c.state.running) running++;
    else if (c.state.terminated) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState.terminated) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  return restartPolicy === 'OnFailure' ? 'Running' : 'Failed';
}

function names(cs: readonly ContainerRun[]): string {
  return `[${cs.map((c) => c.spec.name).join(' ')}]`;
}

function qosClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const all: Container[] = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])];
  const cm = ['cpu', 'memory'];
  const any = all.some((c) =>
    cm.some((r) => c.resources?.requests?.[r] !== undefined || c.resources?.limits?.[r] !== undefined),
  );
  if (!any) return 'BestEffort';
  const guaranteed = all.every((c) =>
    cm.every((r) => {
      const limit = c.resources?.limits?.[r];
      const request = c.resources?.requests?.[r] ?? limit;
      return limit !== undefined && request === limit;
    }),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function condition(type: string, ok: boolean, reason?: string, message?: string): PodCondition {
  return {
    type,
    status: ok ? 'True' : 'False',
    ...(ok || !reason ? {} : { reason }),
    ...(ok || !message ? {} : { message }),
  };
}

export function podStatus(pod: Pod, run: PodRun, now: number): PodStatus {
  const restartPolicy = pod.spec.restartPolicy ?? 'Always';
  const phase = podPhase(run, restartPolicy);
  const init = run.containers.filter((c) => c.init);
  const app = run.containers.filter((c) => !c.init);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const incompleteInit = init.filter((c) => c.step !== 'done' || (c.state.terminated?.exitCode ?? 0) !== 0);
  const unready = app.filter((c) => !c.ready);
  const live = pod.status?.conditions;
  const notReady: [string, string] = terminal
    ? [phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed', '']
    : ['ContainersNotReady', `containers with unready status: ${names(unready)}`];
  const conditions: PodCondition[] = [
    // the sandbox is torn down once the pod has finished
    condition('PodReadyToStartContainers', !terminal),
    condition(
      'Initialized',
      incompleteInit.length === 0,
      'ContainersNotInitialized',
      `containers with incomplete status: ${names(incompleteInit)}`,
    ),
    condition('Ready', !terminal && unready.length === 0, ...notReady),
    condition('ContainersReady', !terminal && unready.length === 0, ...notReady),
  ];
  const scheduled = live?.find((c) => c.type === 'PodScheduled');
  const out: PodStatus = {
    phase,
    conditions: [...conditions.map((c) => keepTimes(c, live, now)), ...(scheduled ? [scheduled] : [])],
    hostIP: run.hostIP,
    hostIPs: [{ ip: run.hostIP }],
    podIP: run.podIP,
    podIPs: [{ ip: run.podIP }],
    startTime: kubeTime(run.startTime),
    ...(init.length > 0 ? { initContainerStatuses: init.map(containerStatus) } : {}),
    containerStatuses: app.map(containerStatus),
    // the API server sets the QoS class at creation and it never changes; only fill it in when missing
    ...(pod.status?.qosClass ? {} : { qosClass: qosClass(pod) }),
  };
  return out;
}
