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
  readonly referencedEvents: Counter<'name' | 'outcome'>;
  private readonly workqueue: ReturnType<typeof workqueueMetrics>;
  private readonly inFlight = new Map<string, InFlightWork>();

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const { counter, gauge, histogram } = metricMakers(registry);
    // controller-runtime's names and labels, so its dashboards and alerts work unchanged
    this.reconcileTotal = counter(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
    );
    this.reconcileErrors = counter(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
    );
    this.reconcileTime = histogram(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_BUCKETS,
    );
    this.maxConcurrentReconciles = gauge(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
    );
    this.activeWorkers = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', [
      'controller',
    ]);
    this.restRequests = counter(
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code, method, and host.',
      ['code', 'method', 'host'],
    );
    this.restLatency = histogram(
      'rest_client_request_duration_seconds',
      'Request latency in seconds. Broken down by verb, and host.',
      ['verb', 'host'],
      REST_BUCKETS,
    );
    this.leaderStatus = gauge(
      'leader_election_master_status',
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      ['name'],
    );
    this.watchRestarts = counter('modelplane_watch_restarts_total', 'Watch streams re-established, by cause', [
      'resource',
      'reason',
    ]);
    this.watchRelists = counter(
      'modelplane_watch_relists_total',
      'Full relists (initial, after 410 Gone or after a failed resume)',
      ['resource'],
    );
    ({ watches: this.referencedWatches, events: this.referencedEvents } = referencedObjectMetrics(registry));
    this.workqueue = workqueueMetrics(registry);
    registerInFlightGauges(registry, this.inFlight);
  }

  /** metrics for the workqueue called `name`; `work` is read at scrape time for the in-flight gauges */
  queue(name: string, work?: InFlightWork): QueueMetrics {
    if (work) this.inFlight.set(name, work);
    const labels = { name };
    return {
      add: () => this.workqueue.adds.inc(labels),
      depth: (n) => this.workqueue.depth.set(labels, n),
      queueLatency: (s) => this.workqueue.queueLatency.observe(labels, s),
      workDuration: (s) => this.workqueue.workDuration.observe(labels, s),
      retry: () => this.workqueue.retries.inc(labels),
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

/** one registry's metric constructors: name, help and label names, nothing else to repeat */
function metricMakers(registry: Registry) {
  const registers = [registry];
  return {
    counter: <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers }),
    gauge: <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Gauge<L>({ name, help, labelNames, registers }),
    histogram: <L extends string>(name: string, help: string, labelNames: L[], buckets: number[]) =>
      new Histogram<L>({ name, help, labelNames, buckets, registers }),
  };
}

/** client-go's workqueue metrics, by queue name */
function workqueueMetrics(registry: Registry) {
  const { counter, gauge, histogram } = metricMakers(registry);
  return {
    depth: gauge('workqueue_depth', 'Current depth of workqueue', ['name']),
    adds: counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name']),
    retries: counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name']),
    queueLatency: histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      ['name'],
      QUEUE_BUCKETS,
    ),
    workDuration: histogram(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes.',
      ['name'],
      QUEUE_BUCKETS,
    ),
  };
}

/** the workqueue gauges read from each queue's in-flight work at scrape time */
function registerInFlightGauges(registry: Registry, inFlight: Map<string, InFlightWork>): void {
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads.",
    labelNames: ['name'],
    registers: [registry],
    collect() {
      for (const [name, q] of inFlight) this.set({ name }, q.unfinishedWorkSeconds());
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'],
    registers: [registry],
    collect() {
      for (const [name, q] of inFlight) this.set({ name }, q.longestRunningProcessorSeconds());
    },
  });
}

let shared: RuntimeMetrics | undefined;

/** process-wide metrics for components created without a manager */
export function sharedMetrics(): RuntimeMetrics {
  shared ??= new RuntimeMetrics();
  return shared;
}

/** the metrics of ReferencedObjectWatch (controller/references.ts) */
function referencedObjectMetrics(registry: Registry) {
  const { counter, gauge } = metricMakers(registry);
  return {
    watches: gauge(
      'modelplane_referenced_object_watches',
      'Objects watched one by one because another object references them (e.g. pull Secrets)',
      ['name'],
    ),
    events: counter(
      'modelplane_referenced_object_events_total',
      'Events of objects watched because another object references them: changed (the referencing objects were reconciled) or unchanged (a restarted watch replaying a version already seen)',
      ['name', 'outcome'],
    ),
  };
}
