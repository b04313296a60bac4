// A real Prometheus (Debian's `prometheus` package) for `modelplane dev` and the e2e tests: started with a
// generated configuration that discovers pods through Prometheus's own Kubernetes service discovery against
// our API server (kubeconfig_file), scrapes the ones annotated prometheus.io/scrape: "true", and scrapes the
// operator's /metrics (docs/autoscaling.md, "Prometheus in dev"). Debian builds Prometheus without the
// Kubernetes discovery; with such a binary the same pods come from `discoveryUrl` (http_sd_configs, served
// by pod-discovery.ts with the labels Kubernetes discovery would give), and the relabelling is the same.
// Installed by scripts/setup-prometheus.sh.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { delimiter, join } from 'node:path';
import type { Logger } from '@modelplane/runtime/log';
import { stringify } from 'yaml';

export const PROMETHEUS_SETUP_HINT =
  'install it with `npm run setup:prometheus` (runs apt-get install prometheus; needs root) or set PROMETHEUS_BINARY';

export interface PrometheusOptions {
  binary: string;
  /** config, data and the kubeconfig live here */
  dir: string;
  /** a kubeconfig file for the API server whose pods to discover */
  kubeconfigFile: string;
  /** an HTTP service-discovery URL listing the same pods, for a binary without Kubernetes discovery */
  discoveryUrl?: string;
  /** 0 = a free port */
  port?: number;
  /** extra static targets, e.g. the operator's metrics server `127.0.0.1:8080` (labels kept: honor_labels) */
  staticTargets?: Array<{ job: string; target: string }>;
  scrapeIntervalSeconds?: number;
  log: Logger;
}

export interface RunningPrometheus {
  readonly url: string;
  readonly configFile: string;
  stop(): Promise<void>;
}

/** the prometheus binary: PROMETHEUS_BINARY, /usr/bin/prometheus, or on PATH */
export function findPrometheus(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.PROMETHEUS_BINARY,
    '/usr/bin/prometheus',
    ...(env.PATH ?? '').split(delimiter).map((d) => join(d, 'prometheus')),
  ].filter((c): c is string => Boolean(c));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      // next
    }
  }
  return undefined;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How often the HTTP discovery is polled. It stands in for Kubernetes discovery, which watches pods: a new pod
 * reaches Prometheus's discovery at once there, so polling at the scrape interval (as before) added up to 2 s
 * to every new pod's first scrape that the real setup does not have. The endpoint answers from the
 * simulators' informer cache, so polling it often costs next to nothing.
 */
export const HTTP_SD_REFRESH = '250ms';

/** the generated prometheus.yml (pure) */
export function prometheusConfig(
  o: Pick<PrometheusOptions, 'kubeconfigFile' | 'staticTargets' | 'scrapeIntervalSeconds'> & { httpDiscovery?: string },
): string {
  const interval = `${o.scrapeIntervalSeconds ?? 2}s`;
  const meta = (name: string) => `__meta_kubernetes_pod_annotation_prometheus_io_${name}`;
  return stringify({
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    scrape_configs: [
      {
        job_name: 'kubernetes-pods',
        ...(o.httpDiscovery
          ? { http_sd_configs: [{ url: o.httpDiscovery, refresh_interval: HTTP_SD_REFRESH }] }
          : { kubernetes_sd_configs: [{ role: 'pod', kubeconfig_file: o.kubeconfigFile }] }),
        relabel_configs: [
          { source_labels: [meta('scrape')], action: 'keep', regex: 'true' },
          { source_labels: ['__meta_kubernetes_pod_phase'], action: 'keep', regex: 'Running' },
          {
            source_labels: ['__address__', meta('port')],
            action: 'replace',
            regex: '([^:]+)(?::\\d+)?;(\\d+)',
            replacement: '$1:$2',
            target_label: '__address__',
          },
          { source_labels: [meta('path')], action: 'replace', regex: '(.+)', target_label: '__metrics_path__' },
          { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
          { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
        ],
      },
      ...(o.staticTargets ?? []).map((t) => ({
        job_name: t.job,
        honor_labels: true,
        static_configs: [{ targets: [t.target] }],
      })),
    ],
  });
}

export async function startPrometheus(o: PrometheusOptions): Promise<RunningPrometheus> {
  try {
    return await launch(o, undefined);
  } catch (err) {
    if (!o.discoveryUrl || !/field kubernetes_sd_configs not found/.test((err as Error).message)) throw err;
    o.log.info(
      'this prometheus has no Kubernetes service discovery (Debian builds it without); discovering pods over HTTP instead',
      { discoveryUrl: o.discoveryUrl },
    );
    return launch(o, o.discoveryUrl);
  }
}

async function launch(o: PrometheusOptions, httpDiscovery: string | undefined): Promise<RunningPrometheus> {
  mkdirSync(join(o.dir, 'data'), { recursive: true });
  const configFile = join(o.dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig({ ...o, ...(httpDiscovery ? { httpDiscovery } : {}) }));
  const port = o.port || (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    o.binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(o.dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=2h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    const code = await Promise.race([exited, new Promise<'wait'>((r) => setTimeout(() => r('wait'), 200))]);
    if (code !== 'wait')
      throw new Error(
        `prometheus (${o.binary}) exited with code ${code} before it was ready: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `prometheus at ${url} was not ready within 30 s: ${stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
  }
  o.log.info('prometheus started', { url, config: configFile });
  return {
    url,
    configFile,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}
