// The saturation autoscaler's loop in `modelplane dev` (docs/autoscaling.md, "Prometheus in dev"): an
// inference simulator on every vLLM pod, a real Prometheus discovering those pods through our API server,
// the autoscaler reading it, and a simulated HPA controller acting on wva_desired_replicas.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { registerInferencePods } from '@modelplane/sim/inference';
import { registerHpaSimulator } from '@modelplane/sim/operators/hpa';
import { type PodDiscoveryServer, startPodDiscovery } from '@modelplane/sim/pod-discovery';
import {
  findPrometheus,
  freePort,
  PROMETHEUS_SETUP_HINT,
  type RunningPrometheus,
  startPrometheus,
} from '@modelplane/sim/prometheus';
import { startSimulatedPrometheus } from '@modelplane/sim/prometheus-sim';
import {
  DEFAULT_AUTOSCALER_NAMESPACE,
  DEFAULT_CONFIG_MAP_NAME,
  DEFAULT_SATURATION_CONFIG_MAP_NAME,
} from '../../apis/llmd/index.ts';

/** a /metrics endpoint Prometheus scrapes besides the pods: the operator's, the gateway's queue */
export interface MetricsTarget {
  job: string;
  url: string;
}

export interface DevMetrics {
  /** set when Prometheus will run (the autoscaler and the HPA simulator read it) */
  readonly prometheusUrl?: string;
  /** starts Prometheus once the operator's metrics server is known; no-op without Prometheus */
  start(kubeconfigYaml: string, targets: readonly MetricsTarget[]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Before the simulators' manager starts: inference simulators for vLLM pods, and, when Prometheus is wanted,
 * its port, the HPA simulator and PROMETHEUS_BASE_URL for the autoscaler (unless set already). A real
 * Prometheus when one is installed; otherwise the simulated one, so `npm start` needs nothing but Node.
 */
export async function prepareDevMetrics(
  simulators: Manager,
  want: boolean,
  log: Logger,
  opts: { hpaSimulator: boolean } = { hpaSimulator: true },
): Promise<DevMetrics> {
  registerInferencePods(simulators);
  if (!want) return { start: async () => undefined, stop: async () => undefined };
  // MODELPLANE_PROMETHEUS=simulated picks the simulated one even when a binary is installed
  const binary = process.env.MODELPLANE_PROMETHEUS === 'simulated' ? undefined : findPrometheus();
  if (!binary) return simulatedDevMetrics(simulators, log, opts.hpaSimulator);
  const bin = binary;
  const port = await freePort();
  const prometheusUrl = process.env.PROMETHEUS_BASE_URL || `http://127.0.0.1:${port}`;
  process.env.PROMETHEUS_BASE_URL = prometheusUrl;
  // on a real control plane kube-controller-manager's HPA controller scales (with External metrics from a
  // real KEDA or prometheus-adapter); a simulated one beside it would fight it
  if (opts.hpaSimulator) registerHpaSimulator(simulators, { prometheus: { baseUrl: prometheusUrl } });
  let running: RunningPrometheus | undefined;
  let discovery: PodDiscoveryServer | undefined;
  let starting: Promise<unknown> = Promise.resolve();
  const dir = mkdtempSync(join(tmpdir(), 'modelplane-prometheus-'));
  return {
    prometheusUrl,
    start(kubeconfigYaml, targets) {
      const p = launch(kubeconfigYaml, targets);
      starting = p.catch(() => undefined);
      return p;
    },
    async stop() {
      await starting;
      await running?.stop();
      await discovery?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };

  async function launch(kubeconfigYaml: string, targets: readonly MetricsTarget[]): Promise<void> {
    const kubeconfigFile = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, kubeconfigYaml, { mode: 0o600 });
    discovery = await startPodDiscovery(simulators);
    running = await startPrometheus({
      binary: bin,
      dir,
      port,
      kubeconfigFile,
      discoveryUrl: discovery.url,
      staticTargets: targets.map((t) => ({ job: t.job, target: t.url.replace(/^https?:\/\//, '') })),
      log,
    });
  }
}

/** the simulated Prometheus (no binary installed): listening now, scraping the operator once it listens */
async function simulatedDevMetrics(simulators: Manager, log: Logger, hpaSimulator: boolean): Promise<DevMetrics> {
  const prometheus = await startSimulatedPrometheus({ simulators, log });
  const prometheusUrl = process.env.PROMETHEUS_BASE_URL || prometheus.url;
  process.env.PROMETHEUS_BASE_URL = prometheusUrl;
  if (hpaSimulator) registerHpaSimulator(simulators, { prometheus: { baseUrl: prometheusUrl } });
  log.info(`no prometheus binary: the simulated Prometheus answers the autoscaler (${PROMETHEUS_SETUP_HINT})`);
  return {
    prometheusUrl,
    async start(_kubeconfigYaml, targets) {
      for (const t of targets) prometheus.addStaticTarget(t.job, t.url);
    },
    stop: () => prometheus.stop(),
  };
}

/** the autoscaler's two ConfigMaps with llm-d's sample values, so VariantAutoscalings work out of the box */
export async function applyAutoscalerDefaults(client: Manager['client']): Promise<void> {
  const c = client.withFieldManager('modelplane-dev');
  await c.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: DEFAULT_AUTOSCALER_NAMESPACE } });
  const existing = async (name: string) =>
    c.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap' } as never, name, DEFAULT_AUTOSCALER_NAMESPACE);
  if (!(await existing(DEFAULT_CONFIG_MAP_NAME))) {
    await c.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: DEFAULT_CONFIG_MAP_NAME, namespace: DEFAULT_AUTOSCALER_NAMESPACE },
      data: { GLOBAL_OPT_INTERVAL: '5s' },
    } as never);
  }
  if (!(await existing(DEFAULT_SATURATION_CONFIG_MAP_NAME))) {
    await c.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: DEFAULT_SATURATION_CONFIG_MAP_NAME, namespace: DEFAULT_AUTOSCALER_NAMESPACE },
      data: {
        default: 'kvCacheThreshold: 0.80\nqueueLengthThreshold: 5\nkvSpareTrigger: 0.10\nqueueSpareTrigger: 3\n',
      },
    } as never);
  }
}
