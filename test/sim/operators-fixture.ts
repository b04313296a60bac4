// Shared set-up for the operator simulator tests: a test cluster (embedded or real API server, see
// `testBackend()` of @modelplane/apiserver/testing) with the external CRDs and the simulated nodes, and a Manager running the
// operator simulators (zero delays) on top of the workload simulators (near-zero delays), so the failure
// annotations act out exactly as they do in `modelplane dev`: on the embedded server every workload
// simulator runs, on the real control plane only the node-side ones (scheduler, kubelet with its log
// endpoints, volumes) beside kube-controller-manager, as `modelplane dev --cluster real` runs them.

import { startTestCluster, type TestCluster } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { ensureCrd } from '@modelplane/runtime/crd';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import type { KindRef, KubeObject } from '@modelplane/runtime/meta';
import type { PrometheusClientOptions } from '@modelplane/runtime/prometheus';
import { installSimulatedInfrastructure, startSimulatedKubelets } from '@modelplane/sim/cluster';
import { externalCrds, type OperatorName, registerOperatorSimulators, ZERO_DELAYS } from '@modelplane/sim/operators';
import type { OperatorDelays } from '@modelplane/sim/operators/delays';
import { PodLogStore, registerWorkloadSimulators, type SimDelays } from '@modelplane/sim/workloads';
import { REAL_CLUSTER_WORKLOAD_SIMULATORS } from '../../src/cli/dev/real-cluster.ts';

/** fast enough for tests, slow enough that back-offs do not spin */
const WORKLOAD_DELAYS: SimDelays = {
  schedule: 0,
  pull: 0,
  ready: 0,
  run: 0,
  crash: 0,
  backoff: 50,
  backoffMax: 200,
  provision: 0,
};

export interface OperatorsCluster {
  cluster: TestCluster;
  client: KubeClient;
  mgr: Manager;
  kubeconfig: string;
  close(): Promise<void>;
}

// SIM_TEST_LOG=warn shows the controllers' reconcile errors while debugging a test
const quiet = new Logger({}, parseLogLevel(process.env.SIM_TEST_LOG, 'silent'));

export async function startOperatorsCluster(
  opts: { only?: OperatorName[]; delays?: Partial<OperatorDelays>; kedaPrometheus?: PrometheusClientOptions } = {},
): Promise<OperatorsCluster> {
  const logs = new PodLogStore();
  const cluster = await startTestCluster({ podLogs: (ns, pod, container, o) => logs.get(ns, pod, container, o) });
  const real = cluster.real;
  const kubelets = real ? await startSimulatedKubelets(logs, (ips) => real.kubeletTls(ips)) : undefined;
  const kubeconfig = cluster.kubeconfig;
  const client = await KubeClient.create(kubeconfig, { fieldManager: 'test' });
  for (const crd of externalCrds()) await ensureCrd(client, crd);
  await installSimulatedInfrastructure(client, undefined, undefined, kubelets && ((node) => kubelets.port(node)));
  const mgr = await Manager.create({ kubeconfig, logger: quiet, name: 'sim-test' });
  registerOperatorSimulators(mgr, {
    delays: { ...ZERO_DELAYS, ...(opts.delays ?? {}) },
    ...(opts.only ? { only: opts.only } : {}),
    ...(opts.kedaPrometheus ? { kedaPrometheus: opts.kedaPrometheus } : {}),
  });
  const workloads = registerWorkloadSimulators(mgr, {
    logs,
    delays: WORKLOAD_DELAYS,
    logger: quiet,
    ...(real ? { only: REAL_CLUSTER_WORKLOAD_SIMULATORS } : {}),
  });
  await mgr.start();
  return {
    cluster,
    client,
    mgr,
    kubeconfig,
    async close() {
      await workloads.drain();
      await mgr.stop();
      client.close();
      await kubelets?.stop();
      await cluster.stop();
    },
  };
}

export async function ensureNamespace(client: KubeClient, name: string): Promise<void> {
  await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/**
 * polls `probe` (which reads through the client) until it returns a value, or fails naming `what`. The default
 * wait is long because a chain of simulated controllers on a loaded machine (several suites on 2 cores) can take
 * tens of seconds; a passing test never waits for it.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function condition(
  obj: KubeObject | undefined,
  type: string,
): { status?: string; reason?: string; message?: string } | undefined {
  const conds = ((obj?.status as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? []) as Array<{
    type: string;
    status?: string;
    reason?: string;
    message?: string;
  }>;
  return conds.find((c) => c.type === type);
}

export async function getObj<T extends KubeObject>(
  client: KubeClient,
  kind: KindRef<T>,
  name: string,
  namespace?: string,
): Promise<T | undefined> {
  return client.getOrUndefined(kind, name, namespace);
}
