// The browser tests' world: the `modelplane dev` cluster with every controller but the autoscaler (the test
// plays the autoscaler, writing VariantAutoscaling status, so the chart's history is deterministic), the
// quickstart applied and converged, and the dashboard served from the built front end.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type KubectlResult, runKubectl } from '@modelplane/apiserver/testing';
import { type Dashboard, ensureWebBuilt, startDashboard, WEB_DIST } from '../../src/cli/dashboard/index.ts';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { applyManifests } from '../../src/cli/dev/examples.ts';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../src/controllers/sets.ts';
import { KubeClient, Logger } from '../../src/kube/index.ts';

export const ARTIFACTS = resolve('test-artifacts/browser');

export interface World {
  cluster: DevCluster;
  dashboard: Dashboard;
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  stop(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const log = new Logger({}, 'silent');
  if (!ensureWebBuilt(log) || !existsSync(join(WEB_DIST, 'index.html'))) throw new Error(`the dashboard front end is not built at ${WEB_DIST}: run npm run build:web`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const sets = [...CONTROLLER_SETS, ...PROVIDER_SETS].filter((s) => s.name !== 'autoscaler');
  const cluster = await startDevCluster({ port: 0, log, sets });
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-browser-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cluster.server.kubeconfigYaml());
  const client = await KubeClient.create(cluster.server.kubeconfigYaml());
  try {
    await applyManifests(cluster.manager.client, resolve('examples/quickstart'));
    const dashboard = await startDashboard({ client, cluster: cluster.server.url, user: 'admin', logger: log });
    return {
      cluster,
      dashboard,
      kubectl: (args, input) => runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], input),
      async stop() {
        await dashboard.close();
        client.close();
        await cluster.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
