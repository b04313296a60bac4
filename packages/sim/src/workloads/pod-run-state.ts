// The state of one pod's containers on the simulated kubelet (pod-run.ts drives it): what each container
// is doing and when its next transition is due, how a run starts for a new pod or is adopted after the
// simulator restarts, and the container status the kubelet reports for it. Nothing here talks to the API
// server.

import { AIM_PROGRAM_RUN_MS, aimDebugRunMs, aimProgram, aimProgramFails } from './aim-programs.ts';
import { type LogContext, readyLines, startLines } from './container-logs.ts';
import type { SimDelays } from './delays.ts';
import {
  containerFailure,
  customLogLines,
  type FailureMode,
  isRunFailure,
  normalizeImage,
  podFailure,
} from './failures.ts';
import type { Container, ContainerState, ContainerStatus, Pod } from './kinds.ts';

export type Step =
  | 'waiting-turn'
  | 'pulling'
  | 'pull-failed'
  | 'pull-backoff'
  | 'running'
  | 'exited'
  | 'crash-backoff'
  | 'done';
export type Next = 'ready' | 'complete' | 'crash' | 'progress' | undefined;

export interface ContainerRun {
  spec: Container;
  init: boolean;
  mode: FailureMode | undefined;
  step: Step;
  next: Next;
  /** when the next transition is due (ms since epoch); Infinity: nothing scheduled */
  due: number;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  started: boolean;
  restartCount: number;
  containerID: string | undefined;
  imageID: string | undefined;
  /** pulled at least once (the status then reports the resolved image) */
  pulled: boolean;
  runStartedAt: number;
  pullFailures: number;
  crashes: number;
}

export interface PodRun {
  uid: string;
  startTime: number;
  hostIP: string;
  podIP: string;
  containers: ContainerRun[];
}

export interface KubeletEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  note: string;
  /** the event is about the pod's node, not the pod */
  onNode?: boolean;
}

/** where container output goes (the PodLogStore, bound to one pod instance) */
export interface LogSink {
  append(container: string, lines: readonly string[]): void;
  restart(container: string): void;
}

export interface AdvanceContext {
  pod: Pod;
  now: number;
  delays: SimDelays;
  logs: LogSink;
}

export const NEVER = Number.POSITIVE_INFINITY;

/** the interval between a running download's progress lines */
export function progressTick(runMs: number): number {
  return Math.max(50, Math.floor(runMs / 10));
}

/** AIM's dry-run, check-size and (simulated) download programs finish in a moment, unless told to take longer */
export function runDelay(c: Container, delays: SimDelays): number {
  const debug = aimDebugRunMs(c);
  if (debug !== undefined) return debug;
  return aimProgram(c) ? Math.min(delays.run, AIM_PROGRAM_RUN_MS) : delays.run;
}

function containerRun(spec: Container, init: boolean, mode: FailureMode | undefined): ContainerRun {
  return {
    spec,
    init,
    mode,
    step: 'waiting-turn',
    next: undefined,
    due: NEVER,
    state: { waiting: { reason: init ? 'PodInitializing' : 'ContainerCreating' } },
    lastState: {},
    ready: false,
    started: false,
    restartCount: 0,
    containerID: undefined,
    imageID: undefined,
    pulled: false,
    runStartedAt: 0,
    pullFailures: 0,
    crashes: 0,
  };
}

export function newPodRun(pod: Pod, now: number, hostIP: string, podIP: string): PodRun {
  const failure = podFailure(pod);
  const init = (pod.spec.initContainers ?? []).map((c) =>
    containerRun(c, true, containerFailure(failure, c.name, true)),
  );
  // an AIM program that fails by itself (every download protocol failing, a gated source) exits 1
  const app = (pod.spec.containers ?? []).map((c) =>
    containerRun(
      c,
      false,
      containerFailure(failure, c.name, false) ?? (aimProgramFails(c) ? 'CrashLoopBackOff' : undefined),
    ),
  );
  // app containers wait for init containers with reason PodInitializing
  if (init.length > 0) for (const c of app) c.state = { waiting: { reason: 'PodInitializing' } };
  return { uid: pod.metadata.uid ?? '', startTime: now, hostIP, podIP, containers: [...init, ...app] };
}

/**
 * A run for a pod that already has a status (the simulator restarted): started containers keep their
 * state, terminated ones stay terminated, the rest start over. Running containers print their startup
 * output again, since container logs lived in the previous process.
 */
export function adoptPodRun(
  pod: Pod,
  now: number,
  hostIP: string,
  podIP: string,
  delays: SimDelays,
  logs?: LogSink,
): PodRun {
  const run = newPodRun(pod, now, hostIP, podIP);
  const parsed = Date.parse(pod.status?.startTime ?? '');
  if (Number.isFinite(parsed)) run.startTime = parsed;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const restartPolicy = pod.spec.restartPolicy ?? 'Always';
  for (const c of run.containers) {
    const s = statuses.find((x) => x.name === c.spec.name);
    if (!s || !(s.state?.running || s.state?.terminated)) continue;
    const startedAt = Date.parse(s.state.running?.startedAt ?? s.state.terminated?.startedAt ?? '');
    Object.assign(c, {
      state: s.state,
      lastState: s.lastState ?? {},
      ready: s.ready,
      started: s.started ?? false,
      restartCount: s.restartCount,
    });
    Object.assign(c, {
      containerID: s.containerID,
      imageID: s.imageID || undefined,
      pulled: true,
      runStartedAt: Number.isFinite(startedAt) ? startedAt : now,
    });
    if (s.state.terminated) {
      c.step = 'done';
      continue;
    }
    c.step = 'running';
    c.next = isRunFailure(c.mode)
      ? 'crash'
      : c.init || restartPolicy !== 'Always'
        ? 'complete'
        : s.ready
          ? undefined
          : 'ready';
    c.due =
      c.next === undefined
        ? NEVER
        : now + (c.next === 'crash' ? delays.crash : c.next === 'ready' ? delays.ready : runDelay(c.spec, delays));
    if (logs) {
      const ctx: LogContext = { pod, container: c.spec, init: c.init, now };
      logs.append(c.spec.name, [...startLines(ctx), ...(s.ready ? [...readyLines(ctx), ...customLogLines(pod)] : [])]);
    }
  }
  return run;
}

/** the next time anything in the run is due (Infinity: the pod is settled) */
export function nextDue(run: PodRun): number {
  return Math.min(...run.containers.map((c) => c.due));
}

export function imageRef(c: ContainerRun): string {
  return c.spec.image ?? '';
}

export function hasProbe(c: Container): boolean {
  return c.readinessProbe !== undefined || c.startupProbe !== undefined;
}

export function containerStatus(c: ContainerRun): ContainerStatus {
  const image = c.pulled ? normalizeImage(imageRef(c)) : imageRef(c);
  return {
    ...(c.containerID ? { containerID: c.containerID } : {}),
    image,
    imageID: c.imageID ?? '',
    lastState: c.lastState,
    name: c.spec.name,
    ready: c.ready,
    restartCount: c.restartCount,
    started: c.started,
    state: c.state,
  };
}
