// Where the saturation engine gets replica load from (docs/autoscaling.md, "Metrics in"). The engine sees
// only this interface; the Prometheus HTTP API implementation is the one `modelplane run` and dev use.

export interface PodLoad {
  /** vllm:kv_cache_usage_perc (max over the last minute), undefined when the series is missing */
  kvCacheUsage?: number;
  /** vllm:num_requests_waiting (max over the last minute) */
  queueLength?: number;
  /** vllm:num_requests_running + vllm:num_requests_waiting now (newest samples, not the last minute's maximum) */
  inFlight?: number;
  /** how old the pod's newest sample is, when the source knows (older than a minute = stale) */
  sampleAgeSeconds?: number;
}

/** what the metrics say of a model over its scale-to-zero window (docs/autoscaling.md, "Scale to zero") */
export interface WindowActivity {
  /** requests served in the window (undefined: no data) */
  served?: number;
  /**
   * the most requests running or waiting on any replica, or held at the gateway, at any sample in the window
   * (undefined: no data)
   */
  peakInFlight?: number;
  /** the model's served-request counters summed now: any change between two cycles is a request (no data: undefined) */
  servedTotal?: number;
  /** requests the gateway holds for the model now */
  queued?: number;
}

export interface MetricsSource {
  /** a description for logs and condition messages, e.g. `Prometheus at http://127.0.0.1:9090` */
  readonly description: string;
  /** load per pod name for one model in one namespace */
  podLoad(namespace: string, modelID: string, signal?: AbortSignal): Promise<Map<string, PodLoad>>;
  /** the model's activity in the last `windowSeconds`; asked only of models allowed to scale to zero */
  activityInWindow(
    namespace: string,
    modelID: string,
    windowSeconds: number,
    signal?: AbortSignal,
  ): Promise<WindowActivity>;
  /**
   * requests held at the gateway for the model (its flow-control queue; undefined: no data), now or as the
   * source saw them at `atSeconds` (Unix seconds)
   */
  queuedRequests?(
    namespace: string,
    modelID: string,
    signal?: AbortSignal,
    atSeconds?: number,
  ): Promise<number | undefined>;
}

/** what the autoscaler uses when no metrics backend is configured: every read fails with instructions */
export class UnconfiguredMetricsSource implements MetricsSource {
  readonly description = 'no metrics source';
  constructor(private readonly why: string) {}
  podLoad(): Promise<Map<string, PodLoad>> {
    return Promise.reject(new Error(this.why));
  }
  activityInWindow(): Promise<WindowActivity> {
    return Promise.reject(new Error(this.why));
  }
  queuedRequests(): Promise<number | undefined> {
    return Promise.reject(new Error(this.why));
  }
}
