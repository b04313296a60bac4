// One pod's containers on the simulated kubelet, as a state machine driven by time: init containers run
// one after another, then the app containers together; each is pulled, created, started, becomes ready,
// exits, or fails as its failure mode says, with the kubelet's events and back-offs. `advance` performs
// every transition that is due and says when the next one is; the kubelet turns the result into a pod
// status (pod-status.ts); the run's state and how it starts are in pod-run-state.ts. Nothing here talks to
// the API server.

import { formatGoDuration } from '@modelplane/apimachinery';
import { aimDebugRunMs, aimProgressLine } from './aim-programs.ts';
import { completeLines, crashLines, type LogContext, readyLines, startLines } from './container-logs.ts';
import { backoffDelay } from './delays.ts';
import {
  customLogLines,
  isPullFailure,
  isRunFailure,
  normalizeImage,
  pullErrorMessage,
  termination,
} from './failures.ts';
import {
  type AdvanceContext,
  type ContainerRun,
  hasProbe,
  imageRef,
  type KubeletEvent,
  NEVER,
  type PodRun,
  progressTick,
  runDelay,
} from './pod-run-state.ts';
import { hexDigest, kubeTime } from './util.ts';

class Runner {
  readonly events: KubeletEvent[] = [];
  private readonly podName: string;
  private readonly restartPolicy: string;

  constructor(
    private readonly run: PodRun,
    private readonly ctx: AdvanceContext,
  ) {
    this.podName = `${ctx.pod.metadata.name}_${ctx.pod.metadata.namespace}(${ctx.pod.metadata.uid})`;
    this.restartPolicy = ctx.pod.spec.restartPolicy ?? 'Always';
  }

  private event(type: KubeletEvent['type'], reason: string, note: string, onNode = false): void {
    this.events.push({ type, reason, note, ...(onNode ? { onNode } : {}) });
  }

  private logCtx(c: ContainerRun): LogContext {
    return { pod: this.ctx.pod, container: c.spec, init: c.init, now: this.ctx.now };
  }

  /** starts the containers whose turn it is: the first unfinished init container, else every app container */
  activate(): boolean {
    const pendingInit = this.run.containers.find((c) => c.init && c.step !== 'done');
    const turn = pendingInit ? [pendingInit] : this.run.containers.filter((c) => !c.init);
    let changed = false;
    for (const c of turn) {
      if (c.step !== 'waiting-turn') continue;
      c.state = { waiting: { reason: pendingInit ? 'PodInitializing' : 'ContainerCreating' } };
      this.pull(c);
      changed = true;
    }
    return changed;
  }

  private pull(c: ContainerRun): void {
    this.event('Normal', 'Pulling', `Pulling image "${imageRef(c)}"`);
    c.step = 'pulling';
    c.due = this.ctx.now + this.ctx.delays.pull;
  }

  transition(c: ContainerRun): void {
    switch (c.step) {
      case 'pulling':
        if (isPullFailure(c.mode)) this.pullFailed(c);
        else this.start(c, true);
        break;
      case 'pull-failed':
        this.pullBackOff(c);
        break;
      case 'pull-backoff':
        this.pull(c);
        break;
      case 'running':
        if (c.next === 'ready') this.becomeReady(c);
        else if (c.next === 'complete') this.exit(c, { reason: 'Completed', exitCode: 0 });
        else if (c.next === 'progress') this.progress(c);
        else if (c.next === 'crash' && isRunFailure(c.mode))
          this.crash(c, c.mode as 'OOMKilled' | 'CrashLoopBackOff' | 'DiskFull');
        else c.due = NEVER;
        break;
      case 'exited':
        // the first failure restarts at once; later ones wait in CrashLoopBackOff
        if (c.crashes <= 1) this.restart(c);
        else this.backOff(c);
        break;
      case 'crash-backoff':
        this.restart(c);
        break;
      default:
        c.due = NEVER;
    }
  }

  private pullBackOff(c: ContainerRun): void {
    const msg = c.state.waiting?.message ?? '';
    c.state = {
      waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${imageRef(c)}": ErrImagePull: ${msg}` },
    };
    this.event('Normal', 'BackOff', `Back-off pulling image "${imageRef(c)}"`);
    this.event('Warning', 'Failed', 'Error: ImagePullBackOff');
    c.step = 'pull-backoff';
    c.due = this.ctx.now + Math.max(1, backoffDelay(this.ctx.delays, c.pullFailures - 1));
  }

  private pullFailed(c: ContainerRun): void {
    const msg = pullErrorMessage(c.mode as 'ImagePullBackOff' | 'ErrImagePull-auth', imageRef(c));
    c.pullFailures++;
    c.state = { waiting: { reason: 'ErrImagePull', message: msg } };
    this.event('Warning', 'Failed', `Failed to pull image "${imageRef(c)}": ${msg}`);
    this.event('Warning', 'Failed', 'Error: ErrImagePull');
    c.step = 'pull-failed';
    c.due = this.ctx.now + Math.max(1, this.ctx.delays.pull);
  }

