// The Prometheus HTTP API metrics source: instant queries (GET /api/v1/query) running the PromQL of
// docs/autoscaling.md, "Metrics in". Series are selected by the vLLM `model_name` label and the `namespace`
// label Prometheus adds from Kubernetes service discovery; results are keyed by the `pod` label.
import type { MetricsSource, PodLoad } from './source.ts';

export interface PrometheusSourceOptions {
  /** e.g. http://127.0.0.1:9090 (PROMETHEUS_BASE_URL) */
  baseUrl: string;
  /** sent as `Authorization: Bearer …` (PROMETHEUS_BEARER_TOKEN) */
  bearerToken?: string;
  timeoutMs?: number;
}

interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

const esc = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"');

export function kvCacheQuery(namespace: string, modelID: string): string {
  return `max by (pod)(max_over_time(vllm:kv_cache_usage_perc{namespace="${esc(namespace)}",model_name="${esc(modelID)}"}[1m]))`;
}

export function queueQuery(namespace: string, modelID: string): string {
  return `max by (pod)(max_over_time(vllm:num_requests_waiting{namespace="${esc(namespace)}",model_name="${esc(modelID)}"}[1m]))`;
}

export function requestsQuery(namespace: string, modelID: string, windowSeconds: number): string {
  return `sum(increase(vllm:request_success_total{namespace="${esc(namespace)}",model_name="${esc(modelID)}"}[${Math.max(1, Math.round(windowSeconds))}s]))`;
}

export class PrometheusMetricsSource implements MetricsSource {
  readonly description: string;

  constructor(private readonly opts: PrometheusSourceOptions) {
    this.description = `Prometheus at ${opts.baseUrl}`;
  }

  async podLoad(namespace: string, modelID: string, signal?: AbortSignal): Promise<Map<string, PodLoad>> {
    const [kv, q] = await Promise.all([this.query(kvCacheQuery(namespace, modelID), signal), this.query(queueQuery(namespace, modelID), signal)]);
    const out = new Map<string, PodLoad>();
    for (const s of kv) if (s.metric.pod) out.set(s.metric.pod, { ...out.get(s.metric.pod), kvCacheUsage: Number(s.value[1]) });
    for (const s of q) if (s.metric.pod) out.set(s.metric.pod, { ...out.get(s.metric.pod), queueLength: Number(s.value[1]) });
    return out;
  }

  async requestsInWindow(namespace: string, modelID: string, windowSeconds: number, signal?: AbortSignal): Promise<number | undefined> {
    const r = await this.query(requestsQuery(namespace, modelID, windowSeconds), signal);
    return r.length === 0 ? undefined : Number(r[0]!.value[1]);
  }

  /** one instant query; throws with Prometheus's own error text */
  async query(promql: string, signal?: AbortSignal): Promise<VectorSample[]> {
    const url = `${this.opts.baseUrl.replace(/\/$/, '')}/api/v1/query?query=${encodeURIComponent(promql)}`;
    const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 5_000);
    const res = await fetch(url, {
      headers: { Accept: 'application/json', ...(this.opts.bearerToken ? { Authorization: `Bearer ${this.opts.bearerToken}` } : {}) },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    }).catch((err: Error) => {
      throw new Error(`${this.description} is unreachable: ${err.cause instanceof Error ? err.cause.message : err.message}`);
    });
    const body = (await res.json().catch(() => undefined)) as { status?: string; error?: string; data?: { resultType?: string; result?: VectorSample[] } } | undefined;
    if (!res.ok || body?.status !== 'success') throw new Error(`${this.description} answered ${res.status}: ${body?.error ?? 'no JSON body'} (query ${promql})`);
    if (body.data?.resultType !== 'vector') throw new Error(`${this.description} returned a ${body.data?.resultType} for an instant query (query ${promql})`);
    return body.data.result ?? [];
  }
}
