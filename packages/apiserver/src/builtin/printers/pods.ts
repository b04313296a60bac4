// The Pod printer: kube's READY / STATUS / RESTARTS derivation over init containers, sidecars and containers.

import { humanDuration } from '@modelplane/apimachinery';
import { AGE, col, NAME, type Printer } from './columns.ts';
import { arr, conditionStatus, int, isSet, type Obj, path, present, rec, since, str } from './format.ts';

const isRestartableInit = (c: Obj | undefined) => c?.restartPolicy === 'Always';

/** what the printer counts while it walks the container statuses */
interface PodTally {
  reason: string;
  ready: number;
  total: number;
  restarts: number;
  lastRestart: number;
  restartableInitRestarts: number;
  lastRestartableInitRestart: number;
}

const finishedAt = (cs: Obj) => {
  const t = path(cs, 'lastTerminationState', 'terminated', 'finishedAt');
  return isSet(t) ? Date.parse(t as string) : 0;
};

/** The STATUS column: kube's reason logic over phase, init containers, containers and deletion. */
function podStatus(pod: Obj, now: number): { ready: number; total: number; reason: string; restarts: string } {
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const phase = str(status.phase);
  const tally: PodTally = {
    reason: str(status.reason) || phase,
    ready: 0,
    total: arr(spec.containers).length,
    restarts: 0,
    lastRestart: 0,
    restartableInitRestarts: 0,
    lastRestartableInitRestart: 0,
  };
  for (const c of arr(status.conditions).map(rec)) {
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') tally.reason = 'SchedulingGated';
  }
  const initializing = tallyInitContainers(spec, status, tally);
  if (!initializing || conditionStatus(status.conditions, 'Initialized') === 'True') tallyContainers(status, tally);
  const deleting = isSet(rec(pod.metadata).deletionTimestamp);
  if (deleting && str(status.reason) === 'NodeLost') tally.reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') tally.reason = 'Terminating';
  const { restarts, lastRestart } = tally;
  const restartsStr =
    restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  return { ready: tally.ready, total: tally.total, reason: tally.reason, restarts: restartsStr };
}

/** init containers in order: sidecars count as containers; the first unfinished one names the reason */
function tallyInitContainers(spec: Obj, status: Obj, tally: PodTally): boolean {
  const initSpecs = new Map<string, Obj>();
  const initContainers = arr(spec.initContainers).map(rec);
  for (const c of initContainers) {
    initSpecs.set(str(c.name), c);
    if (isRestartableInit(c)) tally.total++;
  }
  const initStatuses = arr(status.initContainerStatuses).map(rec);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const restartable = isRestartableInit(initSpecs.get(str(cs.name)));
    tally.restarts += int(cs.restartCount);
    tally.lastRestart = Math.max(tally.lastRestart, finishedAt(cs));
    if (restartable) {
      tally.restartableInitRestarts += int(cs.restartCount);
      tally.lastRestartableInitRestart = Math.max(tally.lastRestartableInitRestart, finishedAt(cs));
    }
    const terminated = rec(path(cs, 'state', 'terminated'));
    const hasTerminated = present(path(cs, 'state', 'terminated'));
    const waitingReason = str(path(cs, 'state', 'waiting', 'reason'));
    if (hasTerminated && int(terminated.exitCode) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready === true) tally.ready++;
      continue;
    }
    if (hasTerminated) {
      if (!str(terminated.reason))
        tally.reason =
          int(terminated.signal) !== 0
            ? `Init:Signal:${int(terminated.signal)}`
            : `Init:ExitCode:${int(terminated.exitCode)}`;
      else tally.reason = `Init:${str(terminated.reason)}`;
    } else if (waitingReason && waitingReason !== 'PodInitializing') {
      tally.reason = `Init:${waitingReason}`;
    } else {
      tally.reason = `Init:${i}/${initContainers.length}`;
    }
    return true;
  }
  return false;
}

/** the containers, last to first (the first container's reason wins); only sidecar restarts carry over */
function tallyContainers(status: Obj, tally: PodTally): void {
  tally.restarts = tally.restartableInitRestarts;
  tally.lastRestart = tally.lastRestartableInitRestart;
  let hasRunning = false;
  const statuses = arr(status.containerStatuses).map(rec);
  for (let i = statuses.length - 1; i >= 0; i--) {
    const cs = statuses[i]!;
    tally.restarts += int(cs.restartCount);
    tally.lastRestart = Math.max(tally.lastRestart, finishedAt(cs));
    const state = rec(cs.state);
    const waitingReason = str(path(state, 'waiting', 'reason'));
    const terminated = present(state.terminated) ? rec(state.terminated) : undefined;
    if (waitingReason) tally.reason = waitingReason;
    else if (terminated && str(terminated.reason)) tally.reason = str(terminated.reason);
    else if (terminated)
      tally.reason =
        int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
    else if (cs.ready === true && present(state.running)) {
      hasRunning = true;
      tally.ready++;
    }
  }
  // a pod whose last container completed but another still runs is Running (or NotReady)
  if (tally.reason === 'Completed' && hasRunning)
    tally.reason = conditionStatus(status.conditions, 'Ready') === 'True' ? 'Running' : 'NotReady';
}

export const podPrinter: Printer = {
  columns: () => [
    NAME(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE(),
    col(
      'IP',
      'string',
      'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      1,
    ),
    col('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', 1),
    col('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.', 1),
    col('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  row: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const s = podStatus(o, now);
    const ips = arr(status.podIPs);
    const podIP = (ips.length > 0 ? str(rec(ips[0]).ip) : str(status.podIP)) || '<none>';
    const gates = arr(spec.readinessGates).map(rec);
    let readinessGates = '<none>';
    if (gates.length > 0) {
      const trueCount = gates.filter((g) => conditionStatus(status.conditions, str(g.conditionType)) === 'True').length;
      readinessGates = `${trueCount}/${gates.length}`;
    }
    return [
      o.metadata.name ?? '',
      `${s.ready}/${s.total}`,
      s.reason,
      s.restarts,
      since(o.metadata.creationTimestamp, now),
      podIP,
      str(spec.nodeName) || '<none>',
      str(status.nominatedNodeName) || '<none>',
      readinessGates,
    ];
  },
};
