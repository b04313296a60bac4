// The dev Gateway's endpoint picker for InferencePools (docs/kubeairunway.md, "Endpoint picker"), as the
// Gateway API Inference Extension's picker scores endpoints: each ready pod of the pool is scored by its
// queue (vllm:num_requests_waiting + vllm:num_requests_running, lower is better, normalised across the
// pool) and its KV-cache use (vllm:kv_cache_usage_perc, lower is better), equally weighted, and the best
// score wins (ties at random). Metrics are what the pods export on /metrics, scraped in the background
// every scrapeIntervalMs while a pod takes traffic; between scrapes the requests the Gateway itself sent a
// pod since its last read (still in flight) count towards its queue, so a burst does not pile onto the pod
// that looked idlest at the last scrape.
//
// Fallbacks (no crash, always an answer — the picker fails open as the Inference Extension's FailOpen
// pool does): a pod whose /metrics cannot be read (down, not an exposition, garbage, negative, NaN or
// infinite values, over 1 MiB, slower than 1 s) ranks after every pod that can, and among such pods the
// one with the fewest requests in flight from this Gateway wins (least-request, as when no pod has
// metrics at all); when every pod is saturated the least loaded still gets the request, which waits in
// its queue — nothing is shed.

export interface PodLoad {
  /** waiting + running requests */
  queue: number;
  /** 0..1 */
  kvCache: number;
}

export interface EndpointPickerOptions {
  /** how often a pod's /metrics is read while it takes traffic (default 50 ms, the Inference Extension's) */
  scrapeIntervalMs?: number;
  /** a pod not picked for this long is no longer scraped (default 30 s) */
  idleAfterMs?: number;
  /** reads a pod's load (default: GET <target>/metrics) */
  readLoad?: (target: string) => Promise<PodLoad | undefined>;
  random?: () => number;
}

interface Tracked {
  load?: PodLoad;
  /** the read that produced `load`: requests picked from this epoch on are not in its queue yet */
  loadEpoch: number;
  /** incremented as each read starts */
  epoch: number;
  /** this Gateway's requests in flight to the pod, by the epoch they were sent in */
  sent: Map<number, number>;
  inFlight: number;
  lastPicked: number;
  /** a scrape loop runs for it */
  scraping: boolean;
  timer?: NodeJS.Timeout;
}

/** the most /metrics text read from a pod; past it the pod counts as unreadable */
export const MAX_METRICS_BYTES = 1024 * 1024;
const GAUGES = [
  'vllm:num_requests_waiting',
  'vllm:num_requests_running',
  'vllm:kv_cache_usage_perc',
  'vllm:gpu_cache_usage_perc',
];
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}\n]*\})?[ \t]+(\S+)/;

/**
 * The pod's load from vLLM's Prometheus text (undefined when no gauge is readable): each gauge summed
 * over its series (one per engine of a data-parallel server); a gauge with a value that is not a finite
 * number ≥ 0 is not read at all, so a hostile pod cannot look idle by exporting -1e9 or NaN.
 */
export function parseLoad(text: string): PodLoad | undefined {
  const sums = new Map<string, number>();
  const bad = new Set<string>();
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || !GAUGES.includes(m[1]!)) continue;
    const v = Number(m[2]);
    if (!Number.isFinite(v) || v < 0) bad.add(m[1]!);
    else sums.set(m[1]!, (sums.get(m[1]!) ?? 0) + v);
  }
  const gauge = (name: string) => (bad.has(name) ? undefined : sums.get(name));
  const waiting = gauge('vllm:num_requests_waiting');
  const running = gauge('vllm:num_requests_running');
  const kv = gauge('vllm:kv_cache_usage_perc') ?? gauge('vllm:gpu_cache_usage_perc');
  if (waiting === undefined && running === undefined && kv === undefined) return undefined;
  const queue = (waiting ?? 0) + (running ?? 0);
  return Number.isFinite(queue) ? { queue, kvCache: Math.min(1, kv ?? 0) } : undefined;
}

