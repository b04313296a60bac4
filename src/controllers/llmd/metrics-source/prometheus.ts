// The Prometheus HTTP API metrics source: instant queries running the PromQL of docs/autoscaling.md,
// "Metrics in". Series are selected by the vLLM `model_name` label and the `namespace` label Prometheus adds
// from Kubernetes service discovery; results are keyed by the `pod` label.
import { type PrometheusClientOptions, promqlString as q, queryPrometheus } from '@modelplane/runtime/prometheus';
import type { MetricsSource, PodLoad, WindowActivity } from './source.ts';

export type PrometheusSourceOptions = PrometheusClientOptions;

export function kvCacheQuery(namespace: string, modelID: string): string {
  return `max by (pod)(max_over_time(vllm:kv_cache_usage_perc{namespace=${q(namespace)},model_name=${q(modelID)}}[1m]))`;
}

export function queueQuery(namespace: string, modelID: string): string {
  return `max by (pod)(max_over_time(vllm:num_requests_waiting{namespace=${q(namespace)},model_name=${q(modelID)}}[1m]))`;
}

/** the time of each pod's newest vLLM sample (within Prometheus's 5 minute lookback) */
export function newestSampleQuery(namespace: string, modelID: string): string {
  const sel = `{namespace=${q(namespace)},model_name=${q(modelID)}}`;
  // timestamp() drops the metric name, so the two series of a pod are joined with `or`, not one selector
  return `max by (pod)(timestamp(vllm:kv_cache_usage_perc${sel}) or timestamp(vllm:num_requests_waiting${sel}))`;
}

/** requests running or waiting on each pod now (the newest samples) */
export function inFlightQuery(namespace: string, modelID: string): string {
  return `sum by (pod)({__name__=~"vllm:num_requests_running|vllm:num_requests_waiting",namespace=${q(namespace)},model_name=${q(modelID)}})`;
}

/** requests the gateway holds for the model (llm-d's endpoint-picker flow-control queue) */
export function queuedQuery(namespace: string, modelID: string): string {
  return `sum(inference_extension_flow_control_queue_size{namespace=${q(namespace)},target_model_name=${q(modelID)}})`;
}

const range = (windowSeconds: number) => `${Math.max(1, Math.round(windowSeconds))}s`;

export function requestsQuery(namespace: string, modelID: string, windowSeconds: number): string {
  return `sum(increase(vllm:request_success_total{namespace=${q(namespace)},model_name=${q(modelID)}}[${range(windowSeconds)}]))`;
}

/**
 * the most requests of one vLLM gauge (running or waiting) on any replica at any sample in the window; one
 * query per gauge, since a function over both would give two series with one label set
 */
export function peakQuery(gauge: string, namespace: string, modelID: string, windowSeconds: number): string {
  return `max(max_over_time(${gauge}{namespace=${q(namespace)},model_name=${q(modelID)}}[${range(windowSeconds)}]))`;
}

/** the model's served-request counters summed now */
export function servedTotalQuery(namespace: string, modelID: string): string {
  return `sum(vllm:request_success_total{namespace=${q(namespace)},model_name=${q(modelID)}})`;
}

/** the most requests the gateway held for the model at any sample in the window */
export function peakQueuedQuery(namespace: string, modelID: string, windowSeconds: number): string {
  return `max(max_over_time(inference_extension_flow_control_queue_size{namespace=${q(namespace)},target_model_name=${q(modelID)}}[${range(windowSeconds)}]))`;
}

export class PrometheusMetricsSource implements MetricsSource {
  readonly description: string;

  constructor(private readonly opts: PrometheusSourceOptions) {
    this.description = `Prometheus at ${opts.baseUrl}`;
  }

  async podLoad(namespace: string, modelID: string, signal?: AbortSignal): Promise<Map<string, PodLoad>> {
    const [kv, queue, newest, inFlight] = await Promise.all([
      queryPrometheus(this.opts, kvCacheQuery(namespace, modelID), signal),
      queryPrometheus(this.opts, queueQuery(namespace, modelID), signal),
      queryPrometheus(this.opts, newestSampleQuery(namespace, modelID), signal),
      queryPrometheus(this.opts, inFlightQuery(namespace, modelID), signal),
    ]);
    const out = new Map<string, PodLoad>();
    // the age is measured against the query's own evaluation time, so clock skew between us and Prometheus
    // does not count
    for (const s of newest)
      if (s.metric.pod)
        out.set(s.metric.pod, { sampleAgeSeconds: Math.max(0, Number(s.value[0]) - Number(s.value[1])) });
    for (const s of inFlight)
      if (s.metric.pod) out.set(s.metric.pod, { ...out.get(s.metric.pod), inFlight: Number(s.value[1]) });
    for (const s of kv)
      if (s.metric.pod) out.set(s.metric.pod, { ...out.get(s.metric.pod), kvCacheUsage: Number(s.value[1]) });
    for (const s of queue)
      if (s.metric.pod) out.set(s.metric.pod, { ...out.get(s.metric.pod), queueLength: Number(s.value[1]) });
    return out;
  }

  async activityInWindow(
    namespace: string,
    modelID: string,
    windowSeconds: number,
    signal?: AbortSignal,
  ): Promise<WindowActivity> {
    const scalar = async (query: string) => {
      const r = await queryPrometheus(this.opts, query, signal);
      const v = r.length === 0 ? undefined : Number(r[0]!.value[1]);
      // NaN or a negative count is no evidence of idleness: unknown
      return v !== undefined && Number.isFinite(v) && v >= 0 ? v : undefined;
    };
    const [served, running, waiting, peakQueued, servedTotal, queued] = await Promise.all([
      scalar(requestsQuery(namespace, modelID, windowSeconds)),
      scalar(peakQuery('vllm:num_requests_running', namespace, modelID, windowSeconds)),
      scalar(peakQuery('vllm:num_requests_waiting', namespace, modelID, windowSeconds)),
      scalar(peakQueuedQuery(namespace, modelID, windowSeconds)),
      scalar(servedTotalQuery(namespace, modelID)),
      scalar(queuedQuery(namespace, modelID)),
    ]);
    // vLLM's gauges must be there (unknown never scales to zero); a gateway without flow control has no queue
    const peakInFlight =
      running === undefined || waiting === undefined ? undefined : Math.max(running, waiting, peakQueued ?? 0);
    return {
      ...(served !== undefined ? { served } : {}),
      ...(peakInFlight !== undefined ? { peakInFlight } : {}),
      ...(servedTotal !== undefined ? { servedTotal } : {}),
      queued: queued ?? 0,
    };
  }

  async queuedRequests(
    namespace: string,
    modelID: string,
    signal?: AbortSignal,
    atSeconds?: number,
  ): Promise<number | undefined> {
    const r = await queryPrometheus(this.opts, queuedQuery(namespace, modelID), signal, atSeconds);
    return r.length === 0 ? undefined : Number(r[0]!.value[1]);
  }
}
