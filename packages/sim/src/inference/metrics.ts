// The Prometheus metrics of one simulated vLLM server, under vLLM's own names and labels (model_name,
// engine), so the autoscaler's PromQL and any vLLM dashboard read them unchanged.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InferenceEngine } from './engine.ts';

const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80];
const TOKEN_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

export function engineRegistry(engine: InferenceEngine, model: string): Registry {
  const registry = new Registry();
  const registers = [registry];
  const labels = { model_name: model, engine: '0' };
  const labelNames = ['model_name', 'engine'] as const;
  new Gauge({
    name: 'vllm:kv_cache_usage_perc',
    help: 'KV-cache usage. 1 means 100 percent usage.',
    labelNames,
    registers,
    collect() {
      this.set(labels, engine.kvCacheUsage);
    },
  });
  new Gauge({
    name: 'vllm:num_requests_running',
    help: 'Number of requests in model execution batches.',
    labelNames,
    registers,
    collect() {
      this.set(labels, engine.numRunning);
    },
  });
  new Gauge({
    name: 'vllm:num_requests_waiting',
    help: 'Number of requests waiting to be processed.',
    labelNames,
    registers,
    collect() {
      this.set(labels, engine.numWaiting);
    },
  });
  const c = engine.capacity;
  const info = new Gauge({
    name: 'vllm:cache_config_info',
    help: 'Information of the LLMEngine CacheConfig',
    labelNames: [
      'model_name',
      'engine',
      'block_size',
      'num_gpu_blocks',
      'cache_dtype',
      'enable_prefix_caching',
      'gpu_memory_utilization',
    ],
    registers,
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
  const success = new Counter({
    name: 'vllm:request_success_total',
    help: 'Count of successfully processed requests.',
    labelNames: [...labelNames, 'finished_reason'],
    registers,
  });
  for (const reason of ['stop', 'length'] as const) success.inc({ ...labels, finished_reason: reason }, 0);
  const promptTokens = new Counter({
    name: 'vllm:prompt_tokens_total',
    help: 'Number of prefill tokens processed.',
    labelNames,
    registers,
  });
  const generationTokens = new Counter({
    name: 'vllm:generation_tokens_total',
    help: 'Number of generation tokens processed.',
    labelNames,
    registers,
  });
  promptTokens.inc(labels, 0);
  generationTokens.inc(labels, 0);
  const promptHist = new Histogram({
    name: 'vllm:request_prompt_tokens',
    help: 'Number of prefill tokens processed.',
    labelNames,
    buckets: TOKEN_BUCKETS,
    registers,
  });
  const genHist = new Histogram({
    name: 'vllm:request_generation_tokens',
    help: 'Number of generation tokens processed.',
    labelNames,
    buckets: TOKEN_BUCKETS,
    registers,
  });
  const ttft = new Histogram({
    name: 'vllm:time_to_first_token_seconds',
    help: 'Histogram of time to first token in seconds.',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const e2e = new Histogram({
    name: 'vllm:e2e_request_latency_seconds',
    help: 'Histogram of e2e request latency in seconds.',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const queue = new Histogram({
    name: 'vllm:request_queue_time_seconds',
    help: 'Histogram of time spent in WAITING phase for request.',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  engine.onFinished = (r) => {
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
  return registry;
}
