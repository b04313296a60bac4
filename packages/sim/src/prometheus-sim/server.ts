// A simulated Prometheus for `modelplane dev` when no real one is installed (docs/autoscaling.md, "Prometheus
// in dev"): it finds the pods exactly as the generated configuration of ../prometheus.ts does (annotated
// prometheus.io/scrape "true", phase Running, prometheus.io/port and /path; series labelled namespace and
// pod), scrapes them and the operator's /metrics over HTTP every interval, and answers instant queries on
// GET /api/v1/query for the PromQL slice of ./promql.ts. Only loopback; no remote write, no rules.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@modelplane/runtime/log';
import type { Manager } from '@modelplane/runtime/manager';
import { type KubeObject, kindRef } from '@modelplane/runtime/meta';
import { serveGuarded } from '@modelplane/runtime/serve';
import { podTargetGroups, type TargetGroup } from '../pod-discovery.ts';
import { evaluateInstant, PromQLError } from './promql.ts';
import { parseExposition, SampleStore } from './store.ts';

/** queries are GETs: a body past this is refused with 413 */
const PROMETHEUS_SIM_MAX_BODY_BYTES = 64 * 1024;

export interface ScrapeTarget {
  /** host:port */
  address: string;
  path: string;
  labels: Record<string, string>;
  honorLabels: boolean;
}

const annotation = (name: string) => `__meta_kubernetes_pod_annotation_prometheus_io_${name}`;

/** the relabelling of the generated prometheus.yml applied to discovered pod targets (pure) */
export function podScrapeTargets(groups: readonly TargetGroup[]): ScrapeTarget[] {
  const out = new Map<string, ScrapeTarget>();
  for (const g of groups) {
    const l = g.labels;
    if (l[annotation('scrape')] !== 'true' || l.__meta_kubernetes_pod_phase !== 'Running') continue;
    for (const t of g.targets) {
      const host = t.replace(/:\d+$/, '');
      const port = l[annotation('port')];
      const address = port && /^\d+$/.test(port) ? `${host}:${port}` : t;
      const path = l[annotation('path')] || '/metrics';
      const labels = { namespace: l.__meta_kubernetes_namespace ?? '', pod: l.__meta_kubernetes_pod_name ?? '' };
      // one pod with several container ports relabelled to one address is one target, as in Prometheus
      out.set(`${address}${path}`, { address, path, labels, honorLabels: false });
    }
  }
  return [...out.values()];
}

export interface SimulatedPrometheusOptions {
  /** the simulators' manager: its informer cache lists the pods */
  simulators: Manager;
  /** scraped with honor_labels, e.g. the operator's metrics server `127.0.0.1:8080` */
  staticTargets?: Array<{ job: string; target: string }>;
  scrapeIntervalMs?: number;
  /** 0 = a free port */
  port?: number;
  log: Logger;
}

export interface SimulatedPrometheus {
  readonly url: string;
  /** scrapes this target too from now on, with honor_labels (the operator's metrics once it listens) */
  addStaticTarget(job: string, target: string): void;
  /** scrapes every target once now (tests; the loop does it every interval) */
  scrapeOnce(): Promise<void>;
  stop(): Promise<void>;
}

const Pods = kindRef<KubeObject>('v1', 'Pod');

async function scrape(store: SampleStore, t: ScrapeTarget, at: number): Promise<boolean> {
  const key = `${t.address}${t.path}`;
  try {
    const res = await fetch(`http://${t.address}${t.path}`, { signal: AbortSignal.timeout(2_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    store.ingest(key, t.labels, parseExposition(await res.text()), at, t.honorLabels);
    return true;
  } catch {
    // a target that does not answer has no current series (Prometheus marks them stale on a failed scrape)
    store.targetGone(key, at);
    return false;
  }
}

export async function startSimulatedPrometheus(o: SimulatedPrometheusOptions): Promise<SimulatedPrometheus> {
  const store = new SampleStore();
  const every = o.scrapeIntervalMs ?? 2_000;
  const staticTarget = (job: string, target: string): ScrapeTarget => ({
    address: target.replace(/^https?:\/\//, '').replace(/\/.*$/, ''),
    path: '/metrics',
    labels: { job },
    honorLabels: true,
  });
  const statics: ScrapeTarget[] = (o.staticTargets ?? []).map((s) => staticTarget(s.job, s.target));
  let scraping: Promise<void> | undefined;
  const scrapeOnce = async () => {
    const at = Date.now();
    const targets = [...podScrapeTargets(podTargetGroups((await o.simulators.cache.list(Pods)) as never)), ...statics];
    const wanted = new Set(targets.map((t) => `${t.address}${t.path}`));
    for (const gone of store.targets()) if (!wanted.has(gone)) store.targetGone(gone, at);
    await Promise.all(targets.map((t) => scrape(store, t, at)));
  };
  const tick = () => {
    scraping ??= scrapeOnce()
      .catch((err) => o.log.debug('simulated Prometheus: a scrape round failed', { error: err }))
      .finally(() => (scraping = undefined));
  };
  const timer = setInterval(tick, every);
  timer.unref();

  const server = serveGuarded(
    http.createServer(),
    { name: 'the simulated Prometheus', maxBodyBytes: PROMETHEUS_SIM_MAX_BODY_BYTES },
    (req, res, { url }) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/-/ready' || url.pathname === '/-/healthy') return send(200, { status: 'success' });
      if (url.pathname !== '/api/v1/query' || (req.method !== 'GET' && req.method !== 'HEAD'))
        return send(404, { status: 'error', errorType: 'not_found', error: `${url.pathname} is not served here` });
      const query = url.searchParams.get('query') ?? '';
      const time = url.searchParams.get('time');
      const at = time !== null && Number.isFinite(Number(time)) ? Number(time) * 1000 : Date.now();
      try {
        const result = evaluateInstant(query, store.all(), at);
        send(200, { status: 'success', data: { resultType: 'vector', result } });
      } catch (err) {
        // a bad regular expression in a matcher is the query's fault too; nothing here may end the process
        const bad = err instanceof PromQLError || err instanceof SyntaxError;
        send(bad ? 400 : 500, {
          status: 'error',
          errorType: bad ? 'bad_data' : 'internal',
          error: `${(err as Error).message} (query ${JSON.stringify(query)})`,
        });
      }
    },
  );
  await new Promise<void>((resolve) => server.listen(o.port ?? 0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  o.log.info('simulated Prometheus started (no prometheus binary installed)', { url, scrapeIntervalMs: every });
  tick();
  return {
    url,
    scrapeOnce,
    addStaticTarget: (job, target) => void statics.push(staticTarget(job, target)),
    async stop() {
      clearInterval(timer);
      await scraping;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
