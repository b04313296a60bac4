// What the running server says about itself (docs/llamastack.md, "Ready means chat works"): once per rollout
// (a Deployment generation with every replica available), and again every RECHECK while it is not healthy,
// the fetch phase reads /v1/health, /v1/providers and /v1/version over the object's Service. The answers
// feed status (the server version, each provider's health) and the ServerHealthy condition; a server the
// operator cannot reach is reported, not guessed about.

import { asError, asInfo, type ConditionManager } from '../../engine/index.ts';

/** where the operator reaches a Service port; undefined when it cannot (nothing ready behind it) */
export type ServiceUrl = (namespace: string, service: string, port: number) => Promise<string | undefined>;

/** the cluster's DNS name of the Service: what an operator running in the cluster uses */
export const clusterServiceUrl: ServiceUrl = async (namespace, service, port) =>
  `http://${service}.${namespace}.svc.cluster.local:${port}`;

export interface ProviderHealth {
  api: string;
  provider_id: string;
  provider_type: string;
  health?: { status: string; message?: string };
}

export type ServerReport =
  | {
      reachable: true;
      healthy: boolean;
      status: string;
      version?: string;
      providers: ProviderHealth[];
      /** when the server was read (RFC 3339) */
      checkedAt: string;
    }
  | { reachable: false; message: string };

const TIMEOUT_MS = 5_000;
/** bodies larger than this are not a Llama Stack answer: refused unread */
const MAX_BODY = 1 << 20;

/** GET `base + path` as JSON, bounded in time and size; throws naming the path */
export async function getJson(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  const text = await res.text();
  if (text.length > MAX_BODY) throw new Error(`GET ${path}: answer over ${MAX_BODY} bytes`);
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`GET ${path}: the answer is not JSON`);
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function providersOf(body: unknown): ProviderHealth[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data)) return [];
  return data.flatMap((p) => {
    if (!p || typeof p !== 'object') return [];
    const o = p as Record<string, unknown>;
    const h = o.health as Record<string, unknown> | undefined;
    const status = str(h?.status);
    const message = str(h?.message);
    return [
      {
        api: str(o.api) ?? '',
        provider_id: str(o.provider_id) ?? '',
        provider_type: str(o.provider_type) ?? '',
        ...(status ? { health: { status, ...(message ? { message: message.slice(0, 500) } : {}) } } : {}),
      },
    ];
  });
}

/** a provider the server itself reports as failing ("Not Implemented" is no failure: it has no check) */
export const unhealthyProviders = (providers: readonly ProviderHealth[]) =>
  providers.filter((p) => p.health && p.health.status !== 'OK' && p.health.status !== 'Not Implemented');

/** reads the three endpoints of the server at `base`; never throws */
export async function probeServer(base: string | undefined): Promise<ServerReport> {
  if (!base) return { reachable: false, message: 'no ready endpoint behind the Service' };
  try {
    const [health, providers, version] = await Promise.all([
      getJson(base, '/v1/health'),
      getJson(base, '/v1/providers'),
      getJson(base, '/v1/version').catch(() => undefined),
    ]);
    const status = str((health as { status?: unknown })?.status) ?? 'unknown';
    const list = providersOf(providers);
    const v = str((version as { version?: unknown } | undefined)?.version);
    return {
      reachable: true,
      healthy: status === 'OK' && unhealthyProviders(list).length === 0,
      status,
      ...(v ? { version: v } : {}),
      providers: list,
      checkedAt: new Date().toISOString(),
    };
  } catch (err) {
    return { reachable: false, message: `${base}: ${(err as Error).message}` };
  }
}

/**
 * The last report per key (an object, or one of its references), kept for as long as the state it describes:
 * `key` names that state (a rollout, an endpoint and what is expected of it), so a change is read again and
 * a resync is not; a report that is not good is read again after `recheckMs`. Bounded: past `maxEntries` the
 * least recently read id is dropped (a deleted object's entries go that way; reading again is harmless).
 */
export class ReportMemory<R> {
  private readonly byId = new Map<string, { key: string; at: number; report: R }>();

  constructor(
    private readonly recheckMs: number,
    private readonly good: (report: R) => boolean,
    private readonly maxEntries = 10_000,
  ) {}

  /** the report for `key`, read again when it is for another state or a bad one is old */
  async get(id: string, key: string, now: number, read: () => Promise<R>): Promise<R> {
    const last = this.byId.get(id);
    if (last && last.key === key && (this.good(last.report) || now - last.at < this.recheckMs)) return last.report;
    const report = await read();
    this.byId.delete(id);
    this.byId.set(id, { key, at: now, report });
    if (this.byId.size > this.maxEntries) this.byId.delete(this.byId.keys().next().value!);
    return report;
  }

  get size(): number {
    return this.byId.size;
  }
}

/** the last server report per object: read once per rollout, again every recheck while unhealthy */
export class ServerReports extends ReportMemory<ServerReport> {
  constructor(recheckMs: number) {
    super(recheckMs, (r) => r.reachable && r.healthy);
  }
}

/** ServerHealthy: what the running server said about itself once its rollout completed */
export function setServerHealth(
  cm: ConditionManager,
  r: ServerReport | undefined,
): { reason: string; message: string } | undefined {
  if (!r) {
    cm.delete('ServerHealthy');
    return undefined;
  }
  if (!r.reachable) {
    cm.markUnknown('ServerHealthy', 'ServerUnreachable', `the server could not be read: ${r.message}`, asInfo());
    return undefined;
  }
  const [bad] = unhealthyProviders(r.providers);
  if (r.status !== 'OK' || bad) {
    const problem = bad
      ? {
          reason: 'ProviderUnhealthy',
          message: `provider ${bad.provider_id} (${bad.api}, ${bad.provider_type}) reports ${bad.health?.status}${bad.health?.message ? `: ${bad.health.message}` : ''}`,
        }
      : { reason: 'ServerUnhealthy', message: `the server's /v1/health says ${r.status}` };
    cm.markFalse('ServerHealthy', problem.reason, problem.message, asError());
    return problem;
  }
  cm.markTrue(
    'ServerHealthy',
    'ServerHealthy',
    `Llama Stack ${r.version ?? '(version unknown)'} is healthy, ${r.providers.length} provider(s) answering`,
    asInfo(),
  );
  return undefined;
}
