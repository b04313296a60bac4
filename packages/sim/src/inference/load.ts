// The load generator behind `modelplane load` (docs/autoscaling.md, "Load"): a fixed number of concurrent
// clients sending chat completions for a duration, each request to the endpoint with the fewest of this
// generator's requests outstanding (ties in turn), as llm-d's endpoint picker spreads by load rather than
// blindly: with round-robin a replica slowed by a busy machine collects the waiting clients and looks
// saturated while the others look idle. The endpoints may be re-resolved while running (a Service's ready pods).

export interface LoadOptions {
  /** the base URLs to spread over; re-read every second when a function */
  targets: string[] | (() => Promise<string[]>);
  model: string;
  concurrency: number;
  durationMs: number;
  maxTokens: number;
  stream?: boolean;
  /** requests per second over all clients (default: as fast as the clients go) */
  rate?: number;
  signal?: AbortSignal;
  /** told every second */
  onProgress?: (p: LoadProgress) => void;
}

export interface LoadProgress {
  elapsedMs: number;
  sent: number;
  ok: number;
  errors: number;
  inFlight: number;
  targets: number;
}

export interface LoadSummary extends LoadProgress {
  completionTokens: number;
  latencyMs: { p50: number; p95: number; max: number };
  lastError?: string;
}

export async function runLoad(opts: LoadOptions): Promise<LoadSummary> {
  let targets = typeof opts.targets === 'function' ? await opts.targets() : opts.targets;
  const started = Date.now();
  const deadline = started + opts.durationMs;
  const latencies: number[] = [];
  const s = { sent: 0, ok: 0, errors: 0, inFlight: 0, completionTokens: 0, lastError: undefined as string | undefined };
  let next = 0;
  const outstanding = new Map<string, number>();
  const refresh = setInterval(async () => {
    if (typeof opts.targets === 'function') targets = await opts.targets().catch(() => targets);
    opts.onProgress?.({
      elapsedMs: Date.now() - started,
      sent: s.sent,
      ok: s.ok,
      errors: s.errors,
      inFlight: s.inFlight,
      targets: targets.length,
    });
  }, 1_000);
  const gap = opts.rate ? 1_000 / opts.rate : 0;
  let nextSlot = started;
  const client = async (i: number) => {
    while (Date.now() < deadline && !opts.signal?.aborted) {
      if (gap > 0) {
        const slot = nextSlot;
        nextSlot += gap;
        if (slot > Date.now()) await new Promise((r) => setTimeout(r, slot - Date.now()));
        if (Date.now() >= deadline) break;
      }
      if (targets.length === 0) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const url = leastOutstanding(targets, outstanding, next++);
      outstanding.set(url, (outstanding.get(url) ?? 0) + 1);
      const t0 = Date.now();
      s.sent++;
      s.inFlight++;
      try {
        const tokens = await oneRequest(url, opts, i, s.sent);
        s.ok++;
        s.completionTokens += tokens;
        latencies.push(Date.now() - t0);
      } catch (err) {
        s.errors++;
        s.lastError = `${url}: ${(err as Error).message}`;
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        s.inFlight--;
        outstanding.set(url, (outstanding.get(url) ?? 1) - 1);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, i) => client(i)));
  clearInterval(refresh);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return {
    elapsedMs: Date.now() - started,
    sent: s.sent,
    ok: s.ok,
    errors: s.errors,
    inFlight: 0,
    targets: targets.length,
    completionTokens: s.completionTokens,
    latencyMs: { p50: q(0.5), p95: q(0.95), max: latencies.at(-1) ?? 0 },
    ...(s.lastError ? { lastError: s.lastError } : {}),
  };
}

/** the target with the fewest outstanding requests; among equals, the one `turn` points at first */
function leastOutstanding(targets: readonly string[], outstanding: ReadonlyMap<string, number>, turn: number): string {
  let best = targets[turn % targets.length]!;
  for (let k = 1; k < targets.length; k++) {
    const t = targets[(turn + k) % targets.length]!;
    if ((outstanding.get(t) ?? 0) < (outstanding.get(best) ?? 0)) best = t;
  }
  return best;
}

async function oneRequest(url: string, opts: LoadOptions, client: number, n: number): Promise<number> {
  const res = await fetch(`${url.replace(/\/$/, '')}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      model: opts.model,
      messages: [{ role: 'user', content: `load generator client ${client} request ${n}: tell me something` }],
      max_tokens: opts.maxTokens,
      stream: opts.stream === true,
      ...(opts.stream ? { stream_options: { include_usage: true } } : {}),
    }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  if (!opts.stream)
    return ((await res.json()) as { usage?: { completion_tokens?: number } }).usage?.completion_tokens ?? 0;
  const text = await res.text();
  const usage = text
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e.startsWith('{'))
    .map((e) => JSON.parse(e) as { usage?: { completion_tokens?: number } })
    .find((e) => e.usage);
  return usage?.usage?.completion_tokens ?? 0;
}
