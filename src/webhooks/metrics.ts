// Webhook metrics. Request counts keep controller-runtime's names and labels (`webhook` = path, `code` =
// the admission status code) so dashboards made for Go operators work; the result and latency series say
// what the handlers decided. Several servers (tests, replicas in one process) may share one registry, so a
// metric already registered there is reused instead of registered twice.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** allowed, denied (by the handler), patched (allowed with a patch), error (bad request or handler failure) */
export type WebhookResult = 'allowed' | 'denied' | 'patched' | 'error' | 'converted';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Counter<L> {
  return (
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames, registers: [registry] })
  );
}
function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Gauge<L> {
  return (
    (registry.getSingleMetric(name) as Gauge<L> | undefined) ??
    new Gauge({ name, help, labelNames, registers: [registry] })
  );
}
function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: L[]): Histogram<L> {
  return (
    (registry.getSingleMetric(name) as Histogram<L> | undefined) ??
    new Histogram({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [registry] })
  );
}

export class WebhookMetrics {
  readonly requests: Counter<'webhook' | 'code'>;
  readonly inFlight: Gauge<'webhook'>;
  readonly results: Counter<'webhook' | 'result'>;
  readonly latency: Histogram<'webhook' | 'result'>;
  readonly certExpiry: Gauge<'secret' | 'certificate'>;
  readonly rotations: Counter<'secret' | 'action'>;
  readonly injections: Counter<'kind' | 'name' | 'outcome'>;

  constructor(readonly registry: Registry) {
    this.requests = counter(
      registry,
      'controller_runtime_webhook_requests_total',
      'Total number of admission requests by HTTP status code.',
      ['webhook', 'code'],
    );
    this.inFlight = gauge(
      registry,
      'controller_runtime_webhook_requests_in_flight',
      'Current number of admission requests being served.',
      ['webhook'],
    );
    this.results = counter(
      registry,
      'modelplane_webhook_results_total',
      'Webhook requests by what was decided: allowed, denied, patched, converted or error.',
      ['webhook', 'result'],
    );
    this.latency = histogram(
      registry,
      'modelplane_webhook_request_duration_seconds',
      'Time from the request body being read to the response being written, by decision.',
      ['webhook', 'result'],
    );
    this.certExpiry = gauge(
      registry,
      'modelplane_webhook_certificate_expiry_timestamp_seconds',
      'notAfter of the CA and serving certificate currently in use, as Unix time.',
      ['secret', 'certificate'],
    );
    this.rotations = counter(
      registry,
      'modelplane_webhook_certificate_rotations_total',
      'Certificate Secret writes by this process: a new CA and serving cert, or a new serving cert.',
      ['secret', 'action'],
    );
    this.injections = counter(
      registry,
      'modelplane_webhook_cabundle_injections_total',
      'caBundle writes into webhook configurations and CRDs, by outcome.',
      ['kind', 'name', 'outcome'],
    );
  }
}
