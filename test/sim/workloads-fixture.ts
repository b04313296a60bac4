// Test fixture for the workload simulators: an embedded API server whose pods/log is served from a
// PodLogStore, a manager running the simulators with near-zero delays, and helpers to create Nodes,
// wait for conditions and read events and logs the way kubectl does.

import { type ApiServer, startApiServer } from '@modelplane/apiserver';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import {
  PodLogStore,
  registerWorkloadSimulators,
  type SimDelays,
  type WorkloadSimulators,
} from '@modelplane/sim/workloads';
import type { Node, Pod, Taint } from '@modelplane/sim/workloads/kinds';

export const FAST: Partial<SimDelays> = {
  schedule: 5,
  pull: 10,
  ready: 10,
  run: 10,
  crash: 10,
  backoff: 20,
  backoffMax: 100,
  provision: 10,
};

export interface CoreEvent extends KubeObject {
  involvedObject: { kind: string; name: string; namespace?: string };
  reason: string;
  message: string;
  type: string;
  reportingComponent?: string;
}

export const CoreEvents = kindRef<CoreEvent>('v1', 'Event');

export interface SimCluster {
  server: ApiServer;
  admin: KubeClient;
  logs: PodLogStore;
  /** serve pods/log from another store from now on (simulators restarted mid-test bring their own) */
  useLogs(store: PodLogStore): void;
  mgr: Manager;
  sims: WorkloadSimulators;
  namespace(name: string): Promise<string>;
  node(
    name: string,
    allocatable: Record<string, string>,
    opts?: { labels?: Record<string, string>; taints?: Taint[] },
  ): Promise<Node>;
  events(namespace: string, kind: string, name: string): Promise<CoreEvent[]>;
  /** GET pods/{name}/log, as kubectl logs does */
  podLog(namespace: string, pod: string, container?: string): Promise<string>;
  close(): Promise<void>;
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startSimCluster(opts: { delays?: Partial<SimDelays> } = {}): Promise<SimCluster> {
  const logs = new PodLogStore();
  let served = logs;
  const server = await startApiServer({
    port: 0,
    podLogs: (ns, pod, container, o) => served.get(ns, pod, container, o),
  });
  const admin = await KubeClient.create(server.kubeconfigYaml(), { fieldManager: 'test-admin' });
  const mgr = await Manager.create({
    kubeconfig: server.kubeconfigYaml(),
    logger: new Logger({}, parseLogLevel(process.env.MODELPLANE_LOG_LEVEL, 'silent')),
    gracefulShutdownMs: 2_000,
  });
  const sims = registerWorkloadSimulators(mgr, { logs, delays: { ...FAST, ...(opts.delays ?? {}) } });
  await mgr.start();
  return {
    server,
    admin,
    logs,
    useLogs(store) {
      served = store;
    },
    mgr,
    sims,
    async namespace(name) {
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      return name;
    },
    async node(name, allocatable, o = {}) {
      const node = await admin.create<Node>({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name,
          labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...(o.labels ?? {}) },
        },
        spec: { ...(o.taints ? { taints: o.taints } : {}) },
      });
      return admin.updateStatus<Node>({
        ...node,
        status: {
          capacity: allocatable,
          allocatable,
          addresses: [{ type: 'InternalIP', address: `192.168.0.${10 + (name.length % 200)}` }],
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      });
    },
    async events(namespace, kind, name) {
      await sims.drain();
      const list = await admin.list(CoreEvents, {
        namespace,
        fieldSelector: `involvedObject.kind=${kind},involvedObject.name=${name}`,
      });
      return list.items;
    },
    async podLog(namespace, pod, container) {
      return admin.podLog(namespace, pod, container === undefined ? {} : { container });
    },
    async close() {
      await sims.drain();
      await mgr.stop();
      admin.close();
      await server.close();
    },
  };
}

export function pod(
  name: string,
  namespace: string,
  spec: Partial<Pod['spec']> = {},
  annotations?: Record<string, string>,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec },
  };
}
