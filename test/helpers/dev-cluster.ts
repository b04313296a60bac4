// The `modelplane dev` cluster (API server, every CRD, the simulated external operators) for controller
// tests, on the backend MODELPLANE_TEST_BACKEND names (`testBackend()` of @modelplane/apiserver/testing): the real kubectl pointed at
// it, an admin client, and optionally the controllers under test in their own Manager beside the
// simulators, as the operator runs next to them on a real cluster.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServer, AuditEntry } from '@modelplane/apiserver';
import {
  type KubectlResult,
  type RealControlPlane,
  realServiceAccountKubeconfig,
  runKubectl,
  type TestBackend,
  testBackend,
} from '@modelplane/apiserver/testing';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { Manager } from '@modelplane/runtime/manager';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { exposeWebhookService, loopbackWebhookHost, startRealDevCluster } from '../../src/cli/dev/real-cluster.ts';
import type { ControllerSet } from '../../src/controllers/registry.ts';

export interface DevTestClusterOptions {
  /** the cluster's (and the operator's) logger; default silent */
  log?: Logger;
  /** namespaces created before the tests start */
  namespaces?: string[];
  /** run every operator controller set and provider in-process, as `modelplane dev` does (default false) */
  controllers?: boolean;
  /** the embedded server's data directory, so its restart() keeps every object (the real backend keeps them in etcd) */
  dataDir?: string;
  /** with `controllers`: these sets instead of every one (e.g. a provider with shortened timings) */
  sets?: readonly ControllerSet[];
}

export interface DevTestCluster {
  backend: TestBackend;
  dev: DevCluster<ApiServer | RealControlPlane>;
  /** the embedded API server's handle (faults, in-memory audit log), undefined on the real backend */
  embedded: ApiServer | undefined;
  /** admin credentials, writing as field manager `test-user` */
  admin: KubeClient;
  /** a kubeconfig file for the cluster, for kubectl and processes */
  kubeconfig: string;
  /** the real kubectl against the cluster (own cache dir); any exit code */
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** kubectl that must succeed; returns its stdout */
  k(args: string[], input?: string): Promise<string>;
  /** every completed API request so far (the embedded audit log, or kube-apiserver's) */
  auditEntries(): AuditEntry[];
  /** a kubeconfig authenticating as ServiceAccount `namespace/name` (which must exist on the real backend) */
  serviceAccountKubeconfig(namespace: string, name: string): Promise<string>;
  /** `modelplane run` flags for a webhook server the API server can reach once `exposeWebhook` names it */
  webhookListenArgs(): string[];
  /** points the webhook Service `namespace/name` (port 443) at a webhook server's URL */
  exposeWebhook(namespace: string, name: string, url: string): Promise<void>;
  stop(): Promise<void>;
}

function backendHandles(dev: DevCluster<ApiServer | RealControlPlane>, admin: KubeClient) {
  const endpoints = dev.serviceEndpoints;
  if ('auditEntries' in dev.server) {
    const server = dev.server;
    return {
      embedded: server,
      auditEntries: () => server.auditEntries(),
      serviceAccountKubeconfig: async (ns: string, name: string) => server.serviceAccountKubeconfig(ns, name),
      webhookListenArgs: () => ['--webhook-port', '0', '--webhook-host', '127.0.0.1'],
      exposeWebhook: async (ns: string, name: string, url: string) => void endpoints.register(ns, name, 443, url),
    };
  }
  const plane = dev.server as RealControlPlane;
  const host = loopbackWebhookHost();
  return {
    embedded: undefined,
    auditEntries: () => plane.audit.entries(),
    serviceAccountKubeconfig: (ns: string, name: string) =>
      realServiceAccountKubeconfig(plane, ns, name, { expirationSeconds: 24 * 3600 }),
    webhookListenArgs: () => ['--webhook-port', '443', '--webhook-host', host],
    exposeWebhook: async (ns: string, name: string, url: string) => {
      const target = new URL(url);
      if (target.port !== '' && target.port !== '443')
        throw new Error(
          `exposeWebhook ${ns}/${name}: on the real backend the webhook server must listen on port 443 of its own loopback address (use webhookListenArgs()), not ${url}`,
        );
      await exposeWebhookService(admin, ns, name, target.hostname);
    },
  };
}

/** the dev cluster, by default with no modelplane controllers running: the test starts what it tests (e.g. as processes) */
export async function startDevTestCluster(opts: DevTestClusterOptions = {}): Promise<DevTestCluster> {
  const backend = testBackend();
  const devOpts = {
    port: 0,
    log: opts.log ?? new Logger({}, 'silent'),
    controllers: opts.controllers ?? false,
    ...(opts.sets ? { sets: opts.sets } : {}),
  };
  const dev: DevCluster<ApiServer | RealControlPlane> =
    backend === 'real'
      ? await startRealDevCluster(devOpts)
      : await startDevCluster({ ...devOpts, ...(opts.dataDir ? { dataDir: opts.dataDir } : {}) });
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-dev-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const stop = async () => {
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    dev.server.writeKubeconfig(kubeconfig);
    const admin = dev.manager.client.withFieldManager('test-user');
    for (const name of opts.namespaces ?? [])
      await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const kubectl = (args: string[], input?: string) =>
      runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], input);
    const k = async (args: string[], input?: string) => {
      const r = await kubectl(args, input);
      if (r.code === 0) return r.stdout;
      throw new Error(`kubectl ${args.join(' ')} failed (exit ${r.code}): ${r.stderr}${r.stdout}`);
    };
    return { backend, dev, admin, kubeconfig, kubectl, k, stop, ...backendHandles(dev, admin) };
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
export async function startOperatorTestCluster<R>(
  opts: OperatorTestClusterOptions<R>,
): Promise<OperatorTestCluster<R>> {
  const cluster = await startDevTestCluster(opts);
  try {
    const manager = await Manager.create({
      kubeconfig: cluster.dev.server.kubeconfigYaml(),
      name: opts.name,
      logger: opts.log ?? new Logger({}, 'silent'),
      gracefulShutdownMs: 2_000,
    });
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
