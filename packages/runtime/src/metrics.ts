// Prometheus metrics under controller-runtime's and client-go's names, so dashboards and alerts written for
// Go operators work unchanged. One RuntimeMetrics per registry; a manager owns one, and components that are
// used on their own fall back to a process-wide instance.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** what a workqueue reports; implemented here for Prometheus and by tests with plain counters */
export interface QueueMetrics {
  add(): void;
  depth(n: number): void;
  /** seconds an item waited in the queue before a worker took it */
  queueLatency(seconds: number): void;
  /** seconds a worker spent on an item */
  workDuration(seconds: number): void;
  retry(): void;
}

/** what a queue exposes so gauges about in-flight work can be computed when scraped */
export interface InFlightWork {
  unfinishedWorkSeconds(): number;
  longestRunningProcessorSeconds(): number;
}

const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// client-go workqueue buckets: 10^-8 … 10^1 s
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];
const REST_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly restRequests: Counter<'code' | 'method' | 'host'>;
  readonly restLatency: Histogram<'verb' | 'host'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
  readonly watchRelists: Counter<'resource'>;
  readonly referencedWatches: Gauge<'name'>;
  private readonly queueDepth: Gauge<'name'>;
  private readonly queueAdds: Counter<'name'>;
  private readonly queueRetries: Counter<'name'>;
  private readonly queueLatency: Histogram<'name'>;
  private readonly workDuration: Histogram<'name'>;
  private readonly inFlight = new Map<string, InFlightWork>();

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.restLatency = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds. Broken down by verb, and host.',
      labelNames: ['verb', 'host'],
      buckets: REST_BUCKETS,
      registers,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers,
    });
    this.watchRestarts = new Counter({
      name: 'modelplane_watch_restarts_total',
      help: 'Watch streams re-established, by cause',
      labelNames: ['resource', 'reason'],
      registers,
    });
    this.watchRelists = new Counter({
      name: 'modelplane_watch_relists_total',
      help: 'Full relists (initial, after 410 Gone or after a failed resume)',
      labelNames: ['resource'],
      registers,
    });
    this.referencedWatches = new Gauge({
      name: 'modelplane_referenced_object_watches',
      help: 'Objects watched one by one because another object references them (e.g. pull Secrets)',
      labelNames: ['name'],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const inFlight = this.inFlight;
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
      labelNames: ['name'],
      registers,
      collect() {
        for (const [name, q] of inFlight) this.set({ name }, q.unfinishedWorkSeconds());
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['name'],
      registers,
      collect() {
        for (const [name, q] of inFlight) this.set({ name }, q.longestRunningProcessorSeconds());
      },
    });
  }

  /** metrics for the workqueue called `name`; `work` is read at scrape time for the in-flight gauges */
  queue(name: string, work?: InFlightWork): QueueMetrics {
    if (work) this.inFlight.set(name, work);
    const labels = { name };
    return {
      add: () => this.queueAdds.inc(labels),
      depth: (n) => this.queueDepth.set(labels, n),
      queueLatency: (s) => this.queueLatency.observe(labels, s),
      workDuration: (s) => this.workDuration.observe(labels, s),
      retry: () => this.queueRetries.inc(labels),
    };
  }

  /** stops reporting in-flight gauges for a queue that was shut down */
  forgetQueue(name: string): void {
    this.inFlight.delete(name);
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }
}

let shared: RuntimeMetrics | undefined;

/** process-wide metrics for components created without a manager */
export function sharedMetrics(): RuntimeMetrics {
  shared ??= new RuntimeMetrics();
  return shared;
}
