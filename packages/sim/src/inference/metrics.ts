// The Prometheus metrics of one simulated vLLM server, under vLLM's own names and labels (model_name,
// engine), so the autoscaler's PromQL and any vLLM dashboard read them unchanged.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InferenceEngine } from './engine.ts';

const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80];
const TOKEN_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

type Labels = { model_name: string; engine: string };
const LABEL_NAMES = ['model_name', 'engine'] as const;

export function engineRegistry(engine: InferenceEngine, model: string): Registry {
  const registry = new Registry();
  const labels: Labels = { model_name: model, engine: '0' };
  registerLoadGauges(engine, labels, registry);
  registerCacheConfigInfo(engine, labels, registry);
  engine.onFinished = requestMetrics(labels, registry);
  return registry;
}

/** what the engine holds now, read at every scrape: the autoscaler's saturation signals */
function registerLoadGauges(engine: InferenceEngine, labels: Labels, registry: Registry): void {
  const gauges: Array<[name: string, help: string, read: () => number]> = [
    ['vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', () => engine.kvCacheUsage],
    ['vllm:num_requests_running', 'Number of requests in model execution batches.', () => engine.numRunning],
    ['vllm:num_requests_waiting', 'Number of requests waiting to be processed.', () => engine.numWaiting],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      labelNames: LABEL_NAMES,
      registers: [registry],
      collect() {
        this.set(labels, read());
      },
    });
  }
}

/** vLLM's cache_config_info: the KV-cache geometry as labels, value 1 */
function registerCacheConfigInfo(engine: InferenceEngine, labels: Labels, registry: Registry): void {
  const c = engine.capacity;
  const info = new Gauge({
    name: 'vllm:cache_config_info',
    help: 'Information of the LLMEngine CacheConfig',
    labelNames: [
      ...LABEL_NAMES,
      'block_size',
      'num_gpu_blocks',
      'cache_dtype',
      'enable_prefix_caching',
      'gpu_memory_utilization',
    ],
    registers: [registry],
  });
  info.set(
    {
      ...labels,
      block_size: String(c.blockSize),
      num_gpu_blocks: String(c.numGpuBlocks),
      cache_dtype: 'auto',
      enable_prefix_caching: 'False',
      gpu_memory_utilization: '0.9',
    },
    1,
  );
}

/**
 * The per-request counters and histograms (exported at zero from the start, as vLLM does), and the function
 * that records one finished request in them; aborted requests are not counted.
 */
function requestMetrics(labels: Labels, registry: Registry): InferenceEngine['onFinished'] {
  const registers = [registry];
  const labelNames = LABEL_NAMES;
  const success = new Counter({
    name: 'vllm:request_success_total',
    help: 'Count of successfully processed requests.',
    labelNames: [...labelNames, 'finished_reason'],
    registers,
  });
  for (const reason of ['stop', 'length'] as const) success.inc({ ...labels, finished_reason: reason }, 0);
  const counter = (name: string, help: string) => {
    const c = new Counter({ name, help, labelNames, registers });
    c.inc(labels, 0);
    return c;
  };
  const promptTokens = counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.');
  const generationTokens = counter('vllm:generation_tokens_total', 'Number of generation tokens processed.');
  const histogram = (name: string, help: string, buckets: number[]) =>
    new Histogram({ name, help, labelNames, buckets, registers });
  const promptHist = histogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', TOKEN_BUCKETS);
  const genHist = histogram('vllm:request_generation_tokens', 'Number of generation tokens processed.', TOKEN_BUCKETS);
  const ttft = histogram(
    'vllm:time_to_first_token_seconds',
    'Histogram of time to first token in seconds.',
    LATENCY_BUCKETS,
  );
  const e2e = histogram(
    'vllm:e2e_request_latency_seconds',
    'Histogram of e2e request latency in seconds.',
    LATENCY_BUCKETS,
  );
  const queue = histogram(
    'vllm:request_queue_time_seconds',
    'Histogram of time spent in WAITING phase for request.',
    LATENCY_BUCKETS,
  );
  return (r) => {
    if (r.finishReason === 'abort') return;
    success.inc({ ...labels, finished_reason: r.finishReason });
    promptTokens.inc(labels, r.promptTokens);
    generationTokens.inc(labels, r.completionTokens);
    promptHist.observe(labels, r.promptTokens);
    genHist.observe(labels, r.completionTokens);
    ttft.observe(labels, r.firstTokenMs / 1000);
    e2e.observe(labels, r.totalMs / 1000);
    queue.observe(labels, r.queuedMs / 1000);
  };
}
