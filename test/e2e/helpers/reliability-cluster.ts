// The dev cluster (API server, CRDs, simulators) for the reliability tests: persisted in a data directory so
// `server.restart()` keeps every object, with an admin client whose field manager is `test-user`. The
// controllers under test run as separate processes (see process-chaos.ts), so faults can be scoped to their
// ServiceAccount users while the simulators and the test itself keep a healthy API server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiServer } from '@modelplane/apiserver';
import { type DevCluster, startDevCluster } from '../../../src/cli/dev/cluster.ts';
import { type KubeClient, Logger, parseLogLevel } from '../../../src/kube/index.ts';

export interface ReliabilityCluster {
  dev: DevCluster;
  /** the same handle across `restart()` (a new server runs behind it) */
  server: ApiServer;
  admin: KubeClient;
  /** restarts the API server in place: same port, CA and tokens, objects kept (the data directory) */
  restartApiServer(): Promise<void>;
  stop(): Promise<void>;
}

// RELIABILITY_TEST_LOG=info shows the simulators' logs while debugging
const log = new Logger({}, parseLogLevel(process.env.RELIABILITY_TEST_LOG, 'silent'));

export async function startReliabilityCluster(namespaces: readonly string[]): Promise<ReliabilityCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'modelplane-reliability-'));
  const dev = await startDevCluster({ port: 0, log, controllers: false, dataDir });
  const stop = async () => {
    dev.server.faults.clear();
    await dev.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const admin = dev.manager.client.withFieldManager('test-user');
    for (const name of namespaces) await admin.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const restartApiServer = () => dev.server.restart();
    return { dev, server: dev.server, admin, restartApiServer, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
