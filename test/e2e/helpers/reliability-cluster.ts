// The dev cluster (API server, CRDs, simulators) for the reliability tests, on the backend
// MODELPLANE_TEST_BACKEND names, with fault injection that is the same on both (docs/real-kubernetes.md):
// the embedded server's own injector, or the fault proxy in front of the real kube-apiserver. The
// controllers under test run as separate processes (see process-chaos.ts) whose kubeconfigs go through the
// faults, so faults scoped to their ServiceAccount users hit them while the simulators and the test itself
// (admin, field manager `test-user`) keep a healthy API server. Restarts keep every object: the embedded
// server persists to a data directory, the real one to etcd.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServer, AuditEntry } from '@modelplane/apiserver';
import type { TestBackend } from '@modelplane/apiserver/testing';
import { type RealControlPlane, startFaultInjection, type TestFaults } from '@modelplane/apiserver/testing';
import type { KubeClient } from '@modelplane/runtime/client';
import { Logger, parseLogLevel } from '@modelplane/runtime/log';
import { startDevTestCluster } from '../../helpers/dev-cluster.ts';
import { routedCredentials, type ServiceAccountCredentials } from '../../helpers/operator-process.ts';

export interface ReliabilityCluster {
  backend: TestBackend;
  admin: KubeClient;
  faults: TestFaults;
  /** every completed request the API server recorded (requests a fault answered are in `faults.faulted()`) */
  auditEntries(): AuditEntry[];
  /** ServiceAccount kubeconfigs whose requests go through the faults (for the operator processes) */
  credentials: ServiceAccountCredentials;
  /** restarts the API server in place (same address, CA and tokens, objects kept) and checks a new one answers */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

// RELIABILITY_TEST_LOG=info shows the simulators' logs while debugging
const log = new Logger({}, parseLogLevel(process.env.RELIABILITY_TEST_LOG, 'silent'));

/** what tells one API server incarnation from the next: the embedded audit log starts empty, kube-apiserver gets a new pid */
function incarnation(server: ApiServer | RealControlPlane): () => unknown {
  if ('faults' in server) return () => server.auditEntries().at(-1);
  return () => server.processes.find((p) => p.name === 'kube-apiserver')?.pid;
}

export async function startReliabilityCluster(namespaces: readonly string[]): Promise<ReliabilityCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'modelplane-reliability-'));
  const cluster = await startDevTestCluster({ log, namespaces: [...namespaces], dataDir });
  const server = cluster.dev.server;
  const injection = await startFaultInjection(server).catch(async (err) => {
    await cluster.stop();
    throw err;
  });
  const current = incarnation(server);
  return {
    backend: cluster.backend,
    admin: cluster.admin,
    faults: injection.faults,
    auditEntries: () => cluster.auditEntries(),
    credentials: routedCredentials(cluster, (k) => injection.route(k)),
    async restartApiServer() {
      const before = current();
      await injection.restartApiServer();
      if (before !== undefined && current() === before)
        throw new Error('API server restart: the same server still answers (expected a new server process)');
    },
    async stop() {
      await injection.stop();
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