  /** the container process starts (first run: after the pull; restarts: after the back-off) */
  private start(c: ContainerRun, freshPull: boolean): void {
    const { now, delays } = this.ctx;
    const image = imageRef(c);
    if (freshPull || !c.pulled) {
      const ms = Math.max(1, Math.round(delays.pull));
      const size = 1_000_000 + (Number.parseInt(hexDigest(image, 6), 16) % 4_000_000_000);
      this.event(
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in ${ms}ms (${ms}ms including waiting). Image size: ${size} bytes.`,
      );
    } else {
      this.event('Normal', 'Pulled', `Container image "${image}" already present on machine`);
    }
    c.pulled = true;
    c.imageID = `${normalizeImage(image).replace(/:[^:/@]+$/, '')}@sha256:${hexDigest(normalizeImage(image))}`;
    c.containerID = `containerd://${hexDigest(`${this.run.uid}/${c.spec.name}/${c.restartCount}`)}`;
    this.event('Normal', 'Created', `Created container: ${c.spec.name}`);
    this.event('Normal', 'Started', `Started container ${c.spec.name}`);
    c.state = { running: { startedAt: kubeTime(now) } };
    c.started = true;
    c.ready = false;
    c.runStartedAt = now;
    c.step = 'running';
    this.ctx.logs.append(c.spec.name, startLines(this.logCtx(c)));
    if (isRunFailure(c.mode)) {
      // failure cycles never complete within one advance(), even with zero delays
      c.next = 'crash';
      c.due = now + Math.max(1, delays.crash);
    } else if (c.init || this.restartPolicy !== 'Always') {
      const run = runDelay(c.spec, delays);
      // a long download reports its progress while it runs (a tick every tenth of the run)
      c.next = aimDebugRunMs(c.spec) !== undefined && aimProgressLine(c.spec, now, 0) ? 'progress' : 'complete';
      c.due = now + (c.next === 'progress' ? progressTick(run) : run);
    } else if (hasProbe(c.spec)) {
      c.next = 'ready';
      c.due = now + delays.ready;
    } else {
      this.becomeReady(c);
    }
  }

  /** one progress line of a running download, then the next tick, or the end once its run is over */
  private progress(c: ContainerRun): void {
    const run = runDelay(c.spec, this.ctx.delays);
    const now = this.ctx.now;
    const elapsed = now - c.runStartedAt;
    if (elapsed >= run) {
      this.exit(c, { reason: 'Completed', exitCode: 0 });
      return;
    }
    const line = aimProgressLine(c.spec, now, elapsed / run);
    if (line) this.ctx.logs.append(c.spec.name, [line]);
    c.due = Math.min(c.runStartedAt + run, now + progressTick(run));
  }

  private becomeReady(c: ContainerRun): void {
    c.ready = true;
    c.next = undefined;
    c.due = NEVER;
    this.ctx.logs.append(c.spec.name, [...readyLines(this.logCtx(c)), ...customLogLines(this.ctx.pod)]);
  }

  private crash(c: ContainerRun, mode: 'OOMKilled' | 'CrashLoopBackOff' | 'DiskFull'): void {
    const custom = customLogLines(this.ctx.pod);
    const lines = [...crashLines(this.logCtx(c), mode, custom), ...custom];
    this.ctx.logs.append(c.spec.name, lines);
    if (mode === 'DiskFull')
      this.event('Warning', 'EvictionThresholdMet', 'Attempting to reclaim ephemeral-storage', true);
    const t = termination(mode);
    // FallbackToLogsOnError: the kubelet takes the termination message from the log tail
    const message =
      c.spec.terminationMessagePolicy === 'FallbackToLogsOnError' && lines.length > 0
        ? `${lines.slice(-80).join('\n')}\n`
        : undefined;
    c.crashes++;
    this.exit(c, { reason: t.reason, exitCode: t.exitCode, ...(message ? { message } : {}) });
  }

  private exit(c: ContainerRun, how: { reason: string; exitCode: number; message?: string }): void {
    const { now } = this.ctx;
    if (how.exitCode === 0)
      this.ctx.logs.append(c.spec.name, [...completeLines(this.logCtx(c)), ...customLogLines(this.ctx.pod)]);
    c.state = {
      terminated: {
        exitCode: how.exitCode,
        reason: how.reason,
        ...(how.message ? { message: how.message } : {}),
        startedAt: kubeTime(c.runStartedAt),
        finishedAt: kubeTime(now),
        ...(c.containerID ? { containerID: c.containerID } : {}),
      },
    };
    c.ready = false;
    c.started = false;
    c.next = undefined;
    // a failed container restarts in place unless restartPolicy is Never (init containers alike)
    if (how.exitCode !== 0 && this.restartPolicy !== 'Never') {
      c.step = 'exited';
      c.due = now + Math.max(1, Math.min(this.ctx.delays.pull, backoffDelay(this.ctx.delays, 0)));
    } else {
      c.step = 'done';
      c.due = NEVER;
    }
  }

  private backOff(c: ContainerRun): void {
    const nominal = Math.min(300, 10 * 2 ** Math.max(0, c.crashes - 2));
    c.lastState = c.state;
    c.state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${formatGoDuration(BigInt(nominal) * 1_000_000_000n)} restarting failed container=${c.spec.name} pod=${this.podName}`,
      },
    };
    this.event('Warning', 'BackOff', `Back-off restarting failed container ${c.spec.name} in pod ${this.podName}`);
    c.step = 'crash-backoff';
    c.due = this.ctx.now + Math.max(1, backoffDelay(this.ctx.delays, c.crashes - 2));
  }

  private restart(c: ContainerRun): void {
    if (c.state.terminated) c.lastState = c.state;
    c.restartCount++;
    this.ctx.logs.restart(c.spec.name);
    const pullAgain = c.spec.imagePullPolicy === 'Always';
    if (pullAgain) this.event('Normal', 'Pulling', `Pulling image "${imageRef(c)}"`);
    this.start(c, pullAgain);
  }
}

/** performs every transition due by `ctx.now`; returns the kubelet events they produce */
export function advance(run: PodRun, ctx: AdvanceContext): KubeletEvent[] {
  const runner = new Runner(run, ctx);
  // bounded: every pass either activates a container or moves one whose time has come
  for (let pass = 0; pass < 64; pass++) {
    let changed = runner.activate();
    for (const c of run.containers) {
      if (c.due <= ctx.now) {
        runner.transition(c);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return runner.events;
}
