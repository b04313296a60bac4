// The embedded `modelplane dev` cluster (API server, every CRD, the simulated external operators) for
// controller tests: the real kubectl pointed at it, an admin client, and optionally the controllers under
// test in their own Manager beside the simulators, as the operator runs next to them on a real cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { type KubeClient, Logger, Manager } from '../../src/kube/index.ts';
import { type KubectlResult, runKubectl } from '@modelplane/apiserver/testing';

export interface DevTestClusterOptions {
  /** the cluster's (and the operator's) logger; default silent */
  log?: Logger;
  /** namespaces created before the tests start */
  namespaces?: string[];
}

export interface DevTestCluster {
  dev: DevCluster;
  /** admin credentials, writing as field manager `test-user` */
  admin: KubeClient;
  /** a kubeconfig file for the cluster, for kubectl and processes */
  kubeconfig: string;
  /** the real kubectl against the cluster (own cache dir); any exit code */
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** kubectl that must succeed; returns its stdout */
  k(args: string[], input?: string): Promise<string>;
  stop(): Promise<void>;
}

/** the dev cluster with no modelplane controllers running: the test starts what it tests (e.g. as processes) */
export async function startDevTestCluster(opts: DevTestClusterOptions = {}): Promise<DevTestCluster> {
  const dev = await startDevCluster({ port: 0, log: opts.log ?? new Logger({}, 'silent'), controllers: false });
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-dev-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const stop = async () => {
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    dev.server.writeKubeconfig(kubeconfig);
    const admin = dev.manager.client.withFieldManager('test-user');
    for (const name of opts.namespaces ?? []) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const kubectl = (args: string[], input?: string) => runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], input);
    const k = async (args: string[], input?: string) => {
      const r = await kubectl(args, input);
      if (r.code === 0) return r.stdout;
      throw new Error(`kubectl ${args.join(' ')} failed (exit ${r.code}): ${r.stderr}${r.stdout}`);
    };
    return { dev, admin, kubeconfig, kubectl, k, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface OperatorTestClusterOptions<R> extends DevTestClusterOptions {
  /** the operator Manager's name: its lease and its events' reporting controller */
  name: string;
  /** registers the controllers under test on the operator's Manager before it starts */
  register(manager: Manager): Promise<R>;
}

export interface OperatorTestCluster<R> extends DevTestCluster {
  /** the operator's Manager, running what `register` added */
  manager: Manager;
  /** what `register` returned (e.g. the controllers, to count or inspect) */
  registered: R;
}

/** the dev cluster plus the controllers under test in their own, started Manager */
export async function startOperatorTestCluster<R>(opts: OperatorTestClusterOptions<R>): Promise<OperatorTestCluster<R>> {
  const cluster = await startDevTestCluster(opts);
  try {
    const manager = await Manager.create({ kubeconfig: cluster.dev.server.kubeconfigYaml(), name: opts.name, logger: opts.log ?? new Logger({}, 'silent'), gracefulShutdownMs: 2_000 });
    const registered = await opts.register(manager);
    await manager.start();
    const stop = async () => {
      await manager.stop();
      await cluster.stop();
    };
    return { ...cluster, manager, registered, stop };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
