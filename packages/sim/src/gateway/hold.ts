// The gateway's flow-control queue (docs/autoscaling.md, "Scale from zero"): a request whose backend has no
// Ready endpoint — a model scaled to zero — is held, not refused, until an endpoint is Ready or the hold
// times out. The queue is exported as llm-d's endpoint picker exports it,
// `inference_extension_flow_control_queue_size{namespace, target_model_name}`, on a /metrics endpoint that
// Prometheus scrapes, so the autoscaler sees that a model at zero has a request waiting.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveGuarded } from '@modelplane/runtime/serve';
import { Gauge, Registry } from 'prom-client';

export const QUEUE_METRIC = 'inference_extension_flow_control_queue_size';
/** how long a request waits for a Ready endpoint before it gets 503 */
export const DEFAULT_HOLD_MS = 120_000;
const POLL_MS = 200;

export class HeldRequests {
  readonly registry = new Registry();
  private readonly queue: Gauge<'namespace' | 'target_model_name'>;
  private server: http.Server | undefined;

  constructor(private readonly holdMs = DEFAULT_HOLD_MS) {
    this.queue = new Gauge({
      name: QUEUE_METRIC,
      help: 'Requests held at the gateway because their backend has no Ready endpoint yet (a model scaled to zero)',
      labelNames: ['namespace', 'target_model_name'],
      registers: [this.registry],
    });
  }

  /**
   * Waits for `resolve` to return endpoints, counting the request in the queue meanwhile. Returns the
   * endpoints, or [] when the hold timed out or the client went away (`gone`).
   */
  async hold(
    where: { namespace: string; model: string },
    resolve: () => Promise<string[]>,
    gone: AbortSignal,
  ): Promise<string[]> {
    const labels = { namespace: where.namespace, target_model_name: where.model };
    this.queue.inc(labels);
    try {
      const deadline = Date.now() + this.holdMs;
      while (Date.now() < deadline && !gone.aborted) {
        await sleep(POLL_MS, undefined, { signal: gone }).catch(() => undefined);
        const targets = await resolve().catch(() => []);
        if (targets.length > 0) return targets;
      }
      return [];
    } finally {
      this.queue.dec(labels);
    }
  }

  /** serves /metrics on loopback; the URL, for Prometheus's static targets */
  async serveMetrics(): Promise<string> {
    if (!this.server) {
      // behind the error boundary every server shares: /metrics is a GET, a body past 64 KiB is a 413
      const server = serveGuarded(
        http.createServer(),
        { name: 'the gateway queue metrics', maxBodyBytes: 64 * 1024 },
        async (req, res, { url }) => {
          if (req.method !== 'GET' || url.pathname !== '/metrics') {
            res.statusCode = 404;
            res.end();
            return;
          }
          const text = await this.registry.metrics();
          res.setHeader('content-type', this.registry.contentType);
          res.end(text);
        },
      );
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      this.server = server;
    }
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>((ok) => s.close(() => ok()));
  }
}
