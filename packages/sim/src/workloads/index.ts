// Simulators of Kubernetes' own workload machinery for `modelplane dev`: the Deployment, ReplicaSet, Job,
// endpoints and persistent-volume controllers, the scheduler and the kubelet. Each is an ordinary
// controller on packages/runtime/src/ that talks to the API server only through the client, so a real
// kube-controller-manager, kube-scheduler and kubelets could take their place.
//
//   const logs = new PodLogStore();
//   const server = await startApiServer({ podLogs: (ns, pod, container, o) => logs.get(ns, pod, container, o) });
//   const sims = registerWorkloadSimulators(mgr, { logs, delays: { pull: 300 } });
//   await mgr.start();
//   …
//   await sims.drain(); await mgr.stop();

import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import type { SimContext } from './context.ts';
import { resolveDelays, type SimDelays } from './delays.ts';
import { registerDeployments } from './deployments.ts';
import { registerEndpoints } from './endpoints.ts';
import { registerJobs } from './jobs.ts';
import { registerKubelet } from './kubelet.ts';
import type { PodLogStore } from './pod-logs.ts';
import { registerClaimBinder } from './pvcs.ts';
import { ComponentRecorders } from './recorders.ts';
import { registerReplicaSets } from './replicasets.ts';
import { registerScheduler } from './scheduler.ts';
import { registerVolumeReclaimer } from './volumes.ts';

export { DEFAULT_SIM_DELAYS, resolveDelays, type SimDelays } from './delays.ts';
export { FAILURE_MODES, type FailureMode } from './failures.ts';
export { FAIL_ANNOTATION, FAIL_CONTAINER_ANNOTATION, LOGS_ANNOTATION } from './kinds.ts';
export {
  type KubeletEndpoints,
  type KubeletTlsMaterial,
  serveContainerLogs,
  startKubeletEndpoints,
} from './kubelet-endpoint.ts';
export { type LogReadOptions, PodLogStore } from './pod-logs.ts';

export type WorkloadSimulator =
  | 'deployments'
  | 'replicasets'
  | 'scheduler'
  | 'kubelet'
  | 'jobs'
  | 'volumes'
  | 'endpoints';

export const WORKLOAD_SIMULATORS: readonly WorkloadSimulator[] = [
  'deployments',
  'replicasets',
  'scheduler',
  'kubelet',
  'jobs',
  'volumes',
  'endpoints',
];

export interface WorkloadSimulatorOptions {
  /** where the kubelet writes container output (wire `get` as the API server's log provider) */
  logs: PodLogStore;
  delays?: Partial<SimDelays>;
  /** a subset to run (default: all) */
  only?: readonly WorkloadSimulator[];
  logger?: Logger;
  /** record the Kubernetes events the real components would (default true) */
  events?: boolean;
  /** the clock (tests) */
  now?: () => number;
}

export interface WorkloadSimulators {
  readonly delays: SimDelays;
  /** waits for the simulators' event writes in flight (call before stopping the manager) */
  drain(): Promise<void>;
}

/** registers the workload simulators as controllers of `mgr`; call before `mgr.start()` */
export function registerWorkloadSimulators(mgr: Manager, opts: WorkloadSimulatorOptions): WorkloadSimulators {
  const log = (opts.logger ?? mgr.log).child({ component: 'sim-workloads' });
  const recorders = new ComponentRecorders(mgr.client, log, opts.events ?? true);
  const sim: SimContext = {
    mgr,
    delays: resolveDelays(opts.delays),
    logs: opts.logs,
    recorders,
    log,
    now: opts.now ?? Date.now,
  };
  const only = new Set(opts.only ?? WORKLOAD_SIMULATORS);
  for (const name of only)
    if (!WORKLOAD_SIMULATORS.includes(name))
      throw new Error(
        `registerWorkloadSimulators: unknown simulator "${name}" (known: ${WORKLOAD_SIMULATORS.join(', ')})`,
      );
  if (only.has('deployments')) registerDeployments(sim);
  if (only.has('replicasets')) registerReplicaSets(sim);
  if (only.has('scheduler')) registerScheduler(sim);
  if (only.has('kubelet')) registerKubelet(sim);
  if (only.has('jobs')) registerJobs(sim);
  if (only.has('volumes')) {
    registerClaimBinder(sim);
    registerVolumeReclaimer(sim);
  }
  if (only.has('endpoints')) registerEndpoints(sim);
  return { delays: sim.delays, drain: () => recorders.drain() };
}
