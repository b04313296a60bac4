// The browser tests' world: the `modelplane dev` cluster with every controller, the autoscaler reading a
// metrics source the test sets (its cycles run when the test says, so the chart's history is
// deterministic), the quickstart applied, and the dashboard served from the built front end with the
// autoscaler's decision history, as `modelplane dev` serves it.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type KubectlResult, runKubectl } from '@modelplane/apiserver/testing';
import { KubeClient } from '@modelplane/runtime/client';
import { Logger } from '@modelplane/runtime/log';
import { type Dashboard, ensureWebBuilt, startDashboard, WEB_DIST } from '../../src/cli/dashboard/index.ts';
import { type DevCluster, startDevCluster } from '../../src/cli/dev/cluster.ts';
import { applyManifests } from '../../src/cli/dev/examples.ts';
import { providerNames, waitForProviders } from '../../src/cli/dev/providers-ready.ts';
import { type Autoscaler, autoscalerControllerSet } from '../../src/controllers/llmd/index.ts';
import type { MetricsSource, PodLoad, WindowActivity } from '../../src/controllers/llmd/metrics-source/source.ts';
import { CONTROLLER_SETS, PROVIDER_SETS } from '../../src/controllers/sets.ts';

export const ARTIFACTS = resolve('test-artifacts/browser');

/** the load each pod reports, set by the test */
export class TestMetrics implements MetricsSource {
  readonly description = 'the browser test';
  load = new Map<string, PodLoad>();
  async podLoad(): Promise<Map<string, PodLoad>> {
    return this.load;
  }
  async activityInWindow(): Promise<WindowActivity> {
    return { served: 100, peakInFlight: 1 };
  }
}

export interface World {
  cluster: DevCluster;
  metrics: TestMetrics;
  autoscaler(): Autoscaler;
  dashboard: Dashboard;
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  stop(): Promise<void>;
}

/**
 * Applies examples/quickstart as `modelplane dev` does: once every provider is Ready, since selection only
 * considers ready providers and is sticky (a deployment applied before KubeRay reports Ready stays on llm-d).
 */
export async function applyQuickstart(cluster: DevCluster, log: Logger): Promise<void> {
  await waitForProviders(cluster.manager.client, providerNames(PROVIDER_SETS), log, 120_000);
  await applyManifests(cluster.manager.client, resolve('examples/quickstart'));
}

/** `log`: where the cluster, controllers and dashboard log (default: nowhere), e.g. to check what they write */
export async function startWorld(opts: { log?: Logger } = {}): Promise<World> {
  const log = opts.log ?? new Logger({}, 'silent');
  if (!ensureWebBuilt(log) || !existsSync(join(WEB_DIST, 'index.html')))
    throw new Error(`the dashboard front end is not built at ${WEB_DIST}: run npm run build:web`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const metrics = new TestMetrics();
  let autoscaler: Autoscaler | undefined;
  const sets = [...CONTROLLER_SETS, ...PROVIDER_SETS].map((s) =>
    s.name === 'autoscaler'
      ? autoscalerControllerSet({ metricsSource: metrics, autoStart: false }, (a) => (autoscaler = a))
      : s,
  );
  const cluster = await startDevCluster({ port: 0, log, sets });
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-browser-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cluster.server.kubeconfigYaml());
  const client = await KubeClient.create(cluster.server.kubeconfigYaml());
  try {
    await applyQuickstart(cluster, log);
    const feed = (namespace: string, name: string) => autoscaler?.decisions.history(namespace, name) ?? [];
    const dashboard = await startDashboard({ client, cluster: cluster.server.url, user: 'admin', logger: log, feed });
    return {
      cluster,
      metrics,
      autoscaler: () => {
        if (!autoscaler) throw new Error('the autoscaler set did not register');
        return autoscaler;
      },
      dashboard,
      kubectl: (args, input) =>
        runKubectl(['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], input),
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
