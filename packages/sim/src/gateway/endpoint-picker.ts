// The dev Gateway's endpoint picker for InferencePools (docs/kubeairunway.md, "Endpoint picker"), as the
// Gateway API Inference Extension's picker scores endpoints: each ready pod of the pool is scored by its
// queue (vllm:num_requests_waiting + vllm:num_requests_running, lower is better, normalised across the
// pool) and its KV-cache use (vllm:kv_cache_usage_perc, lower is better), equally weighted, and the best
// score wins (ties at random). Metrics are what the pods export on /metrics, scraped in the background
// every scrapeIntervalMs while a pod takes traffic; between scrapes the requests the Gateway itself has in
// flight to a pod keep a burst from piling onto the pod that looked idlest at the last scrape. A pod whose
// metrics cannot be read is scored as the most loaded (fail open: it still gets traffic when it is the
// only one).

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
  inFlight: number;
  lastPicked: number;
  /** a scrape loop runs for it */
  scraping: boolean;
  timer?: NodeJS.Timeout;
}

/** the pod's load from vLLM's Prometheus text (undefined when the gauges are missing) */
export function parseLoad(text: string): PodLoad | undefined {
  const gauge = (name: string): number | undefined => {
    const m = new RegExp(`^${name.replace(/[:]/g, '\\:')}(?:\\{[^}]*\\})?\\s+([0-9.eE+-]+)`, 'm').exec(text);
    const v = m ? Number(m[1]) : Number.NaN;
    return Number.isFinite(v) && v >= 0 ? v : undefined;
  };
  const waiting = gauge('vllm:num_requests_waiting');
  const running = gauge('vllm:num_requests_running');
  const kv = gauge('vllm:kv_cache_usage_perc') ?? gauge('vllm:gpu_cache_usage_perc');
  if (waiting === undefined && running === undefined && kv === undefined) return undefined;
  return { queue: (waiting ?? 0) + (running ?? 0), kvCache: Math.min(1, kv ?? 0) };
}

async function fetchLoad(target: string): Promise<PodLoad | undefined> {
  try {
    const res = await fetch(`${target}/metrics`, { signal: AbortSignal.timeout(1_000) });
    return res.ok ? parseLoad(await res.text()) : undefined;
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
    const now = Date.now();
    const tracked = targets.map((t) => this.track(t, now));
    const queues = tracked.map((p) => Math.max(p.load?.queue ?? Number.POSITIVE_INFINITY, p.inFlight));
    const finite = queues.filter(Number.isFinite);
    const min = finite.length ? Math.min(...finite) : 0;
    const max = finite.length ? Math.max(...finite) : 0;
    let best: number[] = [];
    let bestScore = Number.NEGATIVE_INFINITY;
    tracked.forEach((p, i) => {
      const q = queues[i]!;
      const queueScore = !Number.isFinite(q) ? 0 : max === min ? 1 : 1 - (q - min) / (max - min);
      const kvScore = p.load ? 1 - p.load.kvCache : 0;
      const score = queueScore + kvScore;
      if (score > bestScore + 1e-9) {
        bestScore = score;
        best = [i];
      } else if (Math.abs(score - bestScore) <= 1e-9) best.push(i);
    });
    const i = best[Math.min(best.length - 1, Math.floor(this.random() * best.length))]!;
    const chosen = tracked[i]!;
    chosen.inFlight++;
    chosen.lastPicked = now;
    let released = false;
    return {
      target: targets[i]!,
      done: () => {
        if (released) return;
        released = true;
        chosen.inFlight = Math.max(0, chosen.inFlight - 1);
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
      p = { inFlight: 0, lastPicked: now, scraping: false };
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
    void this.readLoad(target).then((load) => {
      p.load = load;
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
