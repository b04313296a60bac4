// The simulated vLLM engine behind one inference server (docs/autoscaling.md, "The inference simulator"):
// a capacity model in which requests wait in a queue until a sequence slot and KV-cache room are free, then
// prefill and decode at fixed token rates. KV-cache use and the queue therefore grow with concurrent load,
// as on a real vLLM pod, and the counters vLLM exports move with every request.

export interface CapacityModel {
  /** sequences decoded at once (vLLM --max-num-seqs) */
  maxNumSeqs: number;
  /** KV-cache blocks (vllm:cache_config_info num_gpu_blocks) */
  numGpuBlocks: number;
  /** tokens per block */
  blockSize: number;
  /** prompt tokens processed per second per sequence */
  prefillTokensPerSecond: number;
  /** output tokens generated per second per sequence */
  decodeTokensPerSecond: number;
  /** how often the engine advances (ms) */
  stepMs: number;
  /** the context length (max_model_len) */
  maxModelLen: number;
}

export const DEFAULT_CAPACITY: CapacityModel = {
  maxNumSeqs: 8,
  numGpuBlocks: 256,
  blockSize: 16,
  prefillTokensPerSecond: 8_000,
  decodeTokensPerSecond: 60,
  stepMs: 25,
  maxModelLen: 4_096,
};

export type FinishReason = 'stop' | 'length' | 'abort';

export interface GenerationRequest {
  promptTokens: number;
  /** output tokens before the request stops on its own (the "natural" answer length) */
  naturalTokens: number;
  maxTokens: number;
  /** called with each batch of new output tokens */
  onTokens?: (tokens: number) => void;
}

export interface GenerationResult {
  promptTokens: number;
  completionTokens: number;
  finishReason: FinishReason;
  queuedMs: number;
  firstTokenMs: number;
  totalMs: number;
}

interface Sequence {
  req: GenerationRequest;
  arrived: number;
  admitted?: number;
  firstToken?: number;
  prefillLeft: number;
  generated: number;
  fraction: number;
  reserved: number;
  resolve: (r: GenerationResult) => void;
  signal?: AbortSignal;
}

export interface EngineCounters {
  success: Record<FinishReason, number>;
  promptTokens: number;
  generationTokens: number;
}

export class InferenceEngine {
  readonly capacity: CapacityModel;
  private readonly waiting: Sequence[] = [];
  private readonly running = new Set<Sequence>();
  private reservedTokens = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  readonly counters: EngineCounters = {
    success: { stop: 0, length: 0, abort: 0 },
    promptTokens: 0,
    generationTokens: 0,
  };
  /** told about each finished request (the metrics observe histograms here) */
  onFinished: ((r: GenerationResult) => void) | undefined;

  constructor(
    capacity: Partial<CapacityModel> = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.capacity = { ...DEFAULT_CAPACITY, ...capacity };
  }

  get kvCacheUsage(): number {
    return Math.min(1, this.reservedTokens / this.totalKvTokens);
  }

  get numRunning(): number {
    return this.running.size;
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  get totalKvTokens(): number {
    return this.capacity.numGpuBlocks * this.capacity.blockSize;
  }

  /** queues a request; resolves when it finishes (or is aborted through `signal`) */
  generate(req: GenerationRequest, signal?: AbortSignal): Promise<GenerationResult> {
    return new Promise((resolve) => {
      const seq: Sequence = {
        req,
        arrived: this.now(),
        prefillLeft: req.promptTokens,
        generated: 0,
        fraction: 0,
        reserved: 0,
        resolve,
        ...(signal ? { signal } : {}),
      };
      this.waiting.push(seq);
      signal?.addEventListener('abort', () => this.finish(seq, 'abort'), { once: true });
      this.admit();
      this.ensureRunning();
    });
  }

  /** stops the clock; requests in flight are aborted */
  close(): void {
    for (const s of [...this.waiting, ...this.running]) this.finish(s, 'abort');
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.running.size < this.capacity.maxNumSeqs) {
      const s = this.waiting[0]!;
      // vLLM allocates the prompt's blocks at admission and more as the answer grows; we reserve both up front
      const need =
        this.blocksFor(s.req.promptTokens + Math.min(s.req.maxTokens, s.req.naturalTokens)) * this.capacity.blockSize;
      if (this.running.size > 0 && this.reservedTokens + need > this.totalKvTokens) break;
      this.waiting.shift();
      s.reserved = need;
      s.admitted = this.now();
      this.reservedTokens += need;
      this.running.add(s);
    }
  }

  private blocksFor(tokens: number): number {
    return Math.max(1, Math.ceil(tokens / this.capacity.blockSize));
  }

  private ensureRunning(): void {
    if (this.timer || this.running.size + this.waiting.length === 0) return;
    this.last = this.now();
    this.timer = setInterval(() => this.step(), this.capacity.stepMs);
  }

  private step(): void {
    const now = this.now();
    const dt = (now - this.last) / 1000;
    this.last = now;
    for (const s of [...this.running]) {
      if (s.prefillLeft > 0) {
        s.prefillLeft -= this.capacity.prefillTokensPerSecond * dt;
        if (s.prefillLeft > 0) continue;
      }
      s.fraction += this.capacity.decodeTokensPerSecond * dt;
      const target = Math.min(s.req.maxTokens, s.req.naturalTokens);
      const fresh = Math.min(Math.floor(s.fraction), target - s.generated);
      if (fresh > 0) {
        s.fraction -= fresh;
        s.generated += fresh;
        s.firstToken ??= now;
        s.req.onTokens?.(fresh);
      }
      if (s.generated >= target)
        this.finish(s, s.generated >= s.req.maxTokens && s.req.maxTokens < s.req.naturalTokens ? 'length' : 'stop');
    }
    this.admit();
    if (this.running.size + this.waiting.length === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private finish(s: Sequence, reason: FinishReason): void {
    const wasRunning = this.running.delete(s);
    const i = this.waiting.indexOf(s);
    if (!wasRunning && i < 0) return;
    if (i >= 0) this.waiting.splice(i, 1);
    if (wasRunning) this.reservedTokens -= s.reserved;
    const now = this.now();
    const result: GenerationResult = {
      promptTokens: s.req.promptTokens,
      completionTokens: s.generated,
      finishReason: reason,
      queuedMs: (s.admitted ?? now) - s.arrived,
      firstTokenMs: (s.firstToken ?? now) - s.arrived,
      totalMs: now - s.arrived,
    };
    if (reason !== 'abort') {
      this.counters.success[reason]++;
      this.counters.promptTokens += s.req.promptTokens;
      this.counters.generationTokens += s.generated;
      this.onFinished?.(result);
    }
    s.resolve(result);
    if (wasRunning) this.admit();
  }
}