async function fetchLoad(target: string): Promise<PodLoad | undefined> {
  try {
    const res = await fetch(`${target}/metrics`, { signal: AbortSignal.timeout(1_000) });
    if (!res.ok || !res.body) return undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Uint8Array).length;
      if (size > MAX_METRICS_BYTES) return undefined;
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return parseLoad(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

export class EndpointPicker {
  private readonly pods = new Map<string, Tracked>();
  private readonly interval: number;
  private readonly idleAfter: number;
  private readonly readLoad: (target: string) => Promise<PodLoad | undefined>;
  private readonly random: () => number;
  private closed = false;

  constructor(opts: EndpointPickerOptions = {}) {
    this.interval = opts.scrapeIntervalMs ?? 50;
    this.idleAfter = opts.idleAfterMs ?? 30_000;
    this.readLoad = opts.readLoad ?? fetchLoad;
    this.random = opts.random ?? Math.random;
  }

  /** the target to send a request to, counted in flight until `done` is called */
  pick(targets: readonly string[]): { target: string; done: () => void } {
    if (targets.length === 0) throw new Error('the endpoint picker was given no endpoint to pick from');
    const now = Date.now();
    const tracked = targets.map((t) => this.track(t, now));
    const scores = scoreAll(tracked);
    const bestScore = Math.max(...scores);
    const best = scores.flatMap((score, i) => (Math.abs(score - bestScore) <= 1e-9 ? [i] : []));
    const i = best[Math.min(best.length - 1, Math.floor(this.random() * best.length))]!;
    const chosen = tracked[i]!;
    const epoch = chosen.epoch;
    chosen.inFlight++;
    chosen.sent.set(epoch, (chosen.sent.get(epoch) ?? 0) + 1);
    chosen.lastPicked = now;
    let released = false;
    return {
      target: targets[i]!,
      done: () => {
        if (released) return;
        released = true;
        chosen.inFlight = Math.max(0, chosen.inFlight - 1);
        const left = (chosen.sent.get(epoch) ?? 1) - 1;
        if (left > 0) chosen.sent.set(epoch, left);
        else chosen.sent.delete(epoch);
      },
    };
  }

  close(): void {
    this.closed = true;
    for (const p of this.pods.values()) clearTimeout(p.timer);
    this.pods.clear();
  }

  private track(target: string, now: number): Tracked {
    let p = this.pods.get(target);
    if (!p) {
      p = { inFlight: 0, sent: new Map(), epoch: 0, loadEpoch: 0, lastPicked: now, scraping: false };
      this.pods.set(target, p);
    }
    if (!p.scraping && !this.closed) {
      p.scraping = true;
      this.scrape(target, p);
    }
    return p;
  }

  /** reads the load now and again every interval until the pod has been idle for idleAfter */
  private scrape(target: string, p: Tracked): void {
    const epoch = ++p.epoch;
    const read = this.readLoad(target).catch(() => undefined);
    void read.then((load) => {
      p.load = load;
      p.loadEpoch = epoch;
      if (this.closed || Date.now() - p.lastPicked > this.idleAfter) {
        p.scraping = false;
        if (p.inFlight === 0) this.pods.delete(target);
        return;
      }
      p.timer = setTimeout(() => this.scrape(target, p), this.interval);
      p.timer.unref();
    });
  }
}

/** this Gateway's requests in flight to the pod that its last read could not have counted yet */
function sentSinceRead(p: Tracked): number {
  let n = 0;
  for (const [epoch, count] of p.sent) if (epoch >= p.loadEpoch) n += count;
  return n;
}

/**
 * Higher is better. A pod with metrics scores in [0, 2]: its queue (what it reported plus what this Gateway
 * sent it since that read), normalised across those pods, plus its free KV cache. A pod without
 * scores below -1 (after every pod that has them), fewer requests in flight scoring higher.
 */
function scoreAll(tracked: readonly Tracked[]): number[] {
  const queues = tracked.map((p) => (p.load ? p.load.queue + sentSinceRead(p) : undefined));
  const known = queues.filter((q): q is number => q !== undefined);
  const min = Math.min(...known);
  const max = Math.max(...known);
  return tracked.map((p, i) => {
    const q = queues[i];
    if (q === undefined || !p.load) return -2 + 1 / (1 + p.inFlight);
    const queueScore = max === min ? 1 : 1 - (q - min) / (max - min);
    return queueScore + (1 - p.load.kvCache);
  });
}
